// Finding profiles on disk: PATH may be a logdir, a run directory, an .xplane.pb or a
// PyTorch trace .json(.gz). Runs live at <logdir>/plugins/profile/<run>/<host>.<ext>.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlprof::format {

enum class ProfileFileKind { kXSpace, kPyTorchJson };

struct HostFile {
  std::string host;  // file name without the extension (TensorBoard's "host")
  std::string path;
  ProfileFileKind kind = ProfileFileKind::kXSpace;
};

struct RunLocation {
  std::string name;  // run directory name, or the file's stem for a single file
  std::string dir;
  std::vector<HostFile> hosts;  // sorted by host
  // Plain *.json(.gz) files beside trace files, taken for configs and not read (scan_run).
  std::vector<std::string> left_out;
  // When the run was captured, in seconds since the epoch: the time its name gives
  // (YYYY_MM_DD_HH_MM_SS, local time, as captures name runs), else when its newest host file
  // was written. Orders runs by time, whatever they are named.
  int64_t time_s = 0;
};

// One line for a run that left files out (empty when it left none): how many, why, and how to
// read one anyway.
std::string left_out_note(const RunLocation& run);

struct ProfileLocation {
  std::vector<RunLocation> runs;  // sorted by name, newest (largest) last
  std::string error;              // one line, without the path; empty when runs were found
};

// Classifies a file by its name: .xplane.pb, .json, .json.gz (else: not a profile).
bool profile_file_kind(const std::string& file_name, ProfileFileKind* kind);

// Resolves PATH into runs and hosts. Fails with a reason when PATH does not exist or holds
// no profile (saying where it looked).
ProfileLocation find_profiles(const std::string& path);

// Picks one run: `run` by name, or when empty the newest by time_s (of runs as new, the last by
// name). Null (and error) when not found.
const RunLocation* select_run(const ProfileLocation& loc, const std::string& run, std::string* error);

}  // namespace mlprof::format
