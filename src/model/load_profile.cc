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
#include "model/pytorch/importer.h"
#include "model/xspace/importer.h"

namespace mlprof::model {
namespace {

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

// `line_jobs`: threads decoding the lines of a large XSpace file at once. `alone`: no other file
// is read meanwhile, so a PyTorch trace is parsed ahead on threads of its own; beside others it
// is read on its thread alone, with one batch's buffers (the others keep the cores busy).
bool import_host(const format::HostFile& host, Profile* profile, std::string* problem, const LoadProgress& progress,
                 unsigned line_jobs, bool alone) {
  constexpr uint64_t kLinesAtOnceFrom = uint64_t(4) << 20;  // bytes: below, threads cost more than they gain
  if (file_size(host.path) < kLinesAtOnceFrom) line_jobs = 1;
  try {
    switch (host.kind) {
      case format::ProfileFileKind::kPyTorchJson:
        return import_pytorch_trace_file(host.path, host.host, profile, problem, progress, alone);
      case format::ProfileFileKind::kXSpace:
        return import_xspace_file(host.path, host.host, profile, problem, progress, line_jobs);
    }
    *problem = "a file of a kind no importer reads";
    return false;
  } catch (const std::bad_alloc&) {
    *problem = "out of memory while reading it";
    return false;
  }
}

struct Failure {
  const format::HostFile* file;
  std::string problem;
};

// Where the hosts of a load go: into one profile, or each file into a summary of its own.
struct Destination {
  Profile* profile = nullptr;               // the full load
  const SummaryRequest* summaries = nullptr;  // else
  size_t files = 0;                           // in the run
};

// A file read apart: its hosts, or (summaries) what is kept of them; neither when it failed.
struct Part {
  std::unique_ptr<Profile> profile;
  std::unique_ptr<PartSummary> summary;
  std::string problem;
};

// Reads one file into a part (on any thread): nothing it throws leaves it.
Part read_part(const format::HostFile& file, const Destination& to, const LoadProgress& progress,
               unsigned line_jobs, bool alone) {
  Part part;
  try {
    part.profile = std::make_unique<Profile>();
    if (!import_host(file, part.profile.get(), &part.problem, progress, line_jobs, alone)) {
      part.profile.reset();
      return part;
    }
    if (to.summaries) {
      part.summary = to.summaries->summarize(*part.profile, to.files);
      part.profile.reset();
    }
  } catch (const std::bad_alloc&) {
    part = {};
    part.problem = "out of memory while reading it";
  } catch (const std::exception& e) {
    part = {};
    part.problem = e.what();
  }
  return part;
}

// Joins a part in the run's order; false when it cannot be.
bool take_part(Part& part, const Destination& to) {
  bool ok = false;
  if (part.summary) ok = to.summaries->take(std::move(part.summary), &part.problem);
  else if (part.profile) ok = append_profile(std::move(*part.profile), to.profile, &part.problem);
  part.profile.reset();
  return ok;
}

// One host after another: into the profile itself (a large XSpace file's lines on
// `line_jobs`), or each into a summary.
void load_in_turn(const std::vector<const format::HostFile*>& files, unsigned line_jobs, const LoadProgress& progress,
                  const Destination& to, std::vector<Failure>* failures) {
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
    if (to.summaries) {
      Part part = read_part(*file, to, file_progress, line_jobs, true);
      if (!take_part(part, to)) failures->push_back({file, part.problem});
    } else {
      std::string problem;
      if (!import_host(*file, to.profile, &problem, file_progress, line_jobs, true))
        failures->push_back({file, problem});
    }
    done_bytes += file_bytes;
    if (progress && total_bytes > 0) progress(double(done_bytes) / double(total_bytes));
  }
}

// Hosts on `jobs` threads, each into a part of its own, taken in the run's order as they come
// (so at most a few are held apart at any time).
void load_at_once(const std::vector<const format::HostFile*>& files, unsigned jobs, const LoadProgress& progress,
                  const Destination& to, std::vector<Failure>* failures) {
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
      [&](size_t i) { return read_part(*files[i], to, [&, i](double f) { fractions[i] = f; }, 1, false); },
      [&](size_t i, Part& part) {
        if (!take_part(part, to)) failures->push_back({files[i], part.problem});
        taken_bytes += bytes[i];
        taking = i + 1;
        return true;
      },
      report);
  if (progress && total_bytes > 0) progress(1.0);
}

// The files of the request's run and host, or false with the error.
bool select_files(const LoadRequest& request, format::ProfileLocation* where, const format::RunLocation** run,
                  std::vector<const format::HostFile*>* files, LoadError* error) {
  *where = format::find_profiles(request.path);
  if (!where->error.empty()) {
    *error = {request.path, where->error};
    return false;
  }
  std::string problem;
  *run = format::select_run(*where, request.run, &problem);
  if (*run == nullptr) {
    *error = {request.path, problem};
    return false;
  }
  if (const std::string note = format::left_out_note(**run); !note.empty() && request.note) request.note(note);
  for (const format::HostFile& host : (*run)->hosts)
    if (request.host.empty() || host.host == request.host) files->push_back(&host);
  if (files->empty()) {
    std::string hosts;
    for (const auto& h : (*run)->hosts) hosts += (hosts.empty() ? "" : ", ") + h.host;
    *error = {(*run)->dir, "no host \"" + request.host + "\" in run " + (*run)->name + " (hosts: " + hosts + ")"};
    return false;
  }
  return true;
}

bool load_files(const LoadRequest& request, const std::vector<const format::HostFile*>& files, const Destination& to,
                LoadError* error) {
  const unsigned wanted = request.jobs > 0 ? request.jobs : default_load_jobs();
  const unsigned jobs = unsigned(std::min<size_t>(wanted, files.size()));
  std::vector<Failure> failures;
  if (jobs <= 1) {
    load_in_turn(files, files.size() == 1 ? wanted : 1, request.progress, to, &failures);
  } else {
    load_at_once(files, jobs, request.progress, to, &failures);
  }
  if (failures.empty()) return true;
  *error = {failures.front().file->path, failures.front().problem};
  if (failures.size() > 1)
    error->problem += " (and " + std::to_string(failures.size() - 1) + " more of the run's " +
                      std::to_string(files.size()) + " hosts could not be read)";
  return false;
}

}  // namespace

unsigned default_load_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

bool load_profile(const LoadRequest& request, Profile* profile, LoadError* error) {
  format::ProfileLocation where;
  const format::RunLocation* run = nullptr;
  std::vector<const format::HostFile*> files;
  if (!select_files(request, &where, &run, &files, error)) return false;
  profile->run = run->name;
  return load_files(request, files, {profile, nullptr}, error);
}

bool load_summaries(const LoadRequest& request, const SummaryRequest& summaries, std::string* run_name,
                    LoadError* error) {
  format::ProfileLocation where;
  const format::RunLocation* run = nullptr;
  std::vector<const format::HostFile*> files;
  if (!select_files(request, &where, &run, &files, error)) return false;
  *run_name = run->name;
  return load_files(request, files, {nullptr, &summaries, files.size()}, error);
}

}  // namespace mlprof::model
