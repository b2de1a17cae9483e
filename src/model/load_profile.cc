#include "model/load_profile.h"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "format/profile_paths.h"
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

bool import_host(const format::HostFile& host, Profile* profile, std::string* problem, const LoadProgress& progress) {
  try {
    return host.kind == format::ProfileFileKind::kPyTorchJson
               ? import_pytorch_trace_file(host.path, host.host, profile, problem, progress)
               : import_xspace_file(host.path, host.host, profile, problem, progress);
  } catch (const std::bad_alloc&) {
    *problem = "out of memory while reading it";
    return false;
  }
}

struct Failure {
  const format::HostFile* file;
  std::string problem;
};

// One host after another, into the profile itself.
void load_in_turn(const std::vector<const format::HostFile*>& files, const LoadProgress& progress, Profile* profile,
                  std::vector<Failure>* failures) {
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
    if (!import_host(*file, profile, &problem, file_progress)) failures->push_back({file, problem});
    done_bytes += file_bytes;
    if (progress && total_bytes > 0) progress(double(done_bytes) / double(total_bytes));
  }
}

// Hosts on `jobs` threads, each into a profile of its own; this thread appends them in order
// as they come, so at most a few are held apart from the profile at any time.
class ParallelLoad {
 public:
  ParallelLoad(const std::vector<const format::HostFile*>& files, unsigned jobs)
      : files_(files), slots_(files.size()), window_(size_t(jobs) * 2) {
    for (const format::HostFile* file : files) {
      bytes_.push_back(file_size(file->path));
      total_bytes_ += bytes_.back();
    }
    for (unsigned j = 0; j < jobs; ++j) threads_.emplace_back([this] { work(); });
  }
  // Every thread is joined before the load returns, whatever happened.
  ~ParallelLoad() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void run(const LoadProgress& progress, Profile* profile, std::vector<Failure>* failures) {
    uint64_t merged_bytes = 0;
    for (size_t i = 0; i < files_.size(); ++i) {
      std::unique_ptr<Profile> part;
      std::string problem;
      {
        std::unique_lock lock(mutex_);
        while (!slots_[i].done) {
          if (progress && total_bytes_ > 0) {
            lock.unlock();
            double bytes = double(merged_bytes);
            for (size_t k = i; k < files_.size(); ++k) bytes += slots_[k].fraction.load() * double(bytes_[k]);
            progress(bytes / double(total_bytes_));
            lock.lock();
          }
          changed_.wait_for(lock, std::chrono::milliseconds(100), [&] { return slots_[i].done; });
        }
        part = std::move(slots_[i].part);
        problem = std::move(slots_[i].problem);
      }
      if (part && !append_profile(std::move(*part), profile, &problem)) part.reset();
      if (!part) failures->push_back({files_[i], problem});
      part.reset();
      merged_bytes += bytes_[i];
      {
        std::lock_guard lock(mutex_);
        merged_ = i + 1;
      }
      changed_.notify_all();
    }
    if (progress && total_bytes_ > 0) progress(1.0);
  }

 private:
  struct Slot {
    std::unique_ptr<Profile> part;  // null when the host could not be read
    std::string problem;
    bool done = false;
    std::atomic<double> fraction{0};
  };

  void work() {
    for (;;) {
      size_t i;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || next_ >= files_.size() || next_ < merged_ + window_; });
        if (stop_ || next_ >= files_.size()) return;
        i = next_++;
      }
      Slot& slot = slots_[i];
      std::unique_ptr<Profile> part;
      std::string problem;
      try {
        part = std::make_unique<Profile>();
      } catch (const std::bad_alloc&) {
        problem = "out of memory while reading it";
      }
      if (part && !import_host(*files_[i], part.get(), &problem, [&slot](double f) { slot.fraction = f; })) part.reset();
      std::lock_guard lock(mutex_);
      slot.part = std::move(part);
      slot.problem = std::move(problem);
      slot.done = true;
      changed_.notify_all();
    }
  }

  const std::vector<const format::HostFile*>& files_;
  std::vector<uint64_t> bytes_;
  uint64_t total_bytes_ = 0;
  std::vector<Slot> slots_;
  const size_t window_;  // hosts read ahead of the one being appended, at most
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t next_ = 0;    // the next host to start
  size_t merged_ = 0;  // hosts appended so far
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

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
  const unsigned jobs = unsigned(std::min<size_t>(request.jobs > 0 ? request.jobs : default_load_jobs(), files.size()));
  std::vector<Failure> failures;
  if (jobs <= 1) {
    load_in_turn(files, request.progress, profile, &failures);
  } else {
    ParallelLoad load(files, jobs);
    load.run(request.progress, profile, &failures);
  }
  if (failures.empty()) return true;
  *error = {failures.front().file->path, failures.front().problem};
  if (failures.size() > 1)
    error->problem += " (and " + std::to_string(failures.size() - 1) + " more of the run's " +
                      std::to_string(files.size()) + " hosts could not be read)";
  return false;
}

}  // namespace mlprof::model
