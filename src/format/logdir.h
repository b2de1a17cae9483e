// Where a capture goes (docs/ARCHITECTURE.md §3.4):
//   <logdir>/plugins/profile/<run>/<host>.xplane.pb
// plus, once per logdir, the empty event file TensorBoard needs to list it.
#pragma once

#include <ctime>
#include <string>
#include <string_view>

namespace mlprof::format {

// "YYYY_MM_DD_HH_MM_SS" in local time, TensorFlow's run directory name.
std::string run_name_at(std::time_t unix_seconds);

// The host name as it appears in file names: ':' (host:port) and '/' become '_'.
std::string host_for_file_name(std::string_view host);

// This machine's host name (gethostname), "localhost" when it has none.
std::string local_host_name();

// mkdir -p. Returns false with a one-line reason naming the directory.
bool make_directories(const std::string& path, std::string* error);

// Creates `logdir` if needed and proves it can be written (a file is made there and removed
// again), so that a session can refuse to start rather than lose its run at the end. Returns
// false with the problem (without the path) in `error`.
bool probe_writable_directory(const std::string& logdir, std::string* error);

// Writes `bytes` to `path` through a temporary file and a rename, so a reader never sees
// half a file.
bool write_file_atomically(const std::string& path, std::string_view bytes, std::string* error);

struct RunLocation {
  std::string run_name;     // <run>
  std::string run_dir;      // <logdir>/plugins/profile/<run>
  std::string xspace_path;  // <run_dir>/<host>.xplane.pb
};

// Creates the run directory and the logdir's event file, and reserves the run for `host`
// (format/run_reservation.h; the caller lets go of it with release_run once the file is
// written or given up). With an empty run_name the run is named after `now`; if that run holds
// this host's file or is reserved (two captures in one second) the next free second is used, so
// a capture never overwrites another. A named run that is taken fails.
bool prepare_run(const std::string& logdir, const std::string& run_name, const std::string& host,
                 std::time_t now, RunLocation* location, std::string* error);

// The file `host`'s profile would take in run `run_name` of `logdir` when one is already there,
// else "": a capture asked for a run by name refuses it rather than overwrite it (another
// host's file in the run is a run of several hosts, each writing its own).
std::string taken_run_file(const std::string& logdir, const std::string& run_name, const std::string& host);

}  // namespace mlprof::format
