#include "model/xspace/export.h"

#include <deque>
#include <unordered_map>
#include <vector>

#include "format/xspace_encoder.h"

namespace mlprof::model {
namespace {

using format::WireEvent;
using format::WirePlane;
using format::WireStat;

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Builds the wire description of one host. The events of each line live in `events_`, which
// the WireLines point into, so this object must outlive the write.
class HostExport {
 public:
  HostExport(const Profile& p, uint32_t host) : p_(p), host_(host) {}

  const format::WireSpace& build();

 private:
  void add_plane(uint32_t plane_index);
  void add_line(WirePlane& plane, const Line& line);
  int64_t stat_id(WirePlane& plane, StringId key);
  int64_t event_metadata_id(WirePlane& plane, NameIndex name);
  WireStat wire_stat(WirePlane& plane, StringId key, const StatValue& value);
  uint32_t stats_of(WirePlane& plane, EventIndex e);

  const Profile& p_;
  uint32_t host_;
  format::WireSpace space_;
  std::deque<std::vector<WireEvent>> events_;
  // Per plane: our ids for its stat names and event names, and the stat list of each event
  // name whose events carry no stats of their own.
  std::unordered_map<StringId, int64_t> stat_ids_;
  std::unordered_map<StringId, int64_t> event_metadata_ids_;
  std::unordered_map<NameIndex, uint32_t> name_only_stats_;
};

const format::WireSpace& HostExport::build() {
  const Host& host = p_.hosts[host_];
  const std::string_view host_name = p_.strings.view(host.name);
  space_.hostnames.emplace_back(p_.strings.view(host.hostname != kEmptyString ? host.hostname : host.name));
  // Warnings and errors are kept prefixed with their host's name.
  const std::string prefix = std::string(host_name) + ": ";
  for (const auto& w : p_.warnings)
    if (w.starts_with(prefix)) space_.warnings.push_back(w.substr(prefix.size()));
  for (const auto& e : p_.errors)
    if (e.starts_with(prefix)) space_.errors.push_back(e.substr(prefix.size()));
  for (uint32_t plane = host.first_plane; plane < host.first_plane + host.num_planes; ++plane) add_plane(plane);
  return space_;
}

void HostExport::add_plane(uint32_t plane_index) {
  const Plane& plane = p_.planes[plane_index];
  stat_ids_.clear();
  event_metadata_ids_.clear();
  name_only_stats_.clear();
  WirePlane& wire = space_.planes.emplace_back();
  wire.id = plane.id;
  wire.name = p_.strings.view(plane.name);
  for (uint32_t s = plane.stats.first; s < plane.stats.first + plane.stats.count; ++s)
    wire.stats.push_back(wire_stat(wire, p_.metadata_stats.key(s), p_.metadata_stats.value(s)));
  for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) add_line(wire, p_.lines[l]);
}

void HostExport::add_line(WirePlane& plane, const Line& line) {
  format::WireLine& wire = plane.lines.emplace_back();
  wire.id = line.id;
  wire.display_id = line.id;
  wire.name = p_.strings.view(line.name);
  wire.display_name = p_.strings.view(line.display_name);
  wire.timestamp_ns = p_.origin_ns;
  if (line.num_events == 0) return;
  // The line starts at its first event (lines are sorted), on a whole nanosecond.
  const EventIndex first = line.first_event, end = first + line.num_events;
  const int64_t base_ns = floor_div(p_.start_ps(first), 1000);
  const int64_t base_ps = base_ns * 1000;
  wire.timestamp_ns = p_.origin_ns + base_ns;
  std::vector<WireEvent>& events = events_.emplace_back();
  events.reserve(line.num_events);
  int64_t line_end = base_ps;
  for (EventIndex e = first; e < end; ++e) {
    WireEvent w;
    w.offset_ps = p_.start_ps(e) - base_ps;
    w.duration_ps = p_.duration_ps(e);
    w.metadata_id = uint32_t(event_metadata_id(plane, p_.events.name[e]));
    w.stats = stats_of(plane, e);
    events.push_back(w);
    line_end = std::max(line_end, p_.end_ps(e));
  }
  wire.duration_ps = line_end - base_ps;
  wire.events = events;
}

int64_t HostExport::stat_id(WirePlane& plane, StringId key) {
  auto [it, added] = stat_ids_.try_emplace(key, int64_t(plane.stat_metadata.size()) + 1);
  if (added) plane.stat_metadata.push_back({it->second, std::string(p_.strings.view(key)), {}});
  return it->second;
}

int64_t HostExport::event_metadata_id(WirePlane& plane, NameIndex name) {
  const EventName& n = p_.names[name];
  auto [it, added] = event_metadata_ids_.try_emplace(n.name, int64_t(plane.event_metadata.size()) + 1);
  if (added)
    plane.event_metadata.push_back(
        {it->second, std::string(p_.strings.view(n.name)), std::string(p_.strings.view(n.display_name))});
  return it->second;
}

WireStat HostExport::wire_stat(WirePlane& plane, StringId key, const StatValue& value) {
  const int64_t id = stat_id(plane, key);
  switch (value.type) {
    case StatType::kInt64: return WireStat::of_int64(id, value.i64);
    case StatType::kUint64: return WireStat::of_uint64(id, value.u64);
    case StatType::kDouble: return WireStat::of_double(id, value.f64);
    case StatType::kString: return WireStat::of_string(id, p_.strings.view(value.str));
  }
  return WireStat::of_int64(id, 0);
}

// The event's stats: its name's, then its own. Events of a name with no stats of their own
// share one list.
uint32_t HostExport::stats_of(WirePlane& plane, EventIndex e) {
  const NameIndex name = p_.events.name[e];
  const StatRange named = p_.names[name].stats;
  const StatRange own = p_.event_stat_range(e);
  if (named.count + own.count == 0) return 0;
  if (own.count == 0) {
    auto it = name_only_stats_.find(name);
    if (it != name_only_stats_.end()) return it->second;
  }
  format::WireStatList list;
  list.first = uint32_t(plane.stat_pool.size());
  for (uint32_t s = named.first; s < named.first + named.count; ++s)
    plane.stat_pool.push_back(wire_stat(plane, p_.metadata_stats.key(s), p_.metadata_stats.value(s)));
  for (uint32_t s = own.first; s < own.first + own.count; ++s)
    plane.stat_pool.push_back(wire_stat(plane, p_.event_stats.key(s), p_.event_stats.value(s)));
  list.count = uint32_t(plane.stat_pool.size()) - list.first;
  plane.stat_lists.push_back(list);
  const uint32_t index = uint32_t(plane.stat_lists.size());
  if (own.count == 0) name_only_stats_[name] = index;
  return index;
}

}  // namespace

std::string encode_host_xspace(const Profile& profile, uint32_t host) {
  HostExport e(profile, host);
  return format::encode_xspace(e.build());
}

bool write_host_xspace(const Profile& profile, uint32_t host, const std::string& path, std::string* error) {
  HostExport e(profile, host);
  return format::write_xspace_file(e.build(), path, error);
}

}  // namespace mlprof::model
