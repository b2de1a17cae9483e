#include "analysis/critical_path/recommendation.h"

#include <fmt/format.h>

#include <algorithm>

namespace mlprof::analysis {

RecommendedChange input_removed() { return {{"input", 0}, "input took no time"}; }
RecommendedChange launches_halved(bool on_tpu) {
  return {{"kernel_launch", 0.5}, on_tpu ? "program launches took half the time" : "kernel launches took half the time"};
}
RecommendedChange collectives_halved() { return {{"collectives", 0.5}, "collectives took half the time"}; }
RecommendedChange device_compute_halved() { return {{"device_compute", 0.5}, "device compute took half the time"}; }
RecommendedChange copies_removed() { return {{"copies", 0}, "copies took no time"}; }
RecommendedChange op_halved(const std::string& name) { return {{name, 0.5}, name + " took half the time"}; }

std::vector<WhatIfChange> recommendation_what_ifs(const std::string& top_op, bool on_tpu) {
  std::vector<WhatIfChange> out;
  for (const RecommendedChange& c :
       {input_removed(), launches_halved(on_tpu), collectives_halved(), device_compute_halved(), copies_removed()})
    out.push_back(c.what_if);
  if (!top_op.empty()) out.push_back(op_halved(top_op).what_if);
  return out;
}

Recommendation recommendation(std::string text, const std::optional<Bottleneck>& path,
                              const std::optional<RecommendedChange>& change) {
  Recommendation r{std::move(text), "", {}, std::nullopt, std::nullopt};
  if (!change || !path) return r;
  for (const WhatIfPrediction& w : path->what_if)
    if (w.target == change->what_if.target && w.scale == change->what_if.scale) {
      r.change = change->words;
      r.what_if = change->what_if;
      r.step_ms = path->step_ms;
      r.predicted_step_ms = w.step_ms;
      r.reaches_steps = w.reaches_steps;
    }
  return r;
}

namespace {

// What to do about the kind that bounds the step, for the kinds no other advice covers.
std::string_view bottleneck_advice(PathKind kind, bool on_tpu) {
  switch (kind) {
    case PathKind::kHost:
      return on_tpu ? "Host compute bounds the step: run more of the step inside one jitted function, and keep "
                      "Python work between steps off the step's thread."
                    : "Host compute bounds the step: cut the host's work per step (compile the step function, "
                      "capture it in a graph, keep Python loops and per-op calls out of it, move work the step "
                      "does not wait for to another thread).";
    case PathKind::kDeviceCompute:
      return "Device compute bounds the step: make the ops on its critical path faster (fusion, 16-bit math, "
             "shapes the matrix units like), or do less work per step.";
    case PathKind::kCollectives:
      return "Collectives bound the step: overlap them with compute, or exchange less.";
    case PathKind::kCopies:
      return on_tpu ? "Copies bound the step: overlap them with compute, or offload fewer buffers to the host."
                    : "Copies bound the step: overlap them with compute (pinned memory, non-blocking copies), or copy less.";
    case PathKind::kKernelLaunch:
      return on_tpu ? "Program launches bound the step: run more of the step in one jitted function."
                    : "Kernel launches bound the step: launch fewer, larger kernels (fuse ops, capture the step in a graph).";
    case PathKind::kInput:
      return "Input bounds the step: load batches ahead of the step, in parallel, off the training thread.";
    default: return "";
  }
}

std::string_view change_noun(PathKind kind, bool on_tpu) {
  switch (kind) {
    case PathKind::kHost: return "host compute";
    case PathKind::kDeviceCompute: return "device compute";
    case PathKind::kCollectives: return "collectives";
    case PathKind::kCopies: return "copies";
    case PathKind::kKernelLaunch: return on_tpu ? "program launches" : "kernel launches";
    default: return "input";
  }
}

}  // namespace

std::optional<Recommendation> bottleneck_recommendation(const Bottleneck& b, const std::vector<Recommendation>& others) {
  const std::string_view advice = bottleneck_advice(b.kind, b.on_tpu);
  // A kind whose change saves nothing does not pace the step: no advice to change it.
  if (advice.empty() || b.saving_ms() < kMinSavingShare * b.step_ms) return std::nullopt;
  const std::string_view key = path_kind_key(b.kind);
  for (const Recommendation& r : others)
    if (r.predicted_step_ms && path_kind_of_target(r.what_if.target) == b.kind) return std::nullopt;
  const double scale = recommended_scale(b.kind);
  Recommendation r{fmt::format("{} On the path: {}.", advice, b.evidence),
                   fmt::format("{} took {}", change_noun(b.kind, b.on_tpu), scale == 0 ? "no time" : "half the time"),
                   {std::string(key), scale}, b.step_ms, b.predicted_step_ms};
  r.about_bottleneck = true;
  return r;
}

namespace {
// The step's unit (ms, or us for a step under a millisecond); tenths of it where that is a small
// share of the step, else thousandths.
std::string step_figure(double ms, double step_ms) {
  if (step_ms > 0 && step_ms < 1) return fmt::format("{:.3f}", ms * 1000);
  return step_ms >= 10 ? fmt::format("{:.1f}", ms) : fmt::format("{:.3f}", ms);
}
std::string_view step_unit(double step_ms) { return step_ms > 0 && step_ms < 1 ? "us" : "ms"; }
}  // namespace

bool Recommendation::gains_nothing() const {
  return step_ms && predicted_step_ms && *step_ms - *predicted_step_ms < kMinSavingShare * *step_ms;
}

void rank_by_predicted_saving(std::vector<Recommendation>& recommendations) {
  std::vector<size_t> slots;
  std::vector<Recommendation> predicted;
  for (size_t i = 0; i < recommendations.size(); ++i)
    if (recommendations[i].predicted_step_ms && recommendations[i].step_ms) {
      slots.push_back(i);
      predicted.push_back(std::move(recommendations[i]));
    }
  auto saving = [](const Recommendation& r) { return r.gains_nothing() ? 0.0 : *r.step_ms - *r.predicted_step_ms; };
  std::stable_sort(predicted.begin(), predicted.end(),
                   [&](const Recommendation& a, const Recommendation& b) { return saving(a) > saving(b); });
  for (size_t k = 0; k < slots.size(); ++k) recommendations[slots[k]] = std::move(predicted[k]);
}

std::string prediction_words(const Recommendation& r) {
  if (!r.predicted_step_ms || !r.step_ms) return "";
  if (r.gains_nothing() && !r.reaches_steps)
    return fmt::format("(predicted step: {} {} either way: nothing the trace shows links {} to the steps, such as a "
                       "loader thread not marked with _p/_c or an untraced thread, so the replay cannot tell)",
                       step_figure(*r.step_ms, *r.step_ms), step_unit(*r.step_ms), r.what_if.target);
  if (r.gains_nothing())
    return fmt::format("(predicted step: {} {} either way: what it changes is not on the critical path)",
                       step_figure(*r.step_ms, *r.step_ms), step_unit(*r.step_ms));
  return fmt::format("(predicted step: {} -> {} {})", step_figure(*r.step_ms, *r.step_ms),
                     step_figure(*r.predicted_step_ms, *r.step_ms), step_unit(*r.step_ms));
}

nlohmann::json to_json(const Recommendation& r) {
  auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"text", r.text},
          {"predicted_step_ms", number(r.predicted_step_ms)},
          {"step_ms", number(r.step_ms)},
          {"change", r.change.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.change)},
          {"what_if", r.what_if.target.empty()
                          ? nlohmann::json(nullptr)
                          : nlohmann::json{{"target", r.what_if.target}, {"scale", r.what_if.scale}}},
          {"gains_nothing", r.predicted_step_ms ? nlohmann::json(r.gains_nothing()) : nlohmann::json(nullptr)},
          {"reaches_steps", r.predicted_step_ms ? nlohmann::json(r.reaches_steps) : nlohmann::json(nullptr)}};
}

}  // namespace mlprof::analysis
