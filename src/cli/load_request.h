// How the commands that read profiles ask for a load: the path, run and host the user named,
// --jobs, a progress bar, and a note on stderr for files of the run left out.
#pragma once

#include <string>

#include "cli/commands.h"
#include "model/load_profile.h"

namespace mlprof::cli {

class ProgressBar;

// Adds --jobs N (hosts of a run read at once) to a command that loads profiles; `jobs` stays 0
// (one per processor core) when it is not given.
void add_jobs_option(CLI::App* command, unsigned* jobs);

// The request for `path`: `bar` (may be null) shows the bytes read; what the run leaves out
// is printed as a note (print_note).
model::LoadRequest load_request(const std::string& path, const std::string& run, const std::string& host,
                                unsigned jobs, ProgressBar* bar = nullptr);

}  // namespace mlprof::cli
