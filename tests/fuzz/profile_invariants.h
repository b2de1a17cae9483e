// What every tool assumes of a Profile (model/profile.h), checked on whatever an importer
// made of fuzzed bytes: ranges inside their arrays, events of a line contiguous and sorted,
// parents earlier on the same line, every id a valid index.
#pragma once

#include <string>

#include "fuzz/fuzz_check.h"
#include "model/profile.h"

namespace mlprof::fuzz {

inline void check_stat_range(const model::Profile& p, const model::StatTable& table, model::StatRange r) {
  check(size_t(r.first) + r.count <= table.size(), "a stat range lies inside its table");
  for (size_t i = r.first; i < size_t(r.first) + r.count; ++i) {
    check(table.key(i) < p.strings.size(), "a stat key is an interned string");
    const model::StatValue v = table.value(i);
    if (v.type == model::StatType::kString) check(v.str < p.strings.size(), "a string stat is an interned string");
  }
}

inline void check_profile(const model::Profile& p) {
  const size_t n = p.num_events();
  check(p.events.duration_ps.size() == n && p.events.name.size() == n && p.events.parent.size() == n,
        "the event columns have one length");
  check(p.events.first_stat.size() == n + 1, "first_stat has one entry per event and one past the end");
  for (const auto& h : p.hosts) {
    check(h.name < p.strings.size() && h.hostname < p.strings.size(), "host names are interned strings");
    check(size_t(h.first_plane) + h.num_planes <= p.planes.size(), "a host's planes exist");
  }
  for (size_t i = 0; i < p.planes.size(); ++i) {
    const model::Plane& plane = p.planes[i];
    check(plane.name < p.strings.size() && plane.device_type < p.strings.size(), "plane names are interned strings");
    check(plane.host < p.hosts.size(), "a plane's host exists");
    check(size_t(plane.first_line) + plane.num_lines <= p.lines.size(), "a plane's lines exist");
    check_stat_range(p, p.metadata_stats, plane.stats);
  }
  for (const auto& name : p.names) {
    check(name.name < p.strings.size() && name.display_name < p.strings.size(), "event names are interned strings");
    check_stat_range(p, p.metadata_stats, name.stats);
  }
  // The lines' event ranges tile the events in line order (Profile::line_index relies on it).
  uint64_t next_event = 0;
  for (const model::Line& line : p.lines) {
    check(line.first_event == next_event, "each line's events follow the previous line's");
    next_event = uint64_t(line.first_event) + line.num_events;
  }
  check(next_event == n, "the lines' events are all the events");
  for (size_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    check(line.name < p.strings.size() && line.display_name < p.strings.size(), "line names are interned strings");
    check(line.plane < p.planes.size(), "a line's plane exists");
    check(size_t(line.first_event) + line.num_events <= n, "a line's events exist");
    for (size_t e = line.first_event; e < size_t(line.first_event) + line.num_events; ++e) {
      check(p.line_index(model::EventIndex(e)) == l, "an event's line is the one whose range holds it");
      if (e > line.first_event) check(p.events.start_ps[e - 1] <= p.events.start_ps[e], "a line's events are sorted by start");
      const model::EventIndex parent = p.events.parent[e];
      check(parent == model::kNone || (parent < e && parent >= line.first_event), "a parent is an earlier event of the same line");
    }
  }
  for (size_t e = 0; e < n; ++e) {
    check(p.events.name[e] < p.names.size(), "an event's name exists");
    check(p.events.first_stat[e] <= p.events.first_stat[e + 1], "event stat ranges do not run backwards");
  }
  if (n > 0) check(p.events.first_stat[n] <= p.event_stats.size(), "event stats lie inside their table");
  for (size_t i = 0; i < p.event_stats.size(); ++i) {
    check(p.event_stats.key(i) < p.strings.size(), "an event stat key is an interned string");
    const model::StatValue v = p.event_stats.value(i);
    if (v.type == model::StatType::kString) check(v.str < p.strings.size(), "a string stat is an interned string");
  }
}

}  // namespace mlprof::fuzz
