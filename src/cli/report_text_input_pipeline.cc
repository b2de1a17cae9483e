#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_ranks.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

std::string render_text(const InputPipelineAnalysis& a) {
  std::string out = "Input pipeline analysis\n\n  " + a.summary.explanation + "\n";
  if (!a.recommendations.empty()) {
    out += "\nRecommendations\n";
    for (const auto& r : a.recommendations) out += "  - " + r + "\n";
  }
  out += fmt::format("\nDevice side: step time over {} steps{}\n", a.steps.size(),
                     a.whole_profile ? " (no step markers: the whole profile)" : "");
  out += fmt::format("  step time      average {}  stddev {}  range [{}, {}]\n", format_ms(a.step_time_ms.avg),
                     format_ms(a.step_time_ms.stddev), format_ms(a.step_time_ms.min), format_ms(a.step_time_ms.max));
  out += fmt::format("  input waiting  average {}  stddev {}  range [{}, {}]\n", format_ms(a.input_ms.avg),
                     format_ms(a.input_ms.stddev), format_ms(a.input_ms.min), format_ms(a.input_ms.max));
  out += render_rank_steps(a.ranks, true);

  if (!a.no_input_ops.empty()) {
    out += "\nHost side: " + a.no_input_ops + "\n";
    return out;
  }
  out += fmt::format("\nHost side: input processing time {}\n", format_ms(double(a.input_self_ps) / 1e9));
  TextTable categories({"category", "time", "share"}, {false, true, true});
  for (size_t c = 0; c < kNumInputOpCategories; ++c) {
    const double pct = a.input_self_ps > 0 ? 100.0 * double(a.category_self_ps[c]) / double(a.input_self_ps) : 0;
    categories.add_row({std::string(kInputOpCategoryLabels[c]), format_ms(double(a.category_self_ps[c]) / 1e9),
                        format_pct(pct)});
  }
  out += categories.render();

  out += "\nInput ops\n";
  TextTable ops({"count", "total", "total %", "self", "self %", "category", "op"},
                {true, true, true, true, true, false, false});
  const size_t shown = std::min<size_t>(a.ops.size(), 25);
  for (size_t i = 0; i < shown; ++i) {
    const auto& r = a.ops[i];
    ops.add_row({std::to_string(r.count), format_ms(double(r.total_ps) / 1e9), format_pct(r.total_pct),
                 format_ms(double(r.self_ps) / 1e9), format_pct(r.self_pct),
                 std::string(kInputOpCategoryKeys[size_t(r.category)]), r.name});
  }
  out += ops.render();
  if (shown < a.ops.size()) out += fmt::format("  ... {} more (see --format csv)\n", a.ops.size() - shown);
  return out;
}

}  // namespace mlprof::cli
