#include "analysis/critical_path/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <set>

#include "analysis/critical_path/longest_path.h"
#include "analysis/step_breakdown.h"
#include "analysis/tool_registry.h"

namespace mlprof::analysis {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<WhatIfChange> parse_what_ifs(std::string_view text) {
  std::vector<WhatIfChange> out;
  while (!text.empty()) {
    const size_t cut = text.find_first_of(";\n");
    const std::string_view entry = trim(text.substr(0, cut));
    text = cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);
    if (entry.empty()) continue;
    const size_t eq = entry.rfind('=');
    if (eq == std::string_view::npos || eq == 0)
      throw ToolRequestError("what_if", fmt::format("{{option}} takes TARGET=SCALE, not '{}'", entry));
    const std::string_view number = trim(entry.substr(eq + 1));
    double scale = -1;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), scale);
    if (ec != std::errc() || end != number.data() + number.size() || !(scale >= 0 && scale <= 1))
      throw ToolRequestError("what_if",
                             fmt::format("{{option}} takes a scale from 0 to 1 (0 removes, 0.5 halves), not '{}'", number));
    out.push_back({std::string(trim(entry.substr(0, eq))), scale});
  }
  return out;
}

std::optional<std::vector<uint8_t>> match_what_if(const model::Profile& p, const DependencyGraph& g,
                                                   std::string_view target) {
  std::vector<uint8_t> matched(g.edges.size(), 0);
  if (const auto kind = path_kind_of_target(target)) {
    for (size_t i = 0; i < g.edges.size(); ++i) matched[i] = g.edges[i].kind == *kind;
    return matched;
  }
  // Events named `target`, and every event inside one (parents come before their children).
  std::vector<uint8_t> name_hit(p.names.size(), 0);
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n)
    if (p.strings.view(p.names[n].name) == target) {
      name_hit[n] = 1;
      any = true;
    }
  if (!any) return std::nullopt;
  std::vector<uint8_t> inside(p.num_events(), 0);
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    const model::EventIndex parent = p.events.parent[e];
    inside[e] = name_hit[p.events.name[e]] || (parent != model::kNone && parent < e && inside[parent]);
  }
  any = false;
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const PathEdge& e = g.edges[i];
    matched[i] = (e.event != model::kNone && inside[e.event]) || (e.owner != model::kNone && inside[e.owner]);
    any = any || matched[i];
  }
  if (!any) return std::nullopt;  // named, but no step's graph holds it
  return matched;
}

std::vector<std::string> close_targets(const model::Profile& p, const DependencyGraph& g, std::string_view target) {
  std::set<std::string> candidates(kPathKindKeys.begin(), kPathKindKeys.end());
  for (std::string_view c : kCategoryKeys) candidates.emplace(c);
  std::set<uint32_t> seen;
  for (const PathEdge& e : g.edges)
    if (e.event != model::kNone && seen.insert(p.events.name[e.event]).second) candidates.emplace(p.name(e.event));
  const std::string want = lower(target);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    const std::string l = lower(c);
    const size_t score = l.find(want) != std::string::npos || want.find(l) != std::string::npos
                             ? 0
                             : edit_distance(want, l.substr(0, want.size() + 4));
    scored.emplace_back(score, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < 5; ++i) out.push_back(scored[i].second);
  return out;
}

double predicted_step_ms(const DependencyGraph& g, const std::vector<uint8_t>& matched, double scale) {
  if (g.steps.empty()) return 0;
  const Replay r = replay(g, &matched, scale, false);
  double total = 0;
  for (const GraphStep& s : g.steps) total += double(replayed_duration_ps(g, r, s));
  return total / double(g.steps.size()) / 1e9;
}

}  // namespace mlprof::analysis
