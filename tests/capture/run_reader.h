// Reads back what a capture session wrote, for assertions.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "format/xspace_reader.h"
#include "mlprof/mlprof.h"

namespace mlprof::testing {

namespace tp = tensorflow::profiler;

inline tp::XSpace read_run(const RunInfo& run) {
  tp::XSpace space;
  std::string error;
  EXPECT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_TRUE(format::read_xspace(run.xspace_path, &space, &error)) << run.xspace_path << ": " << error;
  return space;
}

inline const tp::XPlane* find_plane(const tp::XSpace& space, const std::string& name) {
  for (const auto& plane : space.planes()) {
    if (plane.name() == name) return &plane;
  }
  return nullptr;
}

// One event with its names resolved; stats as text ("7", "0.5", "abc"), keyed by stat name.
struct ReadEvent {
  std::string name;
  int64_t begin_ps = 0;  // from the line's timestamp_ns
  int64_t end_ps = 0;
  std::map<std::string, tp::XStat> stats;
};

inline std::vector<ReadEvent> events_of(const tp::XPlane& plane, const tp::XLine& line) {
  std::vector<ReadEvent> out;
  for (const auto& e : line.events()) {
    ReadEvent r;
    r.name = plane.event_metadata().at(e.metadata_id()).name();
    r.begin_ps = e.offset_ps();
    r.end_ps = e.offset_ps() + e.duration_ps();
    for (const auto& s : e.stats()) r.stats[plane.stat_metadata().at(s.metadata_id()).name()] = s;
    out.push_back(std::move(r));
  }
  return out;
}

// All host events of the run, from every thread, in each line's order.
inline std::vector<ReadEvent> host_events(const tp::XSpace& space) {
  std::vector<ReadEvent> out;
  const tp::XPlane* host = find_plane(space, "/host:CPU");
  if (host == nullptr) return out;
  for (const auto& line : host->lines()) {
    for (ReadEvent& e : events_of(*host, line)) out.push_back(std::move(e));
  }
  return out;
}

inline std::vector<std::string> names_of(const std::vector<ReadEvent>& events) {
  std::vector<std::string> names;
  for (const ReadEvent& e : events) names.push_back(e.name);
  return names;
}

}  // namespace mlprof::testing
