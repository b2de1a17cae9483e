#include "analysis/gpu_timeline/collective_mismatch.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

namespace mlprof::analysis {

std::string step_ranges(const std::vector<int64_t>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size();) {
    size_t j = i;
    while (j + 1 < steps.size() && steps[j + 1] == steps[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? std::to_string(steps[i]) : fmt::format("{}-{}", steps[i], steps[j]);
    i = j + 1;
  }
  return out;
}

namespace {

std::string group_words(const std::string& group) {
  return group.empty() ? "no recorded process group" : "process group " + group;
}

// Calls that the ranks made at the same place (step, name, order) but in different process
// groups: one line per rank, call name and pair of groups. The usual group at a place is the one
// most ranks used (on a tie, the first rank's); the ranks in another are named.
void group_mismatches(const std::vector<const RankSteps*>& ranks, std::vector<std::string>& lines) {
  std::map<std::tuple<int64_t, std::string, uint32_t>, std::map<size_t, const std::string*>> groups;
  for (size_t r = 0; r < ranks.size(); ++r)
    for (const CollectiveCall& c : ranks[r]->calls) groups[{c.step_num, c.name, c.index}][r] = &c.group;
  struct Differ {
    size_t calls = 0;
    std::set<int64_t> steps;
  };
  std::map<std::tuple<size_t, std::string, std::string, std::string>, Differ> differ;  // rank, name, its, usual
  for (const auto& [key, by_rank] : groups) {
    if (by_rank.size() < 2) continue;
    std::map<std::string, size_t> count;
    for (const auto& [r, g] : by_rank) ++count[*g];
    if (count.size() < 2) continue;
    const std::string* usual = by_rank.begin()->second;
    for (const auto& [g, n] : count)
      if (n > count[*usual]) usual = &g;
    for (const auto& [r, g] : by_rank)
      if (*g != *usual) {
        Differ& d = differ[{r, std::get<1>(key), *g, *usual}];
        ++d.calls;
        d.steps.insert(std::get<0>(key));
      }
  }
  for (const auto& [key, d] : differ) {
    const auto& [r, name, group, usual] = key;
    lines.push_back(fmt::format("{}'s {} call{} in step{} {} {} in {}, the other ranks' in {}: each is compared "
                                "only within its group",
                                ranks[r]->host, name, d.calls == 1 ? "" : "s", d.steps.size() == 1 ? "" : "s",
                                step_ranges(std::vector<int64_t>(d.steps.begin(), d.steps.end())),
                                d.calls == 1 ? "is" : "are", group_words(group), group_words(usual)));
  }
}

}  // namespace

std::vector<std::string> collective_mismatches(const std::vector<const RankSteps*>& ranks) {
  std::vector<std::string> lines;
  if (ranks.size() < 2) return lines;
  // Which ranks ran each step.
  std::map<int64_t, std::set<size_t>> ran;
  for (size_t r = 0; r < ranks.size(); ++r)
    for (const RankSteps::Times& t : ranks[r]->steps) ran[t.step_num].insert(r);
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<int64_t> alone, missed;
    size_t others = 0;
    for (const auto& [step, who] : ran) {
      if (who.size() == 1 && who.count(r)) alone.push_back(step);
      if (who.size() >= 2 && !who.count(r)) missed.push_back(step), others = std::max(others, who.size());
    }
    const std::string& host = ranks[r]->host;
    if (ranks[r]->steps.empty()) lines.push_back(fmt::format("{} has no analysed step: it is left out", host));
    // A rank whose steps are another range: one problem, in one line.
    const std::string missed_words =
        missed.empty() ? "" : fmt::format("step{} {}, which up to {} other ranks ran", missed.size() == 1 ? "" : "s",
                                          step_ranges(missed), others);
    if (!alone.empty())
      lines.push_back(fmt::format("{}'s step{} {} {} run by no other rank{}: left out of the comparison", host,
                                  alone.size() == 1 ? "" : "s", step_ranges(alone), alone.size() == 1 ? "was" : "were",
                                  missed.empty() ? "" : ", and it has none of " + missed_words));
    else if (!missed.empty() && !ranks[r]->steps.empty())
      lines.push_back(fmt::format("{} has no {}: those steps compare the others", host, missed_words));
  }
  // Calls: per step, name and order, the ranks that made them; a rank that ran the step and
  // made no such call is missing from it.
  std::map<std::tuple<int64_t, std::string, uint32_t>, std::set<size_t>> made;
  for (size_t r = 0; r < ranks.size(); ++r)
    for (const CollectiveCall& c : ranks[r]->calls) made[{c.step_num, c.name, c.index}].insert(r);
  struct Missing {
    size_t calls = 0;
    std::set<int64_t> steps;
  };
  std::map<std::pair<size_t, std::string>, Missing> missing;  // by (rank, call name)
  for (const auto& [key, who] : made) {
    const auto& [step, name, index] = key;
    const std::set<size_t>& runners = ran[step];
    if (runners.size() < 2) continue;  // a step of one rank: named above
    for (size_t r : runners)
      if (!who.count(r)) {
        Missing& m = missing[{r, name}];
        ++m.calls;
        m.steps.insert(step);
      }
  }
  for (const auto& [key, m] : missing)
    lines.push_back(fmt::format("{} made {} fewer {} call{} than the other ranks in step{} {}: those calls are "
                                "compared among the ranks that made them",
                                ranks[key.first]->host, m.calls, key.second, m.calls == 1 ? "" : "s",
                                m.steps.size() == 1 ? "" : "s",
                                step_ranges(std::vector<int64_t>(m.steps.begin(), m.steps.end()))));
  group_mismatches(ranks, lines);
  if (lines.size() > kMaxMismatchLines) {
    const size_t more = lines.size() - (kMaxMismatchLines - 1);
    lines.resize(kMaxMismatchLines - 1);
    lines.push_back(fmt::format("and {} more problems of the same kinds (--format json lists the ranks' steps)", more));
  }
  return lines;
}

}  // namespace mlprof::analysis
