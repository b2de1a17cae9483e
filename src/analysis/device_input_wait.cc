#include "analysis/device_input_wait.h"

#include <algorithm>

#include "analysis/event_kinds.h"

namespace mlprof::analysis {
namespace {

uint64_t launch_key(uint32_t host, uint64_t correlation_id) { return uint64_t(host) << 48 ^ correlation_id; }

}  // namespace

DeviceInputWait::DeviceInputWait(const model::Profile& p, const StepGrouping& g) {
  // The steps' input copies, with the correlation ids of the calls that issued them.
  std::unordered_map<uint64_t, int64_t> issued;  // launch key -> earliest host call start
  std::vector<std::pair<uint32_t, uint64_t>> copy_keys;
  const std::vector<MemcpyKind> kind_of_name = memcpy_kinds_by_name(p);
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    if (!g.device_work_line[l]) continue;
    const model::Line& line = p.lines[l];
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const int32_t group = g.group_of[e];
      if (group == kNoGroup || kind_of_name[p.events.name[e]] != MemcpyKind::kHostToDevice) continue;
      uint64_t key = UINT64_MAX;
      if (auto c = p.stat(e, model::kCorrelationId)) {
        key = launch_key(p.planes[line.plane].host, c->as_uint());
        issued.emplace(key, INT64_MAX);
      }
      copy_keys.push_back({uint32_t(group), key});
      copies_[uint32_t(group)].push_back({line.plane, p.start_ps(e), INT64_MIN});
      busy_.try_emplace(line.plane);
    }
  }
  if (copies_.empty()) return;

  // All the work of the devices that received input: when each was busy.
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    auto busy = busy_.find(p.lines[l].plane);
    if (!g.device_work_line[l] || busy == busy_.end()) continue;
    const model::Line& line = p.lines[l];
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      busy->second.push_back({p.start_ps(e), p.end_ps(e)});
  }
  for (auto& [plane, intervals] : busy_) intervals = merged(std::move(intervals));

  // When the host issued each copy: the host calls with its correlation id.
  if (!issued.empty()) {
    for (const model::Line& line : p.lines) {
      const model::Plane& plane = p.planes[line.plane];
      if (plane.kind != model::PlaneKind::kHostThreads) continue;
      for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        if (p.events.first_stat[e] == p.events.first_stat[e + 1]) continue;
        auto c = p.stat(e, model::kCorrelationId);
        if (!c) continue;
        auto it = issued.find(launch_key(plane.host, c->as_uint()));
        if (it != issued.end()) it->second = std::min(it->second, p.start_ps(e));
      }
    }
  }
  std::unordered_map<uint32_t, size_t> next;  // per group, the copy to fill in
  for (const auto& [group, key] : copy_keys) {
    InputCopy& copy = copies_[group][next[group]++];
    if (key != UINT64_MAX && issued[key] != INT64_MAX) copy.issued_ps = issued[key];
  }
}

void DeviceInputWait::add_waits(uint32_t group, int64_t begin, int64_t end, std::vector<TimeInterval>* out) const {
  auto copies = copies_.find(group);
  if (copies == copies_.end()) return;
  for (const InputCopy& copy : copies->second) {
    const std::vector<TimeInterval>& busy = busy_.at(copy.plane);
    // The merged run of work that the copy starts; the device was idle before it only if
    // the copy is that run's first work.
    auto run = std::upper_bound(busy.begin(), busy.end(), copy.start_ps,
                                [](int64_t t, const TimeInterval& i) { return t < i.first; });
    if (run == busy.begin() || std::prev(run)->first != copy.start_ps) continue;
    const int64_t idle_since = std::prev(run) == busy.begin() ? INT64_MIN : std::prev(run, 2)->second;
    const int64_t wait_begin = std::max(idle_since, begin);
    const int64_t wait_end = std::min(copy.start_ps, end);
    // Issued by then: the copy waited on something other than the host.
    if (copy.issued_ps != INT64_MIN && copy.issued_ps <= wait_begin) continue;
    if (wait_begin < wait_end) out->push_back({wait_begin, wait_end});
  }
}

}  // namespace mlprof::analysis
