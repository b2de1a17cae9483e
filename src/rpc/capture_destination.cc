#include "rpc/capture_destination.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace mlprof::rpc {
namespace fs = std::filesystem;

namespace {

bool is_plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

}  // namespace

bool plan_destination(const std::string& repository_root, const std::string& session_id,
                      CaptureDestination* destination, std::string* error) {
  if (repository_root.empty()) {
    *error = "the request has no repository_root (where to write the profile)";
    return false;
  }
  if (!is_plain_name(session_id)) {
    *error = "session_id \"" + session_id + "\" is not a plain directory name";
    return false;
  }
  const fs::path root = fs::path(repository_root).lexically_normal();
  // "a/plugins/profile/" normalises to "a/plugins/profile/" with an empty last part.
  const fs::path trimmed = root.filename().empty() ? root.parent_path() : root;
  destination->run_name = session_id;
  destination->final_dir = (trimmed / session_id).string();
  if (trimmed.filename() == "profile" && trimmed.parent_path().filename() == "plugins") {
    const fs::path logdir = trimmed.parent_path().parent_path();
    destination->logdir = logdir.empty() ? "." : logdir.string();
    destination->staging.clear();
    return true;
  }
  destination->staging = destination->final_dir + "/.mlprof-staging-" + std::to_string(getpid());
  destination->logdir = destination->staging;
  return true;
}

bool complete_destination(const CaptureDestination& destination, const std::string& written_path,
                          std::string* final_path, std::string* error) {
  if (destination.staging.empty()) {
    *final_path = written_path;
    return true;
  }
  std::error_code ec;
  const fs::path target = fs::path(destination.final_dir) / fs::path(written_path).filename();
  fs::rename(written_path, target, ec);
  abandon_destination(destination);
  if (ec) {
    *error = "cannot move the profile to " + target.string() + ": " + ec.message();
    return false;
  }
  *final_path = target.string();
  return true;
}

void abandon_destination(const CaptureDestination& destination) {
  if (destination.staging.empty()) return;
  std::error_code ec;
  fs::remove_all(destination.staging, ec);
}

}  // namespace mlprof::rpc
