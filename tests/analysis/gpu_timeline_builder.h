// Hand-built GPU timelines for the timeline analyses' tests: a host thread launching work on
// device streams, times in microseconds, as an XSpace read back by the importer.
#pragma once

#include <map>
#include <string>

#include "model/xspace_builder.h"
#include "model/xspace/importer.h"

namespace mlprof::testing {

inline int64_t us_ps(double us) { return int64_t(us * double(kPsPerUs)); }

class GpuTimelineBuilder {
 public:
  GpuTimelineBuilder() : host_(add_plane(&space_, 1, "/host:CPU")), gpu_(add_plane(&space_, 2, "/device:GPU:0")) {
    main_ = host_.line(1, "main", 0);
  }

  // A host event (an op, a step root, a synchronize call) on the main thread.
  void host(const std::string& name, double begin_us, double dur_us, const std::vector<StatArg>& stats = {}) {
    host_.event(main_, name, us_ps(begin_us), us_ps(dur_us), stats);
  }
  // A step root: "train" with step_num and _r.
  void step(int64_t num, double begin_us, double dur_us) {
    host("train", begin_us, dur_us, {{"step_num", num}, {"_r", int64_t(1)}});
  }
  // A launch call on the host and the work it starts on `stream`.
  void launch(const std::string& call, double call_us, double call_dur_us, const std::string& kernel, int64_t stream,
              double begin_us, double dur_us) {
    const uint64_t id = ++correlation_;
    host_.event(main_, call, us_ps(call_us), us_ps(call_dur_us), {{"correlation_id", id}});
    gpu_.event(stream_line(stream), kernel, us_ps(begin_us), us_ps(dur_us), {{"correlation_id", id}});
  }
  void kernel(const std::string& name, int64_t stream, double begin_us, double dur_us, double call_us = -1) {
    launch("cudaLaunchKernel", call_us < 0 ? begin_us - 5 : call_us, 2, name, stream, begin_us, dur_us);
  }

  // Adds this host to `profile` (a profile may hold several, one per rank).
  void add_to(model::Profile* profile, const std::string& host_name) const {
    const std::string bytes = space_.SerializeAsString();
    std::string error;
    if (!model::import_xspace_bytes(bytes.data(), bytes.size(), host_name, profile, &error))
      throw std::runtime_error(error);
  }
  model::Profile profile(const std::string& host_name = "rank0") const {
    model::Profile p;
    add_to(&p, host_name);
    return p;
  }

 private:
  tensorflow::profiler::XLine* stream_line(int64_t stream) {
    auto it = streams_.find(stream);
    if (it != streams_.end()) return it->second;
    return streams_[stream] = gpu_.line(stream, "Stream #" + std::to_string(stream) + "(Compute)", 0);
  }

  tensorflow::profiler::XSpace space_;
  PlaneBuilder host_, gpu_;
  tensorflow::profiler::XLine* main_ = nullptr;
  std::map<int64_t, tensorflow::profiler::XLine*> streams_;
  uint64_t correlation_ = 0;
};

}  // namespace mlprof::testing
