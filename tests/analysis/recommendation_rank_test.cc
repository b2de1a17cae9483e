// The overview's recommendations (recommendation.h): the most valuable change first (the predicted
// ones change places among themselves by the step time they save; advice the critical path cannot
// replay keeps its place), and advice on the kind that bounds the step where none speaks of it.
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

// A host-bound step (HTA's two NCCL ranks: 99.5 % of the path is host compute) got advice on
// collectives and the top device op, each gaining nothing, and none on the host.
TEST(BottleneckRecommendation, TheKindThatBoundsTheStepGetsAdviceWithTheHeadlinesPrediction) {
  Bottleneck b;
  b.kind = PathKind::kHost;
  b.evidence = "616.134 ms of the 619.272 ms critical path a step";
  b.step_ms = 619.272;
  b.predicted_step_ms = 427.469;
  const auto r = bottleneck_recommendation(b, {predicted("collectives: nothing", 619.272, 619.3)});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->text.starts_with("Host compute bounds the step")) << r->text;
  EXPECT_NE(r->text.find(b.evidence), std::string::npos) << r->text;
  EXPECT_EQ(r->what_if.target, "host");
  EXPECT_EQ(r->what_if.scale, 0.5);
  EXPECT_EQ(r->change, "host compute took half the time");
  EXPECT_EQ(prediction_words(*r), "(predicted step: 619.3 -> 427.5 ms)");
}

// Kineto's documentation traces run a step of 0.1 us: "0.000 ms -> 0.000 ms" said nothing.
TEST(StepDuration, AStepUnderAMillisecondIsToldInMicroseconds) {
  EXPECT_EQ(step_duration(21.3034, 21.3034), "21.303 ms");
  EXPECT_EQ(step_duration(0.000105, 0.000105), "0.105 us");
  EXPECT_EQ(prediction_words(predicted("halve", 0.000105, 0.00005)), "(predicted step: 0.105 -> 0.050 us)");
  EXPECT_EQ(prediction_words(predicted("halve", 47.54, 32.12)), "(predicted step: 47.5 -> 32.1 ms)");
}

TEST(BottleneckRecommendation, NoneWhereAdviceAlreadyChangesThatKindOrNoneCanBeGiven) {
  Bottleneck b;
  b.kind = PathKind::kInput;
  b.step_ms = 100, b.predicted_step_ms = 60;
  Recommendation input = predicted("waits for input", 100, 60);
  input.what_if = {"input", 0};
  EXPECT_FALSE(bottleneck_recommendation(b, {input}).has_value());
  EXPECT_TRUE(bottleneck_recommendation(b, {}).has_value());
  b.predicted_step_ms = 99.5;  // saves nothing: not what paces the step
  EXPECT_FALSE(bottleneck_recommendation(b, {}).has_value());
  b.predicted_step_ms = 60;
  b.kind = PathKind::kIdle;
  EXPECT_FALSE(bottleneck_recommendation(b, {}).has_value());
  b.kind = PathKind::kWaitingForRank;
  EXPECT_FALSE(bottleneck_recommendation(b, {}).has_value());
}

}  // namespace
}  // namespace mlprof::analysis
