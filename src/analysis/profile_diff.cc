#include "analysis/profile_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>

#include "analysis/csv.h"
#include "analysis/event_kinds.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

using OpKey = std::pair<bool, std::string>;  // on_device, name

std::vector<int64_t> step_nums_of(const OverviewPage& o) {
  std::vector<int64_t> nums;
  for (const OverviewStep& s : o.steps) nums.push_back(s.step_num);
  std::sort(nums.begin(), nums.end());
  nums.erase(std::unique(nums.begin(), nums.end()), nums.end());
  return nums;
}

// Which steps to compare (StepsCompared in profile_diff.h); in `compared`, their numbers when
// the steps are matched by number.
StepsCompared choose_steps(const OverviewPage& a, const OverviewPage& b, std::vector<int64_t>* compared) {
  if (a.whole_profile != b.whole_profile) return StepsCompared::kStepsAndWholeProfile;
  if (a.whole_profile) return StepsCompared::kWholeProfiles;
  const std::vector<int64_t> in_a = step_nums_of(a), in_b = step_nums_of(b);
  std::set_intersection(in_a.begin(), in_a.end(), in_b.begin(), in_b.end(), std::back_inserter(*compared));
  if (compared->empty()) return StepsCompared::kOwnSteps;
  return in_a == in_b ? StepsCompared::kSameSteps : StepsCompared::kStepsInCommon;
}

// The compared steps of a side: all of its steps, or those whose number is in `only`.
struct ComparedSteps {
  const std::vector<int64_t>* only = nullptr;
  bool has(int64_t step_num) const { return !only || std::binary_search(only->begin(), only->end(), step_num); }
};

struct StepAverages {
  size_t steps = 0;  // a step per host
  double step_ms = 0;
  std::array<double, kNumCategories> category_ms{};
};

// Summed as series_stats sums the overview's steps, so that comparing every step gives the
// overview's averages to the bit.
StepAverages step_averages(const OverviewPage& o, ComparedSteps compared) {
  StepAverages avg;
  for (const OverviewStep& s : o.steps) {
    if (!compared.has(s.step_num)) continue;
    ++avg.steps;
    avg.step_ms += ms(s.total_ps);
    for (size_t c = 0; c < kNumCategories; ++c) avg.category_ms[c] += ms(s.breakdown_ps[c]);
  }
  if (avg.steps == 0) return avg;
  avg.step_ms /= double(avg.steps);
  for (double& c : avg.category_ms) c /= double(avg.steps);
  return avg;
}

// Each op's self time in the compared steps over their number. An op none of whose events lie
// in them is absent; one that ran there in no time is present with 0.
std::map<OpKey, double> ms_per_step(const StepOpTimes& times, ComparedSteps compared, size_t steps) {
  std::map<OpKey, double> out;
  const double divisor = double(std::max<size_t>(steps, 1));
  for (const auto& [step_num, ops] : times.by_step) {
    if (!compared.has(step_num)) continue;
    for (const auto& [key, t] : ops)
      if (t.events > 0) out[key] += ms(t.self_ps) / divisor;
  }
  return out;
}

// The op's row, or none when its time did not change enough to list (a null side: the op is
// absent from that run's compared steps).
std::optional<OpChange> op_change(const OpKey& key, const double* a_ms, const double* b_ms, double step_ms) {
  OpChange c;
  c.on_device = key.first, c.name = key.second, c.type = std::string(op_type_of(key.second));
  c.a_ms = a_ms ? *a_ms : 0, c.b_ms = b_ms ? *b_ms : 0;
  if (c.a_ms == c.b_ms) return std::nullopt;  // no change, even for an op that runs in no time
  c.significance = change_significance(c.a_ms, c.b_ms, step_ms);
  if (!a_ms) c.status = "added";
  else if (!b_ms) c.status = "removed";
  else if (c.significance == ChangeSignificance::kNone) return std::nullopt;  // noise, not a change
  else c.status = c.significance == ChangeSignificance::kWorse ? "slower" : "faster";
  return c;
}

