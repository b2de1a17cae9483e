// diff: two runs side by side over the steps they have in common. Step time and each breakdown
// category, and the ops whose self time per step changed most (added, removed, faster, slower).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <string_view>
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
  double a_ms = 0, b_ms = 0;  // self time per compared step
  std::string status;         // added (absent from A), removed (absent from B), slower, faster
  ChangeSignificance significance = ChangeSignificance::kNone;
};

// Which steps the figures compare. Two runs compare like with like only over the same steps:
// when both analysed numbered steps and some numbers are common to both but the sets differ
// (a step left out as partial on one side), only the common steps are compared; steps with no
// number in common (two separate runs) compare as each run's average step. A run without step
// markers is one pseudo step over its whole profile: against a run with steps its figures do
// not compare, and the diff says so.
enum class StepsCompared {
  kSameSteps,             // both analysed the same step numbers
  kStepsInCommon,         // the step numbers both analysed; the others left out
  kOwnSteps,              // no step number in common: each run's own steps
  kWholeProfiles,         // neither has step markers: each profile as one step
  kStepsAndWholeProfile,  // one side has steps, the other none: not comparable
};
std::string_view steps_compared_name(StepsCompared s);  // same_steps, steps_in_common, ...

// One run as the diff reads it.
struct DiffSide {
  const OverviewPage& overview;
  const StepOpTimes& op_times;  // op_time_by_step of the run
};

struct ProfileDiff {
  std::string a_name, b_name;
  size_t a_steps = 0, b_steps = 0;  // analysed
  bool a_whole_profile = false, b_whole_profile = false;  // no step markers: one pseudo step
  StepsCompared steps_compared = StepsCompared::kSameSteps;
  std::vector<int64_t> compared_step_nums;  // kSameSteps and kStepsInCommon: the numbers compared
  size_t a_compared = 0, b_compared = 0;    // steps each side's figures average (a step per host)
  ValueChange step_time_ms;
  std::array<ValueChange, kNumCategories> breakdown_ms;
  std::string a_verdict, b_verdict;
  std::vector<OpChange> ops;  // largest change first

  bool comparable() const { return steps_compared != StepsCompared::kStepsAndWholeProfile; }
};
// One sentence on which steps were compared and why, for every output format.
std::string steps_compared_text(const ProfileDiff& diff);

ProfileDiff compute_profile_diff(const DiffSide& a, const DiffSide& b, size_t max_ops = 20);

nlohmann::json to_json(const ProfileDiff& diff);
std::string to_csv(const ProfileDiff& diff);  // one row per op

}  // namespace mlprof::analysis
