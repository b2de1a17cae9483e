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
  return std::move(match_what_ifs(p, g, {std::string(target)}).front());
}

std::vector<std::optional<std::vector<uint8_t>>> match_what_ifs(const model::Profile& p, const DependencyGraph& g,
                                                                const std::vector<std::string>& targets) {
  std::vector<std::optional<std::vector<uint8_t>>> out(targets.size());
  // Names: bit i of a name's mask is set when it is targets[i]; kinds and categories directly.
  std::vector<size_t> by_name;  // indices into targets
  for (size_t i = 0; i < targets.size(); ++i) {
    if (const auto kind = path_kind_of_target(targets[i])) {
      std::vector<uint8_t> matched(g.edges.size());
      for (size_t k = 0; k < g.edges.size(); ++k) matched[k] = g.edges[k].kind == *kind;
      out[i] = std::move(matched);
    } else {
      by_name.push_back(i);
    }
  }
  for (size_t first = 0; first < by_name.size(); first += 64) {
    const size_t count = std::min<size_t>(64, by_name.size() - first);
    std::vector<uint64_t> name_mask(p.names.size(), 0);
    uint64_t named = 0;
    for (size_t n = 0; n < p.names.size(); ++n) {
      const std::string_view name = p.strings.view(p.names[n].name);
      for (size_t b = 0; b < count; ++b)
        if (name == targets[by_name[first + b]]) name_mask[n] |= uint64_t(1) << b;
      named |= name_mask[n];
    }
    if (named == 0) continue;
    // Events named so, and every event inside one (parents come before their children).
    std::vector<uint64_t> inside(p.num_events(), 0);
    for (model::EventIndex e = 0; e < p.num_events(); ++e) {
      const model::EventIndex parent = p.events.parent[e];
      inside[e] = name_mask[p.events.name[e]] | (parent != model::kNone && parent < e ? inside[parent] : 0);
    }
    std::vector<std::vector<uint8_t>> matched(count, std::vector<uint8_t>(g.edges.size(), 0));
    uint64_t reached = 0;
    for (size_t k = 0; k < g.edges.size(); ++k) {
      const PathEdge& e = g.edges[k];
      const uint64_t bits = (e.event != model::kNone ? inside[e.event] : 0) | (e.owner != model::kNone ? inside[e.owner] : 0);
      if (bits == 0) continue;
      reached |= bits;
      for (size_t b = 0; b < count; ++b)
        if (bits >> b & 1) matched[b][k] = 1;
    }
    for (size_t b = 0; b < count; ++b)  // a name no step's graph holds matches nothing
      if (reached >> b & 1) out[by_name[first + b]] = std::move(matched[b]);
  }
  return out;
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
