#include "model/load_profile.h"

#include <sys/stat.h>

#include <atomic>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "format/profile_paths.h"
#include "model/ordered_parallel.h"
#include "model/profile_merge.h"
#include "model/pytorch_importer.h"
#include "model/xspace_importer.h"

namespace mlprof::model {
namespace {

std::atomic<unsigned> g_default_jobs{0};

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

// `line_jobs`: threads decoding the lines of a large XSpace file at once.
bool import_host(const format::HostFile& host, Profile* profile, std::string* problem, const LoadProgress& progress,
                 unsigned line_jobs = 1) {
  constexpr uint64_t kLinesAtOnceFrom = uint64_t(4) << 20;  // bytes: below, threads cost more than they gain
  if (file_size(host.path) < kLinesAtOnceFrom) line_jobs = 1;
  try {
    return host.kind == format::ProfileFileKind::kPyTorchJson
               ? import_pytorch_trace_file(host.path, host.host, profile, problem, progress)
               : import_xspace_file(host.path, host.host, profile, problem, progress, line_jobs);
  } catch (const std::bad_alloc&) {
    *problem = "out of memory while reading it";
    return false;
  }
}

struct Failure {
  const format::HostFile* file;
  std::string problem;
};

// One host after another, into the profile itself (a large XSpace file's lines on `line_jobs`).
void load_in_turn(const std::vector<const format::HostFile*>& files, unsigned line_jobs, const LoadProgress& progress,
                  Profile* profile, std::vector<Failure>* failures) {
  uint64_t total_bytes = 0, done_bytes = 0;
  for (const format::HostFile* file : files) total_bytes += file_size(file->path);
  for (const format::HostFile* file : files) {
    const uint64_t file_bytes = file_size(file->path);
    LoadProgress file_progress;
    if (progress && total_bytes > 0) {
      file_progress = [&, file_bytes](double f) {
        progress((double(done_bytes) + f * double(file_bytes)) / double(total_bytes));
      };
    }
    std::string problem;
    if (!import_host(*file, profile, &problem, file_progress, line_jobs)) failures->push_back({file, problem});
    done_bytes += file_bytes;
    if (progress && total_bytes > 0) progress(double(done_bytes) / double(total_bytes));
  }
}

// Hosts on `jobs` threads, each into a profile of its own, appended to the profile in the
// run's order as they come (so at most a few are held apart from it at any time).
void load_at_once(const std::vector<const format::HostFile*>& files, unsigned jobs, const LoadProgress& progress,
                  Profile* profile, std::vector<Failure>* failures) {
  struct Part {
    std::unique_ptr<Profile> profile;  // null when the host could not be read
    std::string problem;
  };
  std::vector<uint64_t> bytes;
  uint64_t total_bytes = 0, taken_bytes = 0;
  for (const format::HostFile* file : files) total_bytes += bytes.emplace_back(file_size(file->path));
  std::vector<std::atomic<double>> fractions(files.size());  // of each host read so far
  size_t taking = 0;
  auto report = [&] {
    if (!progress || total_bytes == 0) return;
    double done = double(taken_bytes);
    for (size_t k = taking; k < files.size(); ++k) done += fractions[k].load() * double(bytes[k]);
    progress(done / double(total_bytes));
  };
  run_ordered<Part>(
      files.size(), jobs,
      [&](size_t i) {
        Part part;
        try {
          part.profile = std::make_unique<Profile>();
        } catch (const std::bad_alloc&) {
          part.problem = "out of memory while reading it";
          return part;
        }
        if (!import_host(*files[i], part.profile.get(), &part.problem, [&, i](double f) { fractions[i] = f; }))
          part.profile.reset();
        return part;
      },
      [&](size_t i, Part& part) {
        if (part.profile && !append_profile(std::move(*part.profile), profile, &part.problem)) part.profile.reset();
        if (!part.profile) failures->push_back({files[i], part.problem});
        part.profile.reset();
        taken_bytes += bytes[i];
        taking = i + 1;
        return true;
      },
      report);
  if (progress && total_bytes > 0) progress(1.0);
}

}  // namespace

unsigned default_load_jobs() {
  const unsigned set = g_default_jobs.load();
  return set > 0 ? set : std::max(1u, std::thread::hardware_concurrency());
}

void set_default_load_jobs(unsigned jobs) { g_default_jobs = jobs; }

bool load_profile(const LoadRequest& request, Profile* profile, LoadError* error) {
  const format::ProfileLocation where = format::find_profiles(request.path);
  if (!where.error.empty()) {
    *error = {request.path, where.error};
    return false;
  }
  std::string problem;
  const format::RunLocation* run = format::select_run(where, request.run, &problem);
  if (run == nullptr) {
    *error = {request.path, problem};
    return false;
  }
  profile->run = run->name;
  std::vector<const format::HostFile*> files;
  for (const format::HostFile& host : run->hosts)
    if (request.host.empty() || host.host == request.host) files.push_back(&host);
  if (files.empty()) {
    std::string hosts;
    for (const auto& h : run->hosts) hosts += (hosts.empty() ? "" : ", ") + h.host;
    *error = {run->dir, "no host \"" + request.host + "\" in run " + run->name + " (hosts: " + hosts + ")"};
    return false;
  }
  const unsigned wanted = request.jobs > 0 ? request.jobs : default_load_jobs();
  const unsigned jobs = unsigned(std::min<size_t>(wanted, files.size()));
  std::vector<Failure> failures;
  if (jobs <= 1) {
    load_in_turn(files, files.size() == 1 ? wanted : 1, request.progress, profile, &failures);
  } else {
    load_at_once(files, jobs, request.progress, profile, &failures);
  }
  if (failures.empty()) return true;
  *error = {failures.front().file->path, failures.front().problem};
  if (failures.size() > 1)
    error->problem += " (and " + std::to_string(failures.size() - 1) + " more of the run's " +
                      std::to_string(files.size()) + " hosts could not be read)";
  return false;
}

}  // namespace mlprof::model