// Largest change first, at most max_ops.
std::vector<OpChange> op_changes(const std::map<OpKey, double>& before, const std::map<OpKey, double>& after,
                                 double step_ms, size_t max_ops) {
  std::map<OpKey, std::pair<const double*, const double*>> joined;
  for (const auto& [key, v] : before) joined[key].first = &v;
  for (const auto& [key, v] : after) joined[key].second = &v;
  std::vector<OpChange> out;
  for (const auto& [key, sides] : joined)
    if (auto c = op_change(key, sides.first, sides.second, step_ms)) out.push_back(std::move(*c));
  std::sort(out.begin(), out.end(), [](const OpChange& x, const OpChange& y) {
    const double dx = std::abs(x.b_ms - x.a_ms), dy = std::abs(y.b_ms - y.a_ms);
    return dx != dy ? dx > dy : x.name < y.name;
  });
  if (out.size() > max_ops) out.resize(max_ops);
  return out;
}

// "step 1009", "steps 1, 2, 5", "12 steps, 3 to 20".
std::string step_list(const std::vector<int64_t>& nums) {
  if (nums.size() == 1) return "step " + std::to_string(nums.front());
  if (nums.size() > 6) return fmt::format("{} steps, {} to {}", nums.size(), nums.front(), nums.back());
  return fmt::format("steps {}", fmt::join(nums, ", "));
}

}  // namespace

std::string_view steps_compared_name(StepsCompared s) {
  switch (s) {
    case StepsCompared::kSameSteps: return "same_steps";
    case StepsCompared::kStepsInCommon: return "steps_in_common";
    case StepsCompared::kOwnSteps: return "own_steps";
    case StepsCompared::kWholeProfiles: return "whole_profiles";
    case StepsCompared::kStepsAndWholeProfile: return "steps_and_whole_profile";
  }
  return "";
}

std::string steps_compared_text(const ProfileDiff& d) {
  switch (d.steps_compared) {
    case StepsCompared::kSameSteps:
      return fmt::format("Both runs analysed the same steps ({}).", step_list(d.compared_step_nums));
    case StepsCompared::kStepsInCommon:
      return fmt::format(
          "Only the steps both runs analysed are compared ({}): {} step(s) of A and {} of B are left out, as the "
          "other run did not analyse them (partial, empty or not profiled there).",
          step_list(d.compared_step_nums), d.a_steps - d.a_compared, d.b_steps - d.b_compared);
    case StepsCompared::kOwnSteps:
      return fmt::format("The runs analysed no step number in common: each run's average step is compared "
                         "(A over {} step(s), B over {}).",
                         d.a_compared, d.b_compared);
    case StepsCompared::kWholeProfiles:
      return "Neither run has step markers: each whole profile is compared as one step.";
    case StepsCompared::kStepsAndWholeProfile:
      return fmt::format(
          "Not comparable: {} has no step markers, so its figures are its whole profile taken as one step, while "
          "{}'s are per step. Mark the steps in both runs to compare them.",
          d.a_whole_profile ? "A" : "B", d.a_whole_profile ? "B" : "A");
  }
  return "";
}

