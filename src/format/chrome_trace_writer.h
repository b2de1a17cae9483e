// Chrome's trace-event JSON (chrome://tracing, Perfetto's UI, TensorBoard's old viewer):
// {"traceEvents": [...]} with process/thread name records, one complete ("X") event per
// event, and flow start/finish ("s"/"f") records. Times are microseconds since the origin.
#pragma once

#include <memory>
#include <string>

#include "format/trace_output_file.h"
#include "format/trace_writer.h"

namespace mlprof::format {

class ChromeTraceWriter final : public TraceWriter {
 public:
  // Writes into `out`, which must outlive the writer; finish() closes it.
  explicit ChromeTraceWriter(TraceOutputFile& out);

  void begin_track(const TraceTrack& track) override;
  void event(const TraceEvent& event) override;
  bool finish(std::string* error) override;

 private:
  void begin_record();

  TraceOutputFile& out_;
  std::string record_;  // the record being built, reused
  bool first_record_ = true;
  uint64_t pid_ = 0, tid_ = 0;
  uint64_t last_named_pid_ = UINT64_MAX;
};

}  // namespace mlprof::format
