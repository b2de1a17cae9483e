#include "cli/load_request.h"

#include "cli/progress_bar.h"

namespace mlprof::cli {

void add_jobs_option(CLI::App* command, unsigned* jobs) {
  command->add_option("--jobs", *jobs, "hosts of a run read at once (default: one per processor core)")
      ->check(CLI::Range(1u, 4096u));
}

model::LoadRequest load_request(const std::string& path, const std::string& run, const std::string& host,
                                unsigned jobs, ProgressBar* bar) {
  model::LoadProgress progress;
  if (bar) progress = [bar](double fraction) { bar->update(fraction); };
  return {path, run, host, std::move(progress), jobs, print_note};
}

}  // namespace mlprof::cli
