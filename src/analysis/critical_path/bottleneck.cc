#include "analysis/critical_path/bottleneck.h"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "analysis/hlo_ops.h"

namespace mlprof::analysis {
namespace {

// A TPU runs XLA programs the host launches and offloads buffers to host memory: its words.
std::string_view kind_words(PathKind k, bool on_tpu) {
  switch (k) {
    case PathKind::kInput: return "input (loading or waiting for batches)";
    case PathKind::kHost: return "host compute (framework, Python and CPU ops)";
    case PathKind::kKernelLaunch: return on_tpu ? "program launches" : "kernel launches";
    case PathKind::kDeviceCompute: return "device compute";
    case PathKind::kCollectives: return "collectives";
    case PathKind::kCopies: return "copies";
    case PathKind::kWaitingForRank: return "waiting for another rank";
    default: return "idle time (nothing traced runs)";
  }
}

std::string change_words(PathKind k, bool on_tpu, GpuVendor vendor) {
  switch (k) {
    case PathKind::kInput: return "If input took no time (prefetched, loaded in parallel)";
    case PathKind::kKernelLaunch:
      return on_tpu ? "If launches took no time (fewer, larger jitted programs)"
                    : fmt::format("If launches took no time ({}, fused kernels)", gpu_terms(vendor).graphs);
    case PathKind::kCopies:
      return on_tpu ? "If copies took no time (overlapped with compute, fewer buffers offloaded to the host)"
                    : "If copies took no time (overlapped with compute, pinned memory)";
    case PathKind::kIdle: return "If the untraced gaps took no time";
    default: return "If it took half the time";
  }
}

}  // namespace

double recommended_scale(PathKind kind) {
  switch (kind) {
    case PathKind::kHost:
    case PathKind::kDeviceCompute:
    case PathKind::kCollectives: return 0.5;
    default: return 0;
  }
}

std::optional<Bottleneck> bottleneck_of(const CriticalPath& c) {
  if (c.steps.empty() || c.path_ms <= 0) return std::nullopt;
  const bool on_tpu = c.on_tpu;
  Bottleneck b;
  b.on_tpu = on_tpu;
  b.kind = c.bottleneck();
  const double kind_ms = c.kind_ms[size_t(b.kind)];
  b.share_pct = 100 * kind_ms / c.path_ms;
  b.step_ms = c.path_ms;
  b.predicted_step_ms = c.bottleneck_change.step_ms;
  b.change = change_words(b.kind, on_tpu, c.gpu_vendor);
  b.input_path_pct = 100 * c.kind_ms[size_t(PathKind::kInput)] / c.path_ms;
  b.input_removed_step_ms = c.removed_step_ms[size_t(PathKind::kInput)];
  const bool device = b.kind == PathKind::kDeviceCompute || b.kind == PathKind::kCollectives || b.kind == PathKind::kCopies;
  const std::vector<PathTime>& named = device ? c.top_kernels : c.top_ops;
  b.evidence = fmt::format("{} of the {} critical path a step", step_duration(kind_ms, c.path_ms),
                           step_duration(c.path_ms, c.path_ms));
  // An XLA op by its HLO op name ("copy-done.2"), not its instruction's whole text.
  if (!named.empty())
    b.evidence += fmt::format("; the most on the path: {} ({})",
                              named.front().name.starts_with('%') ? hlo_op_name_of_text(named.front().name)
                                                                  : std::string_view(named.front().name),
                              step_duration(named.front().ms, c.path_ms));
  if (!c.prediction_note.empty()) b.evidence += "; " + c.prediction_note;
  return b;
}

std::optional<Bottleneck> find_bottleneck(const model::Profile& profile, const StepAnalysis& steps,
                                          const std::vector<WhatIfChange>& changes) {
  return find_bottleneck(profile, steps, [&changes] { return changes; });
}

std::optional<Bottleneck> find_bottleneck(const model::Profile& profile, const StepAnalysis& steps,
                                          const WhatIfSource& changes) {
  std::optional<std::vector<WhatIfChange>> asked;  // asked once, for the first host's path
  const WhatIfSource once = [&] {
    if (!asked) asked = changes();
    return *asked;
  };
  // Per host (each rank bounded by its own path), the host whose steps are longest: what a
  // run read one file at a time gives too.
  std::map<uint32_t, std::vector<StepSpan>> by_host;
  for (const StepSpan& span : step_spans(steps)) by_host[span.host].push_back(span);
  std::optional<Bottleneck> longest;
  for (const auto& [host, spans] : by_host) {
    const CriticalPath path =
        compute_critical_path_of_spans(profile, steps, spans, once, WhatIfDefaults::kSkipUnmatched, PathDetail::kSummary);
    auto b = bottleneck_of(path);
    if (b && (!longest || b->step_ms > longest->step_ms)) {
      b->what_if = path.what_if;
      longest = std::move(b);
    }
  }
  return longest;
}

std::string input_disagreement(const Bottleneck& b, double input_pct, double device_waits_host_pct) {
  if (input_pct <= kInputMajorityPct || b.kind == PathKind::kInput) return "";
  // The breakdown's input holds the device waiting for the host (§5.2), whatever the host does.
  const std::string waiting =
      device_waits_host_pct >= input_pct / 2
          ? fmt::format(", {:.1f} points of it the device waiting for the host, which does other work then", device_waits_host_pct)
          : "";
  // Savings below this share of the step are the replay's noise: "would not shorten it".
  constexpr double kNoSavingShare = 0.01;
  const std::string saving =
      b.step_ms - b.input_removed_step_ms < kNoSavingShare * b.step_ms
          ? std::string("taking input away would not shorten the step")
          : fmt::format("taking input away would shorten a step from {} to {} only", step_duration(b.step_ms, b.step_ms),
                        step_duration(b.input_removed_step_ms, b.step_ms));
  return fmt::format("The step breakdown counts {:.1f}% of the step as input{}; but {:.1f}% of the critical path "
                     "waits for input and {}: {} bounds it.",
                     input_pct, waiting, b.input_path_pct, saving, kind_words(b.kind, b.on_tpu));
}

std::string step_duration(double ms, double reference_ms) {
  if (reference_ms > 0 && reference_ms < 1) return fmt::format("{:.3f} us", ms * 1000);
  return fmt::format("{:.3f} ms", ms);
}

std::string Bottleneck::sentence() const {
  // Where no change saves time, the largest kind is named, and the sentence says that it does
  // not pace the step, rather than "bound by" beside a prediction that does not move.
  if (saving_ms() < kMinSavingShare * step_ms) {
    std::string if_changed = change;
    if (!if_changed.empty()) if_changed[0] = char(std::tolower(static_cast<unsigned char>(if_changed[0])));
    return fmt::format("{:.1f}% of the step's critical path is {}, yet no change the trace can replay shortens "
                       "the step ({}: {} -> {} a step): what paces it is held at its measured time (untraced "
                       "gaps, or dependencies the trace does not show).",
                       share_pct, kind_words(kind, on_tpu), if_changed, step_duration(step_ms, step_ms),
                       step_duration(predicted_step_ms, step_ms));
  }
  return fmt::format("The step is bound by {}: {:.1f}% of its critical path. {}: {} -> {} a step.",
                     kind_words(kind, on_tpu), share_pct, change, step_duration(step_ms, step_ms),
                     step_duration(predicted_step_ms, step_ms));
}

nlohmann::json to_json(const Bottleneck& b) {
  return {{"kind", path_kind_key(b.kind)}, {"share_pct", b.share_pct},   {"evidence", b.evidence},
          {"saving_ms", b.saving_ms()},    {"step_ms", b.step_ms},       {"predicted_step_ms", b.predicted_step_ms},
          {"change", b.change},            {"sentence", b.sentence()},
          {"input_note", b.input_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.input_note)}};
}

}  // namespace mlprof::analysis
