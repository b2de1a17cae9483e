// Loads what a user points at (a logdir, a run directory or one file) into a Profile, picking
// the run and host and the importer that fits each file. The hosts of a run are read on
// several threads at once, each into a profile of its own, joined in the run's host order.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/load_progress.h"
#include "model/profile.h"

namespace mlprof::model {

struct LoadRequest {
  std::string path;  // logdir, run directory, .xplane.pb or trace .json(.gz)
  std::string run;   // run name; empty: the newest run
  std::string host;  // host name; empty: all hosts of the run
  LoadProgress progress = {};  // optional: told the fraction of bytes read so far
  // Hosts read at once (`--jobs` of the commands); 0: default_load_jobs(). 1 reads them one
  // after another on the caller's thread.
  unsigned jobs = 0;
  // Optional: told, in one line, of files of the run that are not read (format::left_out_note).
  std::function<void(const std::string&)> note = {};
};

struct LoadError {
  std::string path;     // the file or directory at fault
  std::string problem;  // one line, without the path
};

// Returns false when the run cannot be read whole. A host whose file cannot be read is left
// out and the others are read: `error` names the first such file (and how many more there
// were), and `profile` holds the hosts that could be read.
bool load_profile(const LoadRequest& request, Profile* profile, LoadError* error);

// What a load keeps of a file instead of its events, for tools that read per-host summaries
// (analysis/host_summary.h): made on the thread that read the file, from a profile holding the
// file's hosts alone, which is then dropped, so that a run of many hosts never holds them all.
struct PartSummary {
  virtual ~PartSummary() = default;
};
struct SummaryRequest {
  // On the reading thread, with the number of files in the run. What it throws leaves the file
  // out, its message the reason.
  std::function<std::unique_ptr<PartSummary>(const Profile& part, size_t files_in_run)> summarize;
  // On the caller's thread, in the run's order; false with a one-line reason leaves the file out.
  std::function<bool(std::unique_ptr<PartSummary> summary, std::string* problem)> take;
};

// load_profile, keeping each file's summary instead of its hosts: `run` gets the run's name.
bool load_summaries(const LoadRequest& request, const SummaryRequest& summaries, std::string* run, LoadError* error);

// How many hosts a load reads at once when the request does not say: the processor cores.
unsigned default_load_jobs();

}  // namespace mlprof::model
