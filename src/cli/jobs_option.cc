// --jobs N of the commands that load profiles: how many hosts of a run are read at once.
#include "cli/commands.h"
#include "model/load_profile.h"

namespace mlprof::cli {

void add_jobs_option(CLI::App* command) {
  command
      ->add_option_function<unsigned>(
          "--jobs", [](const unsigned& jobs) { model::set_default_load_jobs(jobs); },
          "hosts of a run read at once (default: one per processor core)")
      ->check(CLI::Range(1u, 4096u));
}

}  // namespace mlprof::cli
