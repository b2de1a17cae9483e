#include "analysis/profile_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/csv.h"

namespace mlprof::analysis {
namespace {

// Ops are compared per step, so that runs that profiled different numbers of steps compare.
std::map<std::pair<bool, std::string>, std::pair<std::string, double>> ms_per_step(const FrameworkOpStats& ops,
                                                                                    size_t steps) {
  std::map<std::pair<bool, std::string>, std::pair<std::string, double>> out;
  const double divisor = double(std::max<size_t>(steps, 1));
  for (const auto& r : ops.rows) {
    if (r.name == "IDLE") continue;
    auto& v = out[{r.on_device, r.name}];
    v.first = r.type;
    v.second += double(r.self_ps) / 1e9 / divisor;
  }
  return out;
}

}  // namespace

ProfileDiff compute_profile_diff(const OverviewPage& a, const FrameworkOpStats& a_ops, const OverviewPage& b,
                                 const FrameworkOpStats& b_ops, size_t max_ops) {
  ProfileDiff d;
  d.a_steps = a.steps.size();
  d.b_steps = b.steps.size();
  const double step_ms = a.step_time_ms.avg;
  auto value_change = [step_ms](double before, double after) {
    return ValueChange{before, after, change_significance(before, after, step_ms)};
  };
  d.step_time_ms = value_change(a.step_time_ms.avg, b.step_time_ms.avg);
  for (size_t c = 0; c < kNumCategories; ++c) d.breakdown_ms[c] = value_change(a.category_ms[c].avg, b.category_ms[c].avg);
  d.a_verdict = std::string(verdict_name(a.input_bound.verdict));
  d.b_verdict = std::string(verdict_name(b.input_bound.verdict));

  // Op stats cover the whole profile, so they are divided by every step found in it.
  const auto before = ms_per_step(a_ops, a.whole_profile ? 1 : a.steps_found);
  const auto after = ms_per_step(b_ops, b.whole_profile ? 1 : b.steps_found);
  std::map<std::pair<bool, std::string>, OpChange> joined;
  for (const auto& [key, v] : before) {
    OpChange& c = joined[key];
    c.on_device = key.first, c.name = key.second, c.type = v.first, c.a_ms = v.second;
  }
  for (const auto& [key, v] : after) {
    OpChange& c = joined[key];
    c.on_device = key.first, c.name = key.second, c.type = v.first, c.b_ms = v.second;
  }
  for (auto& [key, c] : joined) {
    c.significance = change_significance(c.a_ms, c.b_ms, step_ms);
    if (c.a_ms == 0) c.status = "added";
    else if (c.b_ms == 0) c.status = "removed";
    else if (c.significance == ChangeSignificance::kNone) continue;  // noise, not a change
    else c.status = c.significance == ChangeSignificance::kWorse ? "slower" : "faster";
    d.ops.push_back(c);
  }
  std::sort(d.ops.begin(), d.ops.end(), [](const OpChange& x, const OpChange& y) {
    const double dx = std::abs(x.b_ms - x.a_ms), dy = std::abs(y.b_ms - y.a_ms);
    return dx != dy ? dx > dy : x.name < y.name;
  });
  if (d.ops.size() > max_ops) d.ops.resize(max_ops);
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
  return {{"a", {{"name", d.a_name}, {"steps", d.a_steps}, {"input_bound", d.a_verdict}}},
          {"b", {{"name", d.b_name}, {"steps", d.b_steps}, {"input_bound", d.b_verdict}}},
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
