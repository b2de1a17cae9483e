#include "analysis/launch_join.h"

#include <algorithm>
#include <tuple>

#include "analysis/sort_runs.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::PlaneKind;
using model::Profile;

// Per name: whether its stats hold a correlation id (hardly any: ids are the events' own).
std::vector<uint8_t> names_with_correlation(const Profile& p) {
  std::vector<uint8_t> has(p.names.size(), 0);
  for (size_t n = 0; n < p.names.size(); ++n) {
    const model::StatRange r = p.names[n].stats;
    for (uint32_t i = r.first; i < r.first + r.count && !has[n]; ++i) has[n] = p.metadata_stats.key(i) == model::kCorrelationId;
  }
  return has;
}

// An event's correlation id, as Profile::stat reads it (the event's own stats, then its
// name's), its name's read only when they hold one: an op's name can carry many stats.
bool correlation_of(const Profile& p, const std::vector<uint8_t>& name_has_id, EventIndex e, uint64_t* id) {
  for (uint32_t i = p.events.first_stat[e], end = p.events.first_stat[e + 1]; i < end; ++i)
    if (p.event_stats.key(i) == model::kCorrelationId) {
      *id = p.event_stats.value(i).as_uint();
      return true;
    }
  const model::NameIndex n = p.events.name[e];
  if (n >= name_has_id.size() || !name_has_id[n]) return false;
  const auto c = p.stat(e, model::kCorrelationId);
  if (!c) return false;
  *id = c->as_uint();
  return true;
}

// Marks the start of each ascending stretch of `v` from `begin` on as a run of its own where
// they are few (a thread's ids ascend but for a few calls out of order): merging them then
// costs less than sorting the whole run.
template <typename T, typename Less>
void add_stretches(const std::vector<T>& v, size_t begin, Less less, std::vector<size_t>* runs) {
  const size_t n = v.size() - begin, few = std::max<size_t>(n / 16, 1), first = runs->size();
  runs->push_back(begin);
  for (size_t i = begin + 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    if (runs->size() - first == few) {  // many: sort_runs sorts it whole
      runs->resize(first + 1);
      return;
    }
    runs->push_back(i);
  }
}

}  // namespace

LaunchJoin::LaunchJoin(const Profile& p) {
  auto key_less = [](const Call& a, const Call& b) {
    return std::tie(a.host, a.correlation, a.event) < std::tie(b.host, b.correlation, b.event);
  };
  const std::vector<uint8_t> name_has_id = names_with_correlation(p);
  // The calls, one run a thread (a thread's ids mostly ascend: merged, not sorted).
  std::vector<size_t> runs;
  calls_of_host_.assign(p.hosts.size(), 0);
  for (const model::Line& line : p.lines) {
    const model::Plane& plane = p.planes[line.plane];
    if (plane.kind != PlaneKind::kHostThreads) continue;
    const size_t begin = calls_.size();
    uint64_t id;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (correlation_of(p, name_has_id, e, &id)) calls_.push_back({id, plane.host, e});
    calls_of_host_[plane.host] += calls_.size() - begin;
    if (calls_.size() > begin) add_stretches(calls_, begin, key_less, &runs);
  }
  if (calls_.empty()) return;
  sort_runs(calls_, std::move(runs), key_less);

  // The devices' work with ids (`event` holding its entry in first_call_), by key, one run a
  // line; then both walked in key order.
  std::vector<Call> work;
  std::vector<size_t> work_runs;
  line_offset_.assign(p.lines.size(), kNotDevice);
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    const model::Plane& plane = p.planes[line.plane];
    if (plane.kind != PlaneKind::kDevice || line.num_events == 0) continue;
    line_offset_[l] = int64_t(first_call_.size()) - int64_t(line.first_event);
    first_call_.resize(first_call_.size() + line.num_events, kNoCall);
    const size_t begin = work.size();
    uint64_t id;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (correlation_of(p, name_has_id, e, &id)) work.push_back({id, plane.host, uint32_t(line_offset_[l] + int64_t(e))});
    if (work.size() > begin) add_stretches(work, begin, key_less, &work_runs);
  }
  if (work.empty()) return;
  sort_runs(work, std::move(work_runs), key_less);
  auto call = calls_.begin();
  for (const Call& w : work) {
    while (call != calls_.end() && std::tie(call->host, call->correlation) < std::tie(w.host, w.correlation)) ++call;
    if (call == calls_.end()) break;
    if (call->host != w.host || call->correlation != w.correlation) continue;
    first_call_[w.event] = uint32_t(call - calls_.begin());
  }
}

}  // namespace mlprof::analysis
