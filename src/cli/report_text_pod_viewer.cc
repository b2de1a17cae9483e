#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {
constexpr std::array<const char*, kNumCategories> kCategoryLabels = {
    "input", "output", "compilation", "kernel launch", "host compute", "device-to-device", "collectives",
    "device compute", "other"};
// Steps listed on a terminal; --format json has all of them (and csv, without chips).
constexpr size_t kMaxStepsShown = 20;
}  // namespace

std::string render_text(const PodViewer& pod) {
  std::string out = fmt::format("Pod viewer ({} worker{}{})\n\n", pod.workers.size(), pod.workers.size() == 1 ? "" : "s",
                                pod.chips.chips.empty() ? "" : fmt::format(", {} chips", pod.chips.chips.size()));
  if (pod.slowest_worker >= 0) {
    const PodWorker& w = pod.workers[size_t(pod.slowest_worker)];
    out += fmt::format("  Slowest worker: {}, {} per step on average", w.host, format_ms(w.step_time_ms.avg));
    if (pod.workers.size() > 1) out += fmt::format(" ({} slower than the fastest)", format_pct(pod.slowest_vs_fastest_pct));
    out += fmt::format("; its bottleneck is {} ({} of its step time).\n", kCategoryLabels[size_t(w.bottleneck)],
                       format_pct(w.breakdown_pct[size_t(w.bottleneck)]));
    // Ranks that meet in collectives finish their steps together: the one the others wait for
    // is the latest to arrive, which step times cannot show.
    if (pod.stragglers.straggler >= 0 && pod.stragglers.matched_calls > 0)
      out += wrap_text("Straggler: " + straggler_sentence(pod.stragglers), text_width(), "  ", "  ") + "\n";
  } else {
    out += pod.whole_profile ? "  No step markers: mark each training step to compare workers (the overview says how, in the\n"
                               "  program's framework).\n"
                             : "  No worker has steps in this capture.\n";
  }

  out += "\nWorkers (average per step)\n";
  std::vector<std::string> header = {"worker", "steps", "step time", "bottleneck"};
  std::vector<bool> numeric = {false, true, true, false};
  // A TPU's host launches XLA programs, not kernels.
  const bool tpu = pod.chips.on_tpu();
  for (size_t c = 0; c < kNumCategories; ++c)
    header.push_back(tpu && c == size_t(Category::kKernelLaunch) ? "program launch" : kCategoryLabels[c]),
        numeric.push_back(true);
  TextTable workers(header, numeric);
  for (size_t i = 0; i < pod.workers.size(); ++i) {
    const PodWorker& w = pod.workers[i];
    const bool has_steps = !w.steps.empty();
    std::vector<std::string> row = {
        w.host + (int(i) == pod.slowest_worker && pod.workers.size() > 1 ? " (slowest)" : ""),
        std::to_string(w.steps.size()), has_steps ? format_ms(w.step_time_ms.avg) : "-",
        has_steps ? fmt::format("{} {}", kCategoryLabels[size_t(w.bottleneck)], format_pct(w.breakdown_pct[size_t(w.bottleneck)]))
                  : "-"};
    for (double v : w.breakdown_ms) row.push_back(has_steps ? format_ms(v) : "-");
    workers.add_row(row);
  }
  out += workers.render();

  if (!pod.steps.empty()) {
    out += "\nSteps (step time per worker)\n";
    std::vector<std::string> step_header = {"step", "slowest"};
    std::vector<bool> step_numeric = {true, false};
    for (const auto& w : pod.workers) step_header.push_back(w.host), step_numeric.push_back(true);
    TextTable steps(step_header, step_numeric, 30);
    const size_t shown = std::min(pod.steps.size(), kMaxStepsShown);
    for (size_t i = 0; i < shown; ++i) {
      const PodStep& step = pod.steps[i];
      std::vector<std::string> row(pod.workers.size() + 2, "-");
      row[0] = std::to_string(step.step_num);
      row[1] = pod.workers[step.slowest_worker].host;
      for (const auto& share : step.shares)
        row[share.worker + 2] = format_ms(double(pod.workers[share.worker].steps[share.step].total_ps) / 1e9);
      steps.add_row(row);
    }
    out += steps.render();
    // A profile with chips has a row per chip in its CSV, not a row per step.
    if (shown < pod.steps.size())
      out += fmt::format("  ... {} more (see --format {})\n", pod.steps.size() - shown,
                         pod.chips.chips.empty() ? "json or csv" : "json");
  }
  if (!pod.stragglers.steps.empty()) out += "\n" + render_text(pod.stragglers);
  out += render_text(pod.chips, !pod.whole_profile);
  return out;
}

}  // namespace mlprof::cli
