// Steps and grouping (docs/ARCHITECTURE.md §5.1): which events belong to which step. A step starts at a
// root event; its group grows by nesting on one thread, by producer/consumer links (_p/_c)
// across threads, and by correlation ids from a launch on the host to its work on a device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/launch_join.h"
#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr int32_t kNoGroup = -1;

class DeviceWorkNames;  // device_work_names.h

struct Step {
  uint32_t group = 0;                 // the value events of this step carry in group_of
  model::EventIndex root = model::kNone;
  uint32_t host = 0;                  // index into Profile::hosts
  int64_t step_num = 0;               // step_num / iter_num of the root, else its rank
  int64_t host_begin_ps = 0, host_end_ps = 0;      // the root event
  int64_t device_begin_ps = INT64_MAX, device_end_ps = INT64_MIN;  // its group's device work
  int64_t launched_end_ps = INT64_MIN;  // end of the device work launched from inside the host span
  // The step's window (§5.1): from the later of its host start and the previous step's end on
  // its host, to the later of its host end and the end of the device work launched from inside
  // its host span (the device span when none was, but its links reach device work). Windows
  // of one host never overlap.
  int64_t begin_ps = 0, end_ps = 0;
  uint32_t device_kernels = 0;        // device events of the step that compute (not copies)
  // An inferred step's root (a module run, a DataLoader fetch: step_inference.h) is work of the
  // step; a marker's (ProfilerStep#N, _r, FunctionRun) only spans it.
  bool root_is_work = false;

  bool has_device_work() const { return device_begin_ps <= device_end_ps; }
  int64_t duration_ps() const { return end_ps - begin_ps; }
};

// Why steps found are not analysed (§5.1): a step the capture cut (its root began before the
// capture started, or it ran past the capture's stop), or a step that ran no device work on a
// host that has device work (a marker around no work: a small function, another process's
// ProfilerStep#N).
struct StepsLeftOut {
  size_t cut_at_start = 0, cut_at_end = 0, without_device_work = 0;
  size_t total() const { return cut_at_start + cut_at_end + without_device_work; }
  StepsLeftOut& operator+=(const StepsLeftOut& o) {
    cut_at_start += o.cut_at_start, cut_at_end += o.cut_at_end, without_device_work += o.without_device_work;
    return *this;
  }
};

struct StepGrouping {
  std::vector<int32_t> group_of;   // per event: its step's group, or kNoGroup
  std::vector<Step> steps;         // every group, indexed by group id, by host then start
  std::vector<uint32_t> selected;  // the groups that count as steps (those left out: left_out)
  StepsLeftOut left_out;
  // "_r", the name of TensorFlow's/PyTorch's implicit root, or how steps were inferred
  // (step_inference.h: kModuleRunSteps, kDataLoaderFetchSteps)
  std::string root_kind;
  std::vector<uint8_t> device_work_line;  // per line: holds device work (streams, else XLA/TF ops)
  bool has_device_work = false;    // the profile has device work at all
  // The devices' work joined to its launches, for the analyses after the grouping (shared by
  // the grouping's copies); null in a grouping made otherwise.
  std::shared_ptr<const LaunchJoin> launches;
  // What the event names say of their device work, read once a name for every analysis after
  // the grouping (shared by its copies); null in a grouping made otherwise.
  std::shared_ptr<const DeviceWorkNames> device_work_names;
};

// `launches`: the profile's join of launches where one is made already (else it makes one).
StepGrouping group_steps(const model::Profile& profile, std::shared_ptr<const LaunchJoin> launches = nullptr);

}  // namespace mlprof::analysis
