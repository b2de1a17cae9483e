// mlprof info PATH: what a profile holds (hosts, planes, lines with event counts, time span,
// warnings), read straight from the files without analysis.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "cli/commands.h"
#include "format/profile_paths.h"
#include "format/xspace_reader.h"

namespace mlprof::cli {
namespace {

// Time covered by events, in ns since the epoch (ps since the epoch would overflow int64).
struct Span {
  int64_t begin_ns = INT64_MAX;
  int64_t end_ns = INT64_MIN;
  void add(int64_t line_ns, int64_t offset_ps, int64_t duration_ps) {
    begin_ns = std::min(begin_ns, line_ns + offset_ps / 1000);
    end_ns = std::max(end_ns, line_ns + (offset_ps + duration_ps) / 1000);
  }
  void add(const Span& other) {
    begin_ns = std::min(begin_ns, other.begin_ns);
    end_ns = std::max(end_ns, other.end_ns);
  }
  bool empty() const { return begin_ns > end_ns; }
  int64_t length_ns() const { return end_ns - begin_ns; }
};

std::string format_duration_ns(int64_t ns) {
  if (ns >= 1000000000) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1000000) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1000) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{} ns", ns);
}

void print_space(const tensorflow::profiler::XSpace& space) {
  if (space.hostnames_size() > 0) {
    std::string hosts;
    for (const auto& h : space.hostnames()) hosts += (hosts.empty() ? "" : ", ") + h;
    fmt::print("  hostnames: {}\n", hosts);
  }
  Span all;
  for (const auto& plane : space.planes()) {
    size_t events = 0;
    for (const auto& line : plane.lines()) events += size_t(line.events_size());
    fmt::print("  plane {} \"{}\": {} lines, {} events, {} event names, {} stat names\n", plane.id(),
               plane.name(), plane.lines_size(), events, plane.event_metadata_size(),
               plane.stat_metadata_size());
    for (const auto& line : plane.lines()) {
      Span span;
      for (const auto& e : line.events()) span.add(line.timestamp_ns(), e.offset_ps(), e.duration_ps());
      const std::string& name = line.display_name().empty() ? line.name() : line.display_name();
      fmt::print("    line {} \"{}\": {} events{}\n", line.id(), name, line.events_size(),
                 span.empty() ? "" : ", span " + format_duration_ns(span.length_ns()));
      if (!span.empty()) all.add(span);
    }
  }
  if (!all.empty()) fmt::print("  time span: {}\n", format_duration_ns(all.length_ns()));
  for (const auto& w : space.warnings()) fmt::print("  warning: {}\n", w);
  for (const auto& e : space.errors()) fmt::print("  error: {}\n", e);
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Show what a profile holds: hosts, planes, lines, event counts, "
                                         "time span and warnings");
  auto path = std::make_shared<std::string>();
  sub->add_option("PATH", *path, "a logdir, a run directory or an .xplane.pb file")->required();
  return {sub, [path]() -> int {
            const auto loc = format::find_profiles(*path);
            if (!loc.error.empty()) return bad_input(*path, loc.error);
            for (const auto& run : loc.runs) {
              fmt::print("run {} ({})\n", run.name, run.dir);
              for (const auto& host : run.hosts) {
                if (host.kind != format::ProfileFileKind::kXSpace)
                  return bad_input(host.path, "PyTorch trace JSON is not supported by info yet");
                tensorflow::profiler::XSpace space;
                std::string error;
                if (!format::read_xspace(host.path, &space, &error)) return bad_input(host.path, error);
                fmt::print(" host {} ({})\n", host.host, host.path);
                print_space(space);
              }
            }
            return kOk;
          }};
}

}  // namespace mlprof::cli
