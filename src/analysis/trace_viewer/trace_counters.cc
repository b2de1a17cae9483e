#include "analysis/trace_viewer/trace_counters.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/gpu_queue_length.h"
#include "analysis/memory_profile.h"

namespace mlprof::analysis {

namespace {

std::string line_name(const model::Profile& p, uint32_t l) {
  const model::Line& line = p.lines[l];
  const model::StringId name = line.display_name != model::kEmptyString ? line.display_name : line.name;
  return std::string(p.strings.view(name));
}

// The queue length analysis over the whole profile (gpu_queue_length.h).
void add_queue_lengths(const model::Profile& p, size_t max_points, std::vector<CounterTrack>& out) {
  for (const HostGpuActivity& host : collect_all_gpu_activity(p).hosts)
    for (StreamQueueLength& q : compute_gpu_queue_length(p, host, max_points))
      if (q.changes > 0) out.push_back({"Queue · " + line_name(p, q.line), p.lines[q.line].plane, "", std::move(q.series)});
}

// The device plane an allocator serves, by the ordinal in its name: TensorFlow's "GPU_4_bfc",
// PyTorch's "cuda:1" (one host only: ordinals repeat across hosts). UINT32_MAX: none.
uint32_t device_plane_of(const model::Profile& p, std::string_view memory_id) {
  if (p.hosts.size() != 1) return UINT32_MAX;
  std::string ordinal;
  for (const std::string_view prefix : {std::string_view("GPU_"), std::string_view("cuda:")}) {
    if (memory_id.substr(0, prefix.size()) != prefix) continue;
    for (size_t i = prefix.size(); i < memory_id.size() && std::isdigit(static_cast<unsigned char>(memory_id[i])); ++i)
      ordinal += memory_id[i];
  }
  if (ordinal.empty()) return UINT32_MAX;
  const std::string suffix = ":" + ordinal;
  for (uint32_t i = 0; i < p.planes.size(); ++i) {
    const std::string_view name = p.strings.view(p.planes[i].name);
    if (p.planes[i].kind == model::PlaneKind::kDevice && name.size() > suffix.size() &&
        name.substr(name.size() - suffix.size()) == suffix)
      return i;
  }
  return UINT32_MAX;
}

void add_memory_in_use(const model::Profile& p, size_t max_points, std::vector<CounterTrack>& out) {
  MemoryProfileOptions options;
  options.max_timeline_points = max_points;
  for (const MemoryIdProfile& m : compute_memory_profile(p, options).memory_ids) {
    CounterTrack t{"Memory in use · " + m.summary.memory_id, device_plane_of(p, m.summary.memory_id), "bytes", {}};
    for (const MemoryTimelinePoint& point : m.timeline) t.points.push_back({point.time_ps, point.stack_bytes + point.heap_bytes});
    if (!t.points.empty()) out.push_back(std::move(t));
  }
}

}  // namespace

std::vector<CounterTrack> trace_counter_tracks(const model::Profile& p, const TraceFlows& flows, size_t max_points) {
  std::vector<CounterTrack> out;
  add_queue_lengths(p, max_points, out);
  add_memory_in_use(p, max_points, out);
  return out;
}

}  // namespace mlprof::analysis
