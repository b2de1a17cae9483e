#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {
std::string signed_ms(double ms) { return (ms > 0 ? "+" : ms < 0 ? "-" : "") + format_ms(std::abs(ms)); }
// As the compare page says it (change_significance.h): no percentage from an almost-zero
// baseline, a ratio where the percentage would be too large to read.
std::string change_pct_text(const ValueChange& v) {
  const ChangePercent p = change_percent(v.a, v.b);
  if (!p.pct) return "from ~0";
  if (p.ratio) return fmt::format("x{:.3g}", *p.ratio);
  return fmt::format("{:+.1f}%", *p.pct);
}
// Changes too small to matter are marked, so a reader does not chase noise.
std::string change_ms_text(const ValueChange& v) {
  return signed_ms(v.change()) + (v.significance == ChangeSignificance::kNone && v.change() != 0 ? " (noise)" : "");
}
}  // namespace

std::string render_text(const ProfileDiff& d) {
  std::string out = fmt::format("Diff: A = {} ({} steps), B = {} ({} steps)\n\n", d.a_name, d.a_steps, d.b_name, d.b_steps);
  out += "  " + steps_compared_text(d) + "\n";
  const double change = d.step_time_ms.change();
  out += fmt::format("  Average step time {} -> {} ({}, {}): {}.\n", format_ms(d.step_time_ms.a),
                     format_ms(d.step_time_ms.b), signed_ms(change), change_pct_text(d.step_time_ms),
                     !d.comparable()                                             ? "not comparable, see above"
                     : d.step_time_ms.significance == ChangeSignificance::kBetter ? "B is faster"
                     : d.step_time_ms.significance == ChangeSignificance::kWorse  ? "B is slower"
                                                                                  : "B is the same, within noise");
  if (d.a_verdict != d.b_verdict)
    out += fmt::format("  Input-bound: {} -> {}.\n", d.a_verdict, d.b_verdict);

  out += "\nStep-time breakdown (average per compared step)\n";
  TextTable breakdown({"category", "A", "B", "change", "change %"}, {false, true, true, true, true});
  for (size_t c = 0; c < kNumCategories; ++c) {
    const auto& v = d.breakdown_ms[c];
    breakdown.add_row({std::string(kCategoryKeys[c]), format_ms(v.a), format_ms(v.b), change_ms_text(v),
                       v.a != 0 || v.b != 0 ? change_pct_text(v) : ""});
  }
  out += breakdown.render();

  out += "\nOps whose self time per compared step changed most\n";
  if (d.ops.empty()) {
    out += "  none\n";
    return out;
  }
  TextTable ops({"status", "where", "A", "B", "change", "op"}, {false, false, true, true, true, false});
  for (const auto& o : d.ops)
    ops.add_row({o.status, o.on_device ? "device" : "host", format_ms(o.a_ms), format_ms(o.b_ms),
                 signed_ms(o.b_ms - o.a_ms), o.name});
  out += ops.render();
  return out;
}

}  // namespace mlprof::cli
