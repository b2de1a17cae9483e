#include "analysis/diff_gate.h"

#include <algorithm>

namespace mlprof::analysis {
namespace {

// Why the step times cannot be judged against a limit, or empty when they can. A gate that
// passed on figures the diff calls not comparable would let a regression through unseen, and
// one that failed on them would block for nothing.
std::string why_not_judged(const ProfileDiff& diff) {
  if (!diff.comparable()) return steps_compared_text(diff);
  if (diff.step_time_ms.a <= 0) return "A has no step time to measure B's against (no analysed step spans any time).";
  return {};
}

}  // namespace

DiffGate check_diff_gate(const ProfileDiff& diff, double limit_pct, size_t max_ops) {
  DiffGate g;
  g.limit_pct = limit_pct;
  g.not_judged_why = why_not_judged(diff);
  if (!g.judged()) return g;
  g.slower_pct = diff.step_time_ms.change_pct();
  g.failed = g.slower_pct > limit_pct;
  for (size_t c = 0; c < kNumCategories; ++c) {
    const ValueChange& v = diff.breakdown_ms[c];
    if (v.change() > 0) g.grown_categories.push_back({std::string(kCategoryKeys[c]), v.a, v.b});
  }
  std::sort(g.grown_categories.begin(), g.grown_categories.end(),
            [](const auto& x, const auto& y) { return x.b_ms - x.a_ms > y.b_ms - y.a_ms; });
  for (const OpChange& op : diff.ops)
    if (op.b_ms > op.a_ms) g.grown_ops.push_back(op);
  std::stable_sort(g.grown_ops.begin(), g.grown_ops.end(),
                   [](const auto& x, const auto& y) { return x.b_ms - x.a_ms > y.b_ms - y.a_ms; });
  if (g.grown_ops.size() > max_ops) g.grown_ops.resize(max_ops);
  return g;
}

}  // namespace mlprof::analysis
