#include "capture/job_run.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "format/logdir.h"
#include "format/run_reservation.h"

namespace mlprof::capture {
namespace {

namespace fs = std::filesystem;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

bool is_number(const std::string& text) {
  return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
}

// When the parent process started, in seconds since the epoch (-1 when /proc cannot say):
// the moment a launcher started its workers' job, the same for all of them.
std::time_t parent_start_time() {
  std::ifstream stat("/proc/" + std::to_string(getppid()) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return -1;
  const size_t name_end = line.rfind(')');  // the command name may hold spaces
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(line.substr(name_end + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)  // field 22: start time, in clock ticks after boot
    if (i == 22) {
      std::ifstream system_stat("/proc/stat");
      for (std::string key; system_stat >> key;)
        if (key == "btime") {
          long long boot = 0;
          system_stat >> boot;
          return std::time_t(boot + std::stoll(field) / sysconf(_SC_CLK_TCK));
        }
    }
  return -1;
}

}  // namespace

JobRun join_job_run(const std::string& logdir, const std::string& host, ProfilerOptions* options) {
  JobRun job;
  const std::string leader_pid = environment("MLPROF_RUN_PID");
  const bool launcher_worker = !environment("RANK").empty() && !environment("WORLD_SIZE").empty();
  if (!leader_pid.empty()) {
    job.leader = leader_pid == std::to_string(getpid());  // the leader after an exec keeps its id
  } else if (launcher_worker) {  // its launcher has no session: its sibling workers are members too
    job.leader = false;
    if (const std::time_t started = parent_start_time(); options->run_name.empty() && started >= 0)
      options->run_name = format::run_name_at(started);
  } else if (options->run_name.empty()) {
    std::string error;  // the session's start says why the logdir cannot be written
    options->run_name = format::reserve_new_run(logdir, host, std::time(nullptr), &error);
  }
  if (leader_pid.empty() && !options->run_name.empty()) {
    setenv("MLPROF_RUN_NAME", options->run_name.c_str(), 1);
    setenv("MLPROF_RUN_PID", std::to_string(getpid()).c_str(), 1);
  }
  return job;
}

JobRank job_rank() {
  JobRank r;
  if (const std::string rank = environment("RANK"); is_number(rank)) r.rank = std::stoll(rank);
  if (const std::string size = environment("WORLD_SIZE"); is_number(size)) r.world_size = std::stoll(size);
  return r;
}

std::string job_file_host(const std::string& host, const JobRun& job) {
  if (const int64_t rank = job_rank().rank; rank >= 0) return host + "." + std::to_string(rank);
  return job.leader ? host : host + "." + std::to_string(getpid());
}

bool leave_out_empty_file(const JobRun& job, const std::string& run_dir, const std::string& own_file) {
  if (!job.leader) return true;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path() != fs::path(own_file) && name.ends_with(".xplane.pb")) return true;
  }
  return false;
}

}  // namespace mlprof::capture
