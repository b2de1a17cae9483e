#include <fmt/format.h>

#include "cli/report_text.h"

namespace mlprof::cli {
namespace {

void append_times(std::string& out, std::string_view title, const std::vector<analysis::PathTime>& times) {
  if (times.empty()) return;
  out += fmt::format("\n  {}\n", title);
  for (const analysis::PathTime& t : times) out += fmt::format("    {:>10.3f} ms  {}\n", t.ms, t.name);
}

}  // namespace

// The path's time by kind first (what bounds the step), then what is on it, then the what-ifs.
std::string render_text(const analysis::CriticalPath& c, std::string_view no_data) {
  using analysis::kNumPathKinds;
  using analysis::kPathKindKeys;
  if (c.steps.empty()) return fmt::format("Critical path\n\n  {}\n", no_data);
  std::string out = fmt::format("Critical path ({} steps): {:.3f} ms a step measured, {:.3f} ms on the path\n",
                                c.steps.size(), c.step_ms, c.path_ms);
  out += fmt::format("  Bound by {}\n\n  Time on the path by kind (ms a step):\n",
                     analysis::path_kind_key(c.largest_kind()));
  for (size_t k = 0; k < kNumPathKinds; ++k)
    if (c.kind_ms[k] > 0)
      out += fmt::format("    {:<18} {:>10.3f}  {:>5.1f}%\n", kPathKindKeys[k], c.kind_ms[k],
                         c.path_ms > 0 ? 100 * c.kind_ms[k] / c.path_ms : 0.0);
  append_times(out, "Ops on the path (ms a step):", c.top_ops);
  append_times(out, "Kernels on the path (ms a step):", c.top_kernels);
  if (!c.what_if.empty()) {
    out += "\n  What if (the step's predicted time):\n";
    for (const analysis::WhatIfPrediction& w : c.what_if)
      out += fmt::format("    {:<40} x{:<4g} {:>10.3f} ms\n", w.target, w.scale, w.step_ms);
  }
  if (!c.prediction_note.empty()) out += fmt::format("\n  Note: {}.\n", c.prediction_note);
  for (const std::string& w : c.warnings) out += fmt::format("  Warning: {}.\n", w);
  return out;
}

}  // namespace mlprof::cli
