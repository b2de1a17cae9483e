// Reads a capture back for the torch tests: the host plane's events with their stats as
// text (ref values resolved), and the .xplane.pb a logdir holds.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "format/xspace_reader.h"

namespace mlprof::testing {

struct HostEvent {
  std::string name;
  std::string thread;  // the line's name
  int64_t line_id = 0;
  int64_t begin_ps = 0, end_ps = 0;
  std::map<std::string, std::string> stats;

  bool has(const std::string& key) const { return stats.count(key) != 0; }
  int64_t number(const std::string& key) const { return has(key) ? std::stoll(stats.at(key)) : -1; }
};

inline std::vector<HostEvent> read_host_events(const std::string& xspace_path) {
  tensorflow::profiler::XSpace space;
  std::string error;
  EXPECT_TRUE(format::read_xspace(xspace_path, &space, &error)) << xspace_path << ": " << error;
  std::vector<HostEvent> out;
  for (const auto& plane : space.planes()) {
    if (plane.name() != "/host:CPU") continue;
    auto stat_text = [&](const tensorflow::profiler::XStat& s) -> std::string {
      using S = tensorflow::profiler::XStat;
      switch (s.value_case()) {
        case S::kInt64Value: return std::to_string(s.int64_value());
        case S::kUint64Value: return std::to_string(s.uint64_value());
        case S::kDoubleValue: return std::to_string(s.double_value());
        case S::kStrValue: return s.str_value();
        case S::kRefValue: return plane.stat_metadata().at(int64_t(s.ref_value())).name();
        default: return "";
      }
    };
    for (const auto& line : plane.lines()) {
      for (const auto& e : line.events()) {
        HostEvent h;
        const auto& metadata = plane.event_metadata().at(e.metadata_id());
        h.name = metadata.name();
        h.thread = line.name();
        h.line_id = line.id();
        h.begin_ps = e.offset_ps();
        h.end_ps = e.offset_ps() + e.duration_ps();
        for (const auto& s : metadata.stats()) h.stats[plane.stat_metadata().at(s.metadata_id()).name()] = stat_text(s);
        for (const auto& s : e.stats()) h.stats[plane.stat_metadata().at(s.metadata_id()).name()] = stat_text(s);
        out.push_back(std::move(h));
      }
    }
  }
  return out;
}

// The single .xplane.pb under `logdir` (empty if none or several).
inline std::string find_xspace(const std::string& logdir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(logdir, ec))
    if (entry.path().string().ends_with(".xplane.pb")) found.push_back(entry.path().string());
  return found.size() == 1 ? found.front() : "";
}

}  // namespace mlprof::testing
