#include "analysis/rank_step_table.h"

#include <algorithm>

#include "analysis/units.h"

namespace mlprof::analysis {

double RankStepRow::input_pct() const {
  return step_ms > 0 ? 100.0 * category_ms[size_t(Category::kInput)] / step_ms : 0;
}

Category RankStepRow::bottleneck() const {
  return Category(std::max_element(category_ms.begin(), category_ms.end()) - category_ms.begin());
}

void RankStepRows::add(std::string_view host, std::string_view file, int64_t step_ps, const std::array<int64_t, kNumCategories>& category_ps) {
  auto it = std::find_if(sums_.begin(), sums_.end(), [&](const RankStepRow& r) { return r.host == host; });
  if (it == sums_.end()) it = sums_.insert(sums_.end(), RankStepRow{std::string(host), std::string(file)});
  ++it->steps;
  it->step_ms += ms(step_ps);
  for (size_t c = 0; c < kNumCategories; ++c) it->category_ms[c] += ms(category_ps[c]);
}

std::vector<RankStepRow> RankStepRows::rows() const {
  if (sums_.size() < 2) return {};
  std::vector<RankStepRow> out = sums_;
  for (RankStepRow& r : out) {
    const double n = double(r.steps);
    r.step_ms /= n;
    for (double& c : r.category_ms) c /= n;
  }
  return out;
}

nlohmann::json to_json(const std::vector<RankStepRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const RankStepRow& r : rows) {
    nlohmann::json breakdown = nlohmann::json::object();
    for (size_t c = 0; c < kNumCategories; ++c) breakdown[std::string(kCategoryKeys[c])] = r.category_ms[c];
    out.push_back({{"host", r.host},
                   {"file", r.file},
                   {"steps", r.steps},
                   {"step_ms", r.step_ms},
                   {"breakdown_ms", breakdown},
                   {"input_pct", r.input_pct()},
                   {"bottleneck", kCategoryKeys[size_t(r.bottleneck())]}});
  }
  return out;
}

}  // namespace mlprof::analysis
