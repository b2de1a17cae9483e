#include "format/profile_paths.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <vector>

namespace mlprof::format {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string host_of(const std::string& file_name) {
  for (const char* ext : {".xplane.pb", ".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz",
                          ".trace.json", ".json.gz", ".json"}) {
    if (ends_with(file_name, ext)) return file_name.substr(0, file_name.size() - std::string(ext).size());
  }
  return file_name;
}

bool is_trace_json(const std::string& file_name) {
  return ends_with(file_name, ".trace.json") || ends_with(file_name, ".trace.json.gz");
}

// Collects the profile files directly inside `dir` into a run. A folder holds other JSON too
// (configs, metrics), so a plain *.json(.gz) counts as a host only when the folder has neither
// an .xplane.pb nor a *.trace.json(.gz); and a host with both an .xplane.pb and a trace JSON
// (older TensorFlow wrote both) is read from the .xplane.pb alone.
RunLocation scan_run(const fs::path& dir) {
  RunLocation run;
  run.name = dir.filename().string();
  run.dir = dir.string();
  std::vector<HostFile> xspace, trace_json, plain_json;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    ProfileFileKind kind;
    if (!profile_file_kind(name, &kind)) continue;
    HostFile file{host_of(name), entry.path().string(), kind};
    if (kind == ProfileFileKind::kXSpace) xspace.push_back(std::move(file));
    else if (is_trace_json(name)) trace_json.push_back(std::move(file));
    else plain_json.push_back(std::move(file));
  }
  run.hosts = std::move(xspace);
  for (auto& file : trace_json) {
    const bool has_xspace = std::any_of(run.hosts.begin(), run.hosts.end(), [&](const HostFile& h) {
      return h.kind == ProfileFileKind::kXSpace && h.host == file.host;
    });
    if (!has_xspace) run.hosts.push_back(std::move(file));
  }
  if (run.hosts.empty()) {
    run.hosts = std::move(plain_json);
  } else {
    for (const HostFile& file : plain_json) run.left_out.push_back(file.path);
    std::sort(run.left_out.begin(), run.left_out.end());
  }
  std::sort(run.hosts.begin(), run.hosts.end(),
            [](const HostFile& a, const HostFile& b) { return a.host < b.host; });
  return run;
}

// The time a run name YYYY_MM_DD_HH_MM_SS stands for (local time), or -1.
int64_t time_in_run_name(const std::string& name) {
  std::tm t{};
  int consumed = 0;
  if (name.size() != 19 ||
      std::sscanf(name.c_str(), "%4d_%2d_%2d_%2d_%2d_%2d%n", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min,
                  &t.tm_sec, &consumed) != 6 ||
      consumed != 19)
    return -1;
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  t.tm_isdst = -1;
  const std::time_t time = std::mktime(&t);
  return time == std::time_t(-1) ? -1 : int64_t(time);
}

int64_t seconds_of(fs::file_time_type time) {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::file_clock::to_sys(time).time_since_epoch())
      .count();
}

int64_t run_time(const RunLocation& run) {
  if (const int64_t named = time_in_run_name(run.name); named >= 0) return named;
  int64_t newest = -1;
  std::error_code ec;
  for (const HostFile& host : run.hosts)
    if (const auto written = fs::last_write_time(host.path, ec); !ec) newest = std::max(newest, seconds_of(written));
  if (newest < 0)
    if (const auto written = fs::last_write_time(run.dir, ec); !ec) newest = seconds_of(written);
  return std::max<int64_t>(newest, 0);
}

}  // namespace

std::string left_out_note(const RunLocation& run) {
  if (run.left_out.empty()) return "";
  const size_t n = run.left_out.size();
  return run.dir + ": " + std::to_string(n) + " other .json(.gz) file" + (n == 1 ? " was" : "s were") +
         " left out (beside *.trace.json and .xplane.pb files, other JSON is taken for configs); name a file to "
         "read it, e.g. " + run.left_out.front();
}

bool profile_file_kind(const std::string& file_name, ProfileFileKind* kind) {
  if (ends_with(file_name, ".xplane.pb")) {
    *kind = ProfileFileKind::kXSpace;
    return true;
  }
  if (ends_with(file_name, ".json") || ends_with(file_name, ".json.gz")) {
    *kind = ProfileFileKind::kPyTorchJson;
    return true;
  }
  return false;
}

ProfileLocation find_profiles(const std::string& path) {
  ProfileLocation loc;
  std::error_code ec;
  const fs::path p(path);
  const auto status = fs::status(p, ec);
  if (ec || !fs::exists(status)) {
    loc.error = "no such file or directory";
    return loc;
  }
  if (fs::is_regular_file(status)) {
    RunLocation run;
    run.name = host_of(p.filename().string());
    run.dir = p.parent_path().string();
    ProfileFileKind kind = ProfileFileKind::kXSpace;
    if (!profile_file_kind(p.filename().string(), &kind)) {
      // Unknown extension: let the reader decide (it gives the precise error).
      kind = ProfileFileKind::kXSpace;
    }
    run.hosts.push_back({run.name, p.string(), kind});
    loc.runs.push_back(std::move(run));
    return loc;
  }
  if (!fs::is_directory(status)) {
    loc.error = "not a regular file or directory";
    return loc;
  }
  // A logdir (has plugins/profile/), a plugins/profile folder, or a run directory.
  fs::path runs_root;
  if (fs::is_directory(p / "plugins" / "profile", ec)) runs_root = p / "plugins" / "profile";
  else if (p.filename() == "profile" && p.parent_path().filename() == "plugins") runs_root = p;

  if (!runs_root.empty()) {
    for (const auto& entry : fs::directory_iterator(runs_root, ec)) {
      if (!entry.is_directory(ec)) continue;
      RunLocation run = scan_run(entry.path());
      run.time_s = run_time(run);
      if (!run.hosts.empty()) loc.runs.push_back(std::move(run));
    }
    std::sort(loc.runs.begin(), loc.runs.end(),
              [](const RunLocation& a, const RunLocation& b) { return a.name < b.name; });
    if (loc.runs.empty())
      loc.error = "no profile found (looked for <run>/<host>.xplane.pb or *.json(.gz) under " +
                  runs_root.string() + ")";
    return loc;
  }
  RunLocation run = scan_run(p);
  if (!run.hosts.empty()) {
    loc.runs.push_back(std::move(run));
    return loc;
  }
  loc.error = "no profile found (looked for plugins/profile/<run>/<host>.xplane.pb, and for "
              "*.xplane.pb or *.json(.gz) files directly in the folder)";
  return loc;
}

const RunLocation* select_run(const ProfileLocation& loc, const std::string& run, std::string* error) {
  if (loc.runs.empty()) {
    *error = loc.error.empty() ? "no profile found" : loc.error;
    return nullptr;
  }
  if (run.empty()) {
    const RunLocation* newest = &loc.runs.front();
    for (const RunLocation& r : loc.runs)  // in name order: of runs as new, the last by name
      if (r.time_s >= newest->time_s) newest = &r;
    return newest;
  }
  for (const auto& r : loc.runs)
    if (r.name == run) return &r;
  std::string names;
  for (const auto& r : loc.runs) names += (names.empty() ? "" : ", ") + r.name;
  *error = "no run named '" + run + "' (runs: " + names + ")";
  return nullptr;
}

}  // namespace mlprof::format
