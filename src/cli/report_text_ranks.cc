#include "cli/report_text_ranks.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {
// The categories as the rank table's columns.
constexpr std::array<const char*, kNumCategories> kColumnLabels = {
    "input", "output", "compile", "launch", "host", "dev-to-dev", "collectives", "device", "other"};
}  // namespace

std::string render_rank_steps(const std::vector<RankStepRow>& rows, bool input_only) {
  if (rows.empty()) return {};
  std::vector<size_t> columns;
  for (size_t c = 0; c < kNumCategories; ++c) {
    const bool any = std::any_of(rows.begin(), rows.end(), [&](const RankStepRow& r) { return r.category_ms[c] > 0; });
    if (c == size_t(Category::kInput) || (!input_only && any)) columns.push_back(c);
  }
  std::vector<std::string> header = {"rank", "steps", "step"};
  for (size_t c : columns) header.push_back(kColumnLabels[c]);
  header.push_back(input_only ? "input %" : "most time in");
  std::vector<bool> numeric(header.size(), true);
  numeric[0] = false;
  numeric.back() = input_only;
  TextTable table(header, numeric);
  for (const RankStepRow& r : rows) {
    std::vector<std::string> row = {r.host, std::to_string(r.steps), format_ms(r.step_ms)};
    for (size_t c : columns) row.push_back(format_ms(r.category_ms[c]));
    row.push_back(input_only ? format_pct(r.input_pct()) : std::string(kColumnLabels[size_t(r.bottleneck())]));
    table.add_row(std::move(row));
  }
  return "\nRanks (one row each; means per step)\n" + table.render();
}

}  // namespace mlprof::cli