ProfileDiff compute_profile_diff(const DiffSide& a, const DiffSide& b, size_t max_ops) {
  ProfileDiff d;
  d.a_steps = a.overview.steps.size();
  d.b_steps = b.overview.steps.size();
  d.a_whole_profile = a.overview.whole_profile;
  d.b_whole_profile = b.overview.whole_profile;
  d.steps_compared = choose_steps(a.overview, b.overview, &d.compared_step_nums);
  const ComparedSteps compared{d.compared_step_nums.empty() ? nullptr : &d.compared_step_nums};
  const StepAverages in_a = step_averages(a.overview, compared), in_b = step_averages(b.overview, compared);
  d.a_compared = in_a.steps;
  d.b_compared = in_b.steps;

  const double step_ms = in_a.step_ms;
  auto value_change = [step_ms](double before, double after) {
    return ValueChange{before, after, change_significance(before, after, step_ms)};
  };
  d.step_time_ms = value_change(in_a.step_ms, in_b.step_ms);
  for (size_t c = 0; c < kNumCategories; ++c) d.breakdown_ms[c] = value_change(in_a.category_ms[c], in_b.category_ms[c]);
  d.a_verdict = std::string(verdict_name(a.overview.input_bound.verdict));
  d.b_verdict = std::string(verdict_name(b.overview.input_bound.verdict));
  d.ops = op_changes(ms_per_step(a.op_times, compared, in_a.steps), ms_per_step(b.op_times, compared, in_b.steps),
                     step_ms, max_ops);
  return d;
}

namespace {

// change_pct is null when the baseline is ≈0 (there is no percentage to give); change_ratio is
// there when the percentage is too large to read well.
void add_percent(nlohmann::json& j, double a, double b) {
  const ChangePercent p = change_percent(a, b);
  j["change_pct"] = p.pct ? nlohmann::json(*p.pct) : nlohmann::json(nullptr);
  if (p.ratio) j["change_ratio"] = *p.ratio;
}

}  // namespace

nlohmann::json to_json(const ProfileDiff& d) {
  auto change = [](const ValueChange& v) {
    nlohmann::json j{{"a", v.a}, {"b", v.b}, {"change_ms", v.change()}};
    add_percent(j, v.a, v.b);
    j["significance"] = significance_name(v.significance);
    return j;
  };
  nlohmann::json breakdown = nlohmann::json::object();
  for (size_t c = 0; c < kNumCategories; ++c) breakdown[std::string(kCategoryKeys[c])] = change(d.breakdown_ms[c]);
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : d.ops) {
    nlohmann::json j{{"name", o.name},
                     {"type", o.type},
                     {"host_or_device", o.on_device ? "Device" : "Host"},
                     {"a_self_time_per_step_ms", o.a_ms},
                     {"b_self_time_per_step_ms", o.b_ms},
                     {"change_ms", o.b_ms - o.a_ms}};
    add_percent(j, o.a_ms, o.b_ms);
    j["significance"] = significance_name(o.significance);
    j["status"] = o.status;
    ops.push_back(std::move(j));
  }
  // Which steps the figures average, and why: the sentence the text shows too.
  const nlohmann::json steps_compared{{"basis", steps_compared_name(d.steps_compared)},
                                      {"comparable", d.comparable()},
                                      {"step_nums", d.compared_step_nums},
                                      {"a_steps", d.a_compared},
                                      {"b_steps", d.b_compared},
                                      {"text", steps_compared_text(d)}};
  return {{"a", {{"name", d.a_name}, {"steps", d.a_steps}, {"input_bound", d.a_verdict}}},
          {"b", {{"name", d.b_name}, {"steps", d.b_steps}, {"input_bound", d.b_verdict}}},
          {"steps_compared", steps_compared},
          {"step_time_ms", change(d.step_time_ms)},
          {"breakdown_ms", breakdown},
          {"ops", ops}};
}

std::string to_csv(const ProfileDiff& d) {
  std::string out;
  append_csv_row(out, {"host_or_device", "type", "operation", "a_self_time_per_step_ms", "b_self_time_per_step_ms",
                       "change_ms", "status"});
  char b[3][32];
  for (const auto& o : d.ops) {
    std::snprintf(b[0], 32, "%.6g", o.a_ms);
    std::snprintf(b[1], 32, "%.6g", o.b_ms);
    std::snprintf(b[2], 32, "%.6g", o.b_ms - o.a_ms);
    append_csv_row(out, {o.on_device ? "Device" : "Host", o.type, o.name, b[0], b[1], b[2], o.status});
  }
  return out;
}

}  // namespace mlprof::analysis
