// What became of each run a process meant to write, for `mlprof run`: it names a file in
// MLPROF_RUN_RECORD and reads it once the program ends, so that it reports the runs this
// program wrote (never an older one in the logdir) and fails when a write failed.
// One line per run, appended with one write() (programs it starts append too):
//   <pid> wrote <run_dir>
//   <pid> failed <one-line reason>
#pragma once

#include <string>

namespace mlprof::capture {

// Appends a line when MLPROF_RUN_RECORD is set; nothing otherwise.
void record_run_written(const std::string& run_dir);
void record_run_failed(const std::string& reason);

}  // namespace mlprof::capture
