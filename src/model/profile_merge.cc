#include "model/profile_merge.h"

#include <algorithm>
#include <vector>

namespace mlprof::model {
namespace {

// The tables are copied field by field below with their string ids and indices moved: a
// field added to one of them must be moved here too (then update its size).
static_assert(sizeof(Host) == 56, "a Host field was added: move its ids in append_profile");
static_assert(sizeof(Plane) == 56, "a Plane field was added: move its ids in append_profile");
static_assert(sizeof(Line) == 32, "a Line field was added: move its ids in append_profile");
static_assert(sizeof(EventName) == 16, "an EventName field was added: move its ids in append_profile");

// Appends stats with their keys and string values in `into`'s ids.
void append_stats(const StatTable& from, const std::vector<StringId>& ids, StatTable* into) {
  into->reserve(into->size() + from.size());
  for (size_t i = 0; i < from.size(); ++i) {
    StatValue v = from.value(i);
    if (v.type == StatType::kString) v.str = ids[v.str];
    into->add(ids[from.key(i)], v);
  }
}

template <typename T>
void append_shifted(const std::vector<T>& from, T shift, std::vector<T>* into) {
  into->reserve(into->size() + from.size());
  for (T v : from) into->push_back(v + shift);
}

}  // namespace

TimeBounds time_bounds(const Profile& p) {
  TimeBounds b;
  const EventColumns& e = p.events;
  if (e.size() == 0) return b;
  // In 64 bits first, without a branch an event; in 128 bits, event by event, only where some
  // end falls outside int64 (never in a real file).
  int64_t min_start = INT64_MAX, max_start = INT64_MIN, min_end = INT64_MAX, max_end = INT64_MIN;
  bool outside = false;
  for (size_t i = 0; i < e.size(); ++i) {
    const int64_t start = e.start_ps[i];
    int64_t end;
    outside |= __builtin_add_overflow(start, e.duration_ps[i], &end);
    min_start = std::min(min_start, start), max_start = std::max(max_start, start);
    min_end = std::min(min_end, end), max_end = std::max(max_end, end);
  }
  if (!outside) return {true, min_start, max_start, min_end, max_end};
  for (size_t i = 0; i < e.size(); ++i) {
    const int64_t start = e.start_ps[i];
    const __int128 end = __int128(start) + e.duration_ps[i];
    if (!b.any) {
      b = {true, start, start, end, end};
      continue;
    }
    b.min_start_ps = std::min(b.min_start_ps, start), b.max_start_ps = std::max(b.max_start_ps, start);
    b.min_end_ps = std::min(b.min_end_ps, end), b.max_end_ps = std::max(b.max_end_ps, end);
  }
  return b;
}

bool is_empty_profile(const Profile& p) {
  return p.hosts.empty() && p.planes.empty() && p.num_events() == 0 && p.names.empty() && p.metadata_stats.size() == 0;
}

bool shift_to_origin(int64_t part_origin_ns, int64_t into_origin_ns, const TimeBounds& b, int64_t* shift_ps,
                     std::string* error) {
  // Every start and end must stay inside int64 once shifted.
  int64_t shift = 0;
  bool fits = !__builtin_sub_overflow(part_origin_ns, into_origin_ns, &shift) &&
              !__builtin_mul_overflow(shift, int64_t(1000), &shift) && shift != INT64_MAX;
  if (fits && b.any) {
    const auto inside = [](__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; };
    fits = inside(__int128(b.min_start_ps) + shift) && inside(__int128(b.max_start_ps) + shift) &&
           inside(b.min_end_ps + shift) && inside(b.max_end_ps + shift);
  }
  if (!fits) {
    *error = "timestamps span more than the model can hold (about 106 days) with the hosts read before it";
    return false;
  }
  *shift_ps = shift;
  return true;
}

bool append_profile(Profile&& part, Profile* into, std::string* error) {
  if (is_empty_profile(*into)) {
    std::string run = std::move(into->run);
    *into = std::move(part);
    into->run = std::move(run);
    part = Profile();
    return true;
  }
  // Times: the part measured them from its own origin.
  int64_t shift_ps = 0;
  if (!shift_to_origin(part.origin_ns, into->origin_ns, time_bounds(part), &shift_ps, error)) return false;
  const EventColumns& pe = part.events;

  std::vector<StringId> ids(part.strings.size());
  for (StringId s = 0; s < ids.size(); ++s) ids[s] = into->strings.intern(part.strings.view(s));

  const uint32_t hosts0 = uint32_t(into->hosts.size()), planes0 = uint32_t(into->planes.size()),
                 lines0 = uint32_t(into->lines.size()), names0 = uint32_t(into->names.size()),
                 events0 = uint32_t(into->num_events()), event_stats0 = uint32_t(into->event_stats.size()),
                 metadata_stats0 = uint32_t(into->metadata_stats.size());
  for (Host h : part.hosts) {
    h.name = ids[h.name];
    h.hostname = ids[h.hostname];
    for (StringId& more : h.more_hostnames) more = ids[more];
    h.first_plane += planes0;
    into->hosts.push_back(h);
  }
  for (Plane p : part.planes) {
    p.name = ids[p.name];
    p.device_type = ids[p.device_type];
    p.host += hosts0;
    p.first_line += lines0;
    p.stats.first += metadata_stats0;
    into->planes.push_back(p);
  }
  for (Line l : part.lines) {
    l.name = ids[l.name];
    l.display_name = ids[l.display_name];
    l.plane += planes0;
    l.first_event += events0;
    into->lines.push_back(l);
  }
  for (EventName n : part.names) {
    n.name = ids[n.name];
    n.display_name = ids[n.display_name];
    n.stats.first += metadata_stats0;
    into->names.push_back(n);
  }

  EventColumns& ie = into->events;
  append_shifted(pe.start_ps, shift_ps, &ie.start_ps);
  ie.duration_ps.insert(ie.duration_ps.end(), pe.duration_ps.begin(), pe.duration_ps.end());
  append_shifted(pe.name, names0, &ie.name);
  ie.parent.reserve(ie.parent.size() + pe.size());
  for (EventIndex p : pe.parent) ie.parent.push_back(p == kNone ? kNone : p + events0);
  ie.first_stat.reserve(ie.first_stat.size() + pe.size());
  for (size_t e = 1; e < pe.first_stat.size(); ++e) ie.first_stat.push_back(pe.first_stat[e] + event_stats0);

  append_stats(part.event_stats, ids, &into->event_stats);
  append_stats(part.metadata_stats, ids, &into->metadata_stats);
  into->warnings.insert(into->warnings.end(), part.warnings.begin(), part.warnings.end());
  into->errors.insert(into->errors.end(), part.errors.begin(), part.errors.end());
  part = Profile();
  return true;
}

}  // namespace mlprof::model
