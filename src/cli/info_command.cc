// mlprof info PATH [--format json]: what a profile holds (hosts, threads and GPU timeline rows
// with event counts, time covered, warnings), read through the same importers as `mlprof
// report`, without analysis. The text speaks the user's words; the JSON the file format's
// (planes, lines, event and stat metadata).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "cli/commands.h"
#include "format/profile_paths.h"
#include "model/pytorch/importer.h"
#include "model/xspace/importer.h"

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

// What a plane is, in the user's words: the host's threads, a GPU, or a section of the file.
struct PlaneWords {
  std::string what;  // "host CPU", "GPU 3", "section"
  const char* rows;  // what its lines are: "threads", "timeline rows"
};

PlaneWords words_for(std::string_view plane) {
  if (plane == "/host:CPU") return {"host CPU", "threads"};
  for (std::string_view device : {"GPU", "TPU"}) {
    const std::string prefix = "/device:" + std::string(device) + ":";
    if (plane.starts_with(prefix)) return {std::string(device) + " " + std::string(plane.substr(prefix.size())), "timeline rows"};
  }
  return {"section", "timeline rows"};
}

// One host's file as the format declares it (the JSON keeps the format's words: planes,
// lines, event and stat metadata), and its times: line timestamp (ns) plus event offset (ps).
nlohmann::json describe_host(const model::Profile& p, const std::string& host_name, bool xspace) {
  nlohmann::json out = {{"planes", nlohmann::json::array()}};
  nlohmann::json hostnames = nlohmann::json::array();
  for (const model::Host& host : p.hosts) {
    if (host.hostname != model::kEmptyString) hostnames.push_back(std::string(p.strings.view(host.hostname)));
    for (model::StringId h : host.more_hostnames) hostnames.push_back(std::string(p.strings.view(h)));
  }
  out["hostnames"] = hostnames;
  Span all;
  for (const model::Host& host : p.hosts) {
    for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
      const model::Plane& plane = p.planes[pl];
      nlohmann::json lines = nlohmann::json::array();
      size_t events = 0;
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
        const model::Line& line = p.lines[l];
        Span span;
        for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e)
          span.add(p.origin_ns, p.start_ps(e), p.duration_ps(e));
        const model::StringId name = line.display_name != model::kEmptyString ? line.display_name : line.name;
        lines.push_back({{"id", line.id}, {"name", std::string(p.strings.view(name))}, {"events", line.num_events},
                         {"span_ns", span.empty() ? 0 : span.length_ns()}});
        events += line.num_events;
        if (!span.empty()) all.add(span);
      }
      nlohmann::json described = {{"id", plane.id}, {"name", std::string(p.strings.view(plane.name))},
                                  {"events", events}, {"lines", lines}};
      if (xspace) {
        described["event_metadata"] = plane.num_event_metadata;
        described["stat_metadata"] = plane.num_stat_metadata;
      }
      out["planes"].push_back(described);
    }
  }
  out["span_ns"] = all.empty() ? 0 : all.length_ns();
  // The model prefixes what the file says with the host's name.
  const std::string prefix = host_name + ": ";
  const auto as_written = [&](const std::string& s) {
    return std::string(std::string_view(s).substr(s.starts_with(prefix) ? prefix.size() : 0));
  };
  out["warnings"] = nlohmann::json::array();
  out["errors"] = nlohmann::json::array();
  for (const auto& w : p.warnings) out["warnings"].push_back(as_written(w));
  for (const auto& e : p.errors) out["errors"].push_back(as_written(e));
  return out;
}

void print_host(const nlohmann::json& host) {
  if (!host["hostnames"].empty()) {
    std::string names;
    for (const auto& h : host["hostnames"]) names += (names.empty() ? "" : ", ") + h.get<std::string>();
    fmt::print("  machine: {}\n", names);
  }
  for (const auto& plane : host["planes"]) {
    const std::string name = plane["name"];
    const PlaneWords words = words_for(name);
    const size_t rows = plane["lines"].size();
    if (rows == 0) {
      fmt::print("  {} \"{}\": no events\n", words.what, name);
      continue;
    }
    fmt::print("  {} \"{}\": {} events on {} {}\n", words.what, name, plane["events"].get<uint64_t>(), rows,
               rows == 1 ? std::string(words.rows).substr(0, std::string(words.rows).size() - 1) : words.rows);
    for (const auto& line : plane["lines"]) {
      const int64_t span = line["span_ns"];
      const uint64_t events = line["events"];
      fmt::print("    \"{}\": {} event{}{}\n", line["name"].get<std::string>(), events, events == 1 ? "" : "s",
                 span > 0 ? " over " + format_duration_ns(span) : "");
    }
  }
  if (const int64_t span = host["span_ns"]; span > 0) fmt::print("  time covered: {}\n", format_duration_ns(span));
  for (const auto& w : host["warnings"]) fmt::print("  warning: {}\n", w.get<std::string>());
  for (const auto& e : host["errors"]) fmt::print("  error: {}\n", e.get<std::string>());
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Show what a profile holds: its runs and hosts, the threads and GPU timeline "
                                         "rows with their event counts, the time covered, and warnings");
  auto path = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  sub->add_option("PATH", *path, std::string(kProfilePathHelp))->required();
  sub->add_option("--format,-f", *format, "text, or json (in the file format's words: planes, lines, metadata)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return {sub, [path, format]() -> int {
            const auto loc = format::find_profiles(*path);
            if (!loc.error.empty()) return bad_input(*path, loc.error);
            const bool json = *format == "json";
            // Every file is read before anything is printed: a corrupt one is refused with nothing
            // on stdout.
            nlohmann::json runs = nlohmann::json::array();
            for (const auto& run : loc.runs) {
              nlohmann::json hosts = nlohmann::json::array();
              for (const auto& host : run.hosts) {
                const bool xspace = host.kind != format::ProfileFileKind::kPyTorchJson;
                model::Profile profile;
                std::string error;
                const bool read = xspace ? model::import_xspace_file(host.path, host.host, &profile, &error)
                                         : model::import_pytorch_trace_file(host.path, host.host, &profile, &error);
                if (!read) return bad_input(host.path, error);
                nlohmann::json described = describe_host(profile, host.host, xspace);
                described["host"] = host.host;
                described["file"] = host.path;
                described["kind"] = xspace ? "xspace" : "pytorch_trace";
                hosts.push_back(std::move(described));
              }
              runs.push_back({{"name", run.name}, {"dir", run.dir}, {"hosts", std::move(hosts)}});
            }
            for (size_t i = 0; i < loc.runs.size(); ++i) {
              if (!json) fmt::print("run {} ({})\n", loc.runs[i].name, loc.runs[i].dir);
              if (const std::string note = format::left_out_note(loc.runs[i]); !note.empty()) print_note(note);
              if (json) continue;
              for (const auto& host : runs[i]["hosts"]) {
                fmt::print(" host {} ({}{})\n", host["host"].get<std::string>(), host["file"].get<std::string>(),
                           host["kind"] == "xspace" ? "" : ", PyTorch trace");
                print_host(host);
              }
            }
            if (json) fmt::print("{}\n", nlohmann::json{{"runs", std::move(runs)}}.dump(2));
            return kOk;
          }};
}

}  // namespace mlprof::cli
