// Where a remote capture's file goes: <repository_root>/<session_id>/<host>.xplane.pb
// (docs/ARCHITECTURE.md §3.5). TensorFlow's client and ours send repository_root = <logdir>/plugins/profile,
// so the session is an ordinary one over <logdir> with run_name = session_id. Any other root
// is written through a staging logdir inside the target directory, then moved into place.
#pragma once

#include <string>

namespace mlprof::rpc {

struct CaptureDestination {
  std::string logdir;     // what the session is started with
  std::string run_name;   // the session id
  std::string final_dir;  // <repository_root>/<session_id>
  std::string staging;    // set: a logdir to move the file out of and remove afterwards
};

// False, with a one-line reason, for an empty root or a session id that is not a plain
// directory name (a client must not make the server write outside repository_root).
bool plan_destination(const std::string& repository_root, const std::string& session_id,
                      CaptureDestination* destination, std::string* error);

// After the session wrote `written_path`: moves a staged file into final_dir. Sets the
// file's final path.
bool complete_destination(const CaptureDestination& destination, const std::string& written_path,
                          std::string* final_path, std::string* error);

// Removes what a staged capture left when it failed.
void abandon_destination(const CaptureDestination& destination);

}  // namespace mlprof::rpc
