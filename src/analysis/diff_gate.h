// diff as a gate in CI (`mlprof diff A B --fail-above PCT`): B fails when its average step is
// more than PCT % slower than A's; the verdict lists what grew (breakdown categories and ops
// whose time per step rose) so the failing job says where to look. The gate judges only figures
// the diff calls comparable: when it cannot (one run has step markers and the other none, or A
// has no step time to measure B against), it says why instead of passing or failing on them.
#pragma once

#include <string>
#include <vector>

#include "analysis/profile_diff.h"

namespace mlprof::analysis {

struct GrownCategory {
  std::string key;  // kCategoryKeys
  double a_ms = 0, b_ms = 0;
};

struct DiffGate {
  double limit_pct = 0;
  double slower_pct = 0;  // how much slower B's average step is than A's (negative: faster)
  bool failed = false;
  std::string not_judged_why;  // set when the step times cannot be judged: neither passed nor failed
  std::vector<GrownCategory> grown_categories;  // largest growth first
  std::vector<OpChange> grown_ops;              // slower or added, largest growth first

  bool judged() const { return not_judged_why.empty(); }
};

DiffGate check_diff_gate(const ProfileDiff& diff, double limit_pct, size_t max_ops = 10);

}  // namespace mlprof::analysis
