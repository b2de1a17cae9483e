#include <fmt/format.h>

#include "analysis/category_labels.h"
#include "analysis/critical_path/bottleneck.h"
#include "cli/name_shortening.h"
#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {
namespace {

// Long names (C++ kernels) in a table's width, shortened together so that they still differ.
constexpr size_t kNameWidth = 80, kTargetWidth = 40;

void append_times(std::string& out, const std::string& title, const std::vector<analysis::PathTime>& times) {
  if (times.empty()) return;
  out += fmt::format("\n  {}\n", title);
  std::vector<std::string> names;
  for (const analysis::PathTime& t : times) names.push_back(t.name);
  names = shorten_names(names, kNameWidth);
  for (size_t i = 0; i < times.size(); ++i) out += fmt::format("    {:>10.3f} ms  {}\n", times[i].ms, names[i]);
}

}  // namespace

// The path's time by kind first (what bounds the step), then what is on it, then the what-ifs.
std::string render_text(const analysis::CriticalPath& c, std::string_view no_data) {
  using analysis::kNumPathKinds;
  using analysis::PathKind;
  if (c.steps.empty()) return fmt::format("Critical path\n\n  {}\n", no_data);
  // The kinds and lists in the device's words (the overview's: "Program launch" on a TPU).
  const nlohmann::json labels = analysis::path_labels_json(c.on_tpu);
  std::string out = fmt::format("Critical path ({} steps): {:.3f} ms a step measured, {:.3f} ms on the path\n",
                                c.steps.size(), c.step_ms, c.path_ms);
  // What bounds the step as the overview says it (the kind whose change saves most, not the
  // largest: untraced gaps are often the largest).
  if (const auto b = analysis::bottleneck_of(c)) out += wrap_text(b->sentence(), text_width(), "  ", "  ");
  out += "\n  Time on the path by kind (ms a step):\n";
  for (size_t k = 0; k < kNumPathKinds; ++k)
    if (c.kind_ms[k] > 0)
      out += fmt::format("    {:<24} {:>10.3f}  {:>5.1f}%\n", analysis::path_kind_label(PathKind(k), c.on_tpu),
                         c.kind_ms[k], c.path_ms > 0 ? 100 * c.kind_ms[k] / c.path_ms : 0.0);
  append_times(out, fmt::format("{} on the path (ms a step):", labels["top_ops"].get<std::string>()), c.top_ops);
  append_times(out, fmt::format("{} on the path (ms a step):", labels["top_kernels"].get<std::string>()),
               c.top_kernels);
  if (!c.what_if.empty()) {
    out += "\n  What if (the step's predicted time):\n";
    // A kind by its words, an op or kernel by its name.
    std::vector<std::string> targets;
    for (const analysis::WhatIfPrediction& w : c.what_if) {
      const auto kind = analysis::path_kind_of_target(w.target);
      targets.push_back(kind ? std::string(analysis::path_kind_label(*kind, c.on_tpu))
                             : analysis::what_if_target_name(w.target));
    }
    targets = shorten_names(targets, kTargetWidth);
    bool unlinked = false;
    for (size_t i = 0; i < c.what_if.size(); ++i) {
      out += fmt::format("    {:<40} x{:<4g} {:>10.3f} ms{}\n", targets[i], c.what_if[i].scale, c.what_if[i].step_ms,
                         c.what_if[i].reaches_steps ? "" : "  *");
      unlinked |= !c.what_if[i].reaches_steps;
    }
    if (unlinked)
      out += "  * nothing the trace shows links this work to the steps (a loader thread not marked with _p/_c, an\n"
             "    untraced thread): the replay cannot tell what changing it would do.\n";
  }
  if (!c.prediction_note.empty()) out += fmt::format("\n  Note: {}.\n", c.prediction_note);
  for (const std::string& w : c.warnings) out += fmt::format("  Warning: {}.\n", w);
  return out;
}

}  // namespace mlprof::cli
