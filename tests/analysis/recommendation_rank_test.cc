// The overview's recommendations, most valuable change first (recommendation.h): the predicted
// ones change places among themselves by the step time they save; advice the critical path cannot
// replay keeps its place.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "analysis/critical_path/recommendation.h"

namespace mlprof::analysis {
namespace {

Recommendation predicted(std::string text, double step_ms, double predicted_step_ms) {
  return {std::move(text), "change", {"target", 0.5}, step_ms, predicted_step_ms};
}
Recommendation unpredicted(std::string text) { return {std::move(text), "", {}, std::nullopt, std::nullopt}; }

std::vector<std::string> texts(const std::vector<Recommendation>& rs) {
  std::vector<std::string> out;
  for (const Recommendation& r : rs) out.push_back(r.text);
  return out;
}

TEST(RecommendationRank, LargestSavingFirstAndWhatGainsNothingLast) {
  std::vector<Recommendation> rs = {
      unpredicted("mark the steps"),
      predicted("collectives: nothing", 100, 99.5),  // 0.5 % of the step: the replay's noise
      predicted("input: 10 ms", 100, 90),
      unpredicted("memory close to capacity"),
      predicted("launches: 30 ms", 100, 70),
  };
  rank_by_predicted_saving(rs);
  EXPECT_EQ(texts(rs), (std::vector<std::string>{"mark the steps", "launches: 30 ms", "input: 10 ms",
                                                  "memory close to capacity", "collectives: nothing"}));
}

TEST(RecommendationRank, EqualSavingsKeepTheirOrder) {
  std::vector<Recommendation> rs = {predicted("a", 50, 50), predicted("b", 50, 40), predicted("c", 50, 50),
                                    predicted("d", 50, 40)};
  rank_by_predicted_saving(rs);
  EXPECT_EQ(texts(rs), (std::vector<std::string>{"b", "d", "a", "c"}));
}

}  // namespace
}  // namespace mlprof::analysis
