#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {
std::string signed_ms(double ms) { return (ms > 0 ? "+" : ms < 0 ? "-" : "") + format_ms(std::abs(ms)); }
std::string signed_pct(double pct) { return fmt::format("{:+.1f}%", pct); }
}  // namespace

std::string render_text(const ProfileDiff& d) {
  std::string out = fmt::format("Diff: A = {} ({} steps), B = {} ({} steps)\n\n", d.a_name, d.a_steps, d.b_name, d.b_steps);
  const double change = d.step_time_ms.change();
  out += fmt::format("  Average step time {} -> {} ({}, {}): B is {}.\n", format_ms(d.step_time_ms.a),
                     format_ms(d.step_time_ms.b), signed_ms(change), signed_pct(d.step_time_ms.change_pct()),
                     change < 0 ? "faster" : change > 0 ? "slower" : "the same");
  if (d.a_verdict != d.b_verdict)
    out += fmt::format("  Input-bound: {} -> {}.\n", d.a_verdict, d.b_verdict);

  out += "\nStep-time breakdown (average per step)\n";
  TextTable breakdown({"category", "A", "B", "change", "change %"}, {false, true, true, true, true});
  for (size_t c = 0; c < kNumCategories; ++c) {
    const auto& v = d.breakdown_ms[c];
    breakdown.add_row({std::string(kCategoryKeys[c]), format_ms(v.a), format_ms(v.b), signed_ms(v.change()),
                       v.a != 0 ? signed_pct(v.change_pct()) : ""});
  }
  out += breakdown.render();

  out += "\nOps whose self time per step changed most\n";
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
