// Loads what a user points at (a logdir, a run directory or one file) into a Profile, picking
// the run and host and the importer that fits each file.
#pragma once

#include <string>

#include "model/load_progress.h"
#include "model/profile.h"

namespace mlprof::model {

struct LoadRequest {
  std::string path;  // logdir, run directory, .xplane.pb or trace .json(.gz)
  std::string run;   // run name; empty: the newest run
  std::string host;  // host name; empty: all hosts of the run
  LoadProgress progress = {};  // optional: told the fraction of bytes read so far
};

struct LoadError {
  std::string path;     // the file or directory at fault
  std::string problem;  // one line, without the path
};

bool load_profile(const LoadRequest& request, Profile* profile, LoadError* error);

}  // namespace mlprof::model
