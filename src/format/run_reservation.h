// A run name reserved for one host's file before the file exists, so that two captures that
// name the same run at once cannot both write it: the first takes it, the second is refused.
//
// The reservation is a small file beside the runs, <logdir>/plugins/profile/.<run>.<host>.lock,
// made with O_EXCL and holding the process id of its owner. It is let go when the run is
// written (or given up); one whose process is gone (killed) is taken over by the next capture.
// The id survives exec(), so `mlprof run` reserves the name in the child it starts, and the
// session the program's libmlprof starts finds the reservation its own.
#pragma once

#include <unistd.h>

#include <ctime>
#include <string>

namespace mlprof::format {

// The reservation file of `host` in run `run_name` of `logdir`.
std::string run_reservation_path(const std::string& logdir, const std::string& run_name, const std::string& host);

// Reserves `run_name` for `host`'s profile in `logdir` for this process (making
// <logdir>/plugins/profile if needed). kTaken, with the reason in `error` ("FILE already holds
// this host's profile", "process N is capturing ..."), when that run already holds the host's
// profile or another live process has reserved it; kFailed with a one-line reason when the
// reservation cannot be made. A reservation this process holds already is kReserved.
enum class Reservation { kReserved, kTaken, kFailed };
Reservation reserve_run(const std::string& logdir, const std::string& run_name, const std::string& host,
                        std::string* error);

// Reserves a new run for `host`: the first second from `now` (named as run_name_at) whose run
// directory does not exist yet, so that a job's run never mixes with another's. "" with the
// reason in `error` when no reservation can be made.
std::string reserve_new_run(const std::string& logdir, const std::string& host, std::time_t now, std::string* error);

// Lets go of the reservation `owner` holds (by default this process), nothing when it is not
// owner's.
void release_run(const std::string& logdir, const std::string& run_name, const std::string& host,
                 pid_t owner = getpid());

}  // namespace mlprof::format
