// diff: two runs side by side. Step time and each breakdown category, and the ops whose self
// time per step changed most (added, removed, faster, slower).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

#include "analysis/change_significance.h"
#include "analysis/framework_op_stats.h"
#include "analysis/overview_page.h"

namespace mlprof::analysis {

struct ValueChange {
  double a = 0, b = 0;
  ChangeSignificance significance = ChangeSignificance::kNone;  // change_significance.h
  double change() const { return b - a; }
  double change_pct() const { return a != 0 ? 100 * (b - a) / a : 0; }  // raw, for the CI gate
};

struct OpChange {
  std::string name, type;
  bool on_device = false;
  double a_ms = 0, b_ms = 0;  // self time per step (per profile when a run has no steps)
  std::string status;         // added, removed, slower, faster (only when the change matters)
  ChangeSignificance significance = ChangeSignificance::kNone;
};

struct ProfileDiff {
  std::string a_name, b_name;
  size_t a_steps = 0, b_steps = 0;
  ValueChange step_time_ms;
  std::array<ValueChange, kNumCategories> breakdown_ms;
  std::string a_verdict, b_verdict;
  std::vector<OpChange> ops;  // largest change first
};

ProfileDiff compute_profile_diff(const OverviewPage& a, const FrameworkOpStats& a_ops, const OverviewPage& b,
                                 const FrameworkOpStats& b_ops, size_t max_ops = 20);

nlohmann::json to_json(const ProfileDiff& diff);
std::string to_csv(const ProfileDiff& diff);  // one row per op

}  // namespace mlprof::analysis
