// One run per job: the processes of one job on one machine (a program and the processes it
// starts, torchrun's workers) write into one run directory, one file each.
//
// The job's leader is the program `mlprof run` starts (which names the run in MLPROF_RUN_NAME
// and the leader in MLPROF_RUN_PID), else the first process of a job to start a session from
// MLPROF_LOGDIR: it chooses the run's name (MLPROF_RUN_NAME when given, else the first free
// second from now) and puts both into its environment. Every process it starts inherits them. A launcher's worker (RANK and
// WORLD_SIZE set) with no run name inherited takes the time its launcher (the parent
// process) started, which all its sibling workers share.
//
// Files: <host>.<rank>.xplane.pb when RANK is set (read when the file is written: a program
// may set it after it started), else <host>.xplane.pb for the leader and <host>.<pid> for
// the others. A member that recorded no event writes no file; the leader writes its empty
// file only when no other process of the job wrote one, so that a run is never missing.
#pragma once

#include <cstdint>
#include <string>

#include "mlprof/mlprof.h"

namespace mlprof::capture {

struct JobRun {
  bool leader = true;  // false: a process the leader started, or a launcher's worker
};

// For a session the environment starts: decides options->run_name (reserving it for the
// leader, see format/run_reservation.h) and exports it to the processes this one starts.
JobRun join_job_run(const std::string& logdir, const std::string& host, ProfilerOptions* options);

// This process's rank in its job and the job's size, from RANK and WORLD_SIZE (read when the
// file is written: a program may set them after it started); -1 where not set.
struct JobRank {
  int64_t rank = -1;
  int64_t world_size = -1;
};
JobRank job_rank();

// The host part of this process's file name in the job's run.
std::string job_file_host(const std::string& host, const JobRun& job);

// Whether a file with no event is left out: a member's always, the leader's when the run
// directory holds another process's file.
bool leave_out_empty_file(const JobRun& job, const std::string& run_dir, const std::string& own_file);

}  // namespace mlprof::capture
