// mlprof info PATH: what a profile holds (hosts, planes, lines with event counts, time span,
// warnings), read through the same importers as `mlprof report`, without analysis.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "cli/commands.h"
#include "format/profile_paths.h"
#include "model/pytorch_importer.h"
#include "model/xspace_importer.h"

namespace mlprof::cli {
namespace {

// Time covered by events, in ns since the epoch (ps since the epoch would overflow int64).
struct Span {
  int64_t begin_ns = INT64_MAX;
  int64_t end_ns = INT64_MIN;
  void add(int64_t base_ns, int64_t offset_ps, int64_t duration_ps) {
    begin_ns = std::min(begin_ns, base_ns + offset_ps / 1000);
    end_ns = std::max(end_ns, base_ns + (offset_ps + duration_ps) / 1000);
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

// An XSpace host as the file declares it: every hostname, and per plane the event and stat
// names it defines. Times are the file's: line timestamp (ns) plus event offset (ps).
void print_xspace(const model::Profile& p, const std::string& host_name) {
  const model::Host& host = p.hosts.front();
  if (host.hostname != model::kEmptyString) {
    std::string hosts(p.strings.view(host.hostname));
    for (model::StringId h : host.more_hostnames) hosts += ", " + std::string(p.strings.view(h));
    fmt::print("  hostnames: {}\n", hosts);
  }
  Span all;
  for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
    const model::Plane& plane = p.planes[pl];
    size_t events = 0;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) events += p.lines[l].num_events;
    fmt::print("  plane {} \"{}\": {} lines, {} events, {} event names, {} stat names\n", plane.id,
               p.strings.view(plane.name), plane.num_lines, events, plane.num_event_metadata,
               plane.num_stat_metadata);
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      Span span;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e)
        span.add(p.origin_ns, p.start_ps(e), p.duration_ps(e));
      const model::StringId name = line.display_name != model::kEmptyString ? line.display_name : line.name;
      fmt::print("    line {} \"{}\": {} events{}\n", line.id, p.strings.view(name), line.num_events,
                 span.empty() ? "" : ", span " + format_duration_ns(span.length_ns()));
      if (!span.empty()) all.add(span);
    }
  }
  if (!all.empty()) fmt::print("  time span: {}\n", format_duration_ns(all.length_ns()));
  // The model prefixes what the file says with the host's name.
  const std::string prefix = host_name + ": ";
  const auto as_written = [&](const std::string& s) {
    return std::string_view(s).substr(s.starts_with(prefix) ? prefix.size() : 0);
  };
  for (const auto& w : p.warnings) fmt::print("  warning: {}\n", as_written(w));
  for (const auto& e : p.errors) fmt::print("  error: {}\n", as_written(e));
}

// A PyTorch trace has no planes of its own: show what the importer made of it.
void print_model(const model::Profile& p) {
  for (const auto& host : p.hosts) {
    if (host.hostname != model::kEmptyString) fmt::print("  hostname: {}\n", p.strings.view(host.hostname));
    int64_t begin_ps = INT64_MAX, end_ps = INT64_MIN;
    for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
      const auto& plane = p.planes[pl];
      size_t events = 0;
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) events += p.lines[l].num_events;
      fmt::print("  plane {} \"{}\": {} lines, {} events\n", plane.id, p.strings.view(plane.name), plane.num_lines, events);
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
        const auto& line = p.lines[l];
        int64_t line_begin = INT64_MAX, line_end = INT64_MIN;
        for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
          line_begin = std::min(line_begin, p.start_ps(e));
          line_end = std::max(line_end, p.end_ps(e));
        }
        fmt::print("    line {} \"{}\": {} events{}\n", line.id, p.strings.view(line.name), line.num_events,
                   line.num_events == 0 ? "" : ", span " + format_duration_ns((line_end - line_begin) / 1000));
        begin_ps = std::min(begin_ps, line_begin);
        end_ps = std::max(end_ps, line_end);
      }
    }
    if (begin_ps <= end_ps) fmt::print("  time span: {}\n", format_duration_ns((end_ps - begin_ps) / 1000));
  }
  for (const auto& w : p.warnings) fmt::print("  warning: {}\n", w);
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Show what a profile holds: hosts, planes, lines, event counts, "
                                         "time span and warnings");
  auto path = std::make_shared<std::string>();
  sub->add_option("PATH", *path, std::string(kProfilePathHelp))->required();
  return {sub, [path]() -> int {
            const auto loc = format::find_profiles(*path);
            if (!loc.error.empty()) return bad_input(*path, loc.error);
            for (const auto& run : loc.runs) {
              fmt::print("run {} ({})\n", run.name, run.dir);
              if (const std::string note = format::left_out_note(run); !note.empty()) print_note(note);
              for (const auto& host : run.hosts) {
                if (host.kind == format::ProfileFileKind::kPyTorchJson) {
                  model::Profile profile;
                  std::string error;
                  if (!model::import_pytorch_trace_file(host.path, host.host, &profile, &error))
                    return bad_input(host.path, error);
                  fmt::print(" host {} ({}, PyTorch trace)\n", host.host, host.path);
                  print_model(profile);
                  continue;
                }
                model::Profile profile;
                std::string error;
                if (!model::import_xspace_file(host.path, host.host, &profile, &error))
                  return bad_input(host.path, error);
                fmt::print(" host {} ({})\n", host.host, host.path);
                print_xspace(profile, host.host);
              }
            }
            return kOk;
          }};
}

}  // namespace mlprof::cli
