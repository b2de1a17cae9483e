#include "analysis/critical_path/bottleneck.h"

#include <fmt/format.h>

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

std::string_view change_words(PathKind k, bool on_tpu) {
  switch (k) {
    case PathKind::kInput: return "If input took no time (prefetched, loaded in parallel)";
    case PathKind::kKernelLaunch:
      return on_tpu ? "If launches took no time (fewer, larger jitted programs)"
                    : "If launches took no time (CUDA graphs, fused kernels)";
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
  b.change = std::string(change_words(b.kind, on_tpu));
  const bool device = b.kind == PathKind::kDeviceCompute || b.kind == PathKind::kCollectives || b.kind == PathKind::kCopies;
  const std::vector<PathTime>& named = device ? c.top_kernels : c.top_ops;
  b.evidence = fmt::format("{:.3f} ms of the {:.3f} ms critical path a step", kind_ms, c.path_ms);
  // An XLA op by its HLO op name ("copy-done.2"), not its instruction's whole text.
  if (!named.empty())
    b.evidence += fmt::format("; the most on the path: {} ({:.3f} ms)",
                              named.front().name.starts_with('%') ? hlo_op_name_of_text(named.front().name)
                                                                  : std::string_view(named.front().name),
                              named.front().ms);
  if (!c.prediction_note.empty()) b.evidence += "; " + c.prediction_note;
  return b;
}

std::optional<Bottleneck> find_bottleneck(const model::Profile& profile, const StepAnalysis& steps) {
  // Per host (each rank bounded by its own path), the host whose steps are longest: what a
  // run read one file at a time gives too.
  std::map<uint32_t, std::vector<StepSpan>> by_host;
  for (const StepSpan& span : step_spans(steps)) by_host[span.host].push_back(span);
  std::optional<Bottleneck> longest;
  for (const auto& [host, spans] : by_host) {
    auto b = bottleneck_of(compute_critical_path_of_spans(profile, steps, spans, {}, false));
    if (b && (!longest || b->step_ms > longest->step_ms)) longest = std::move(b);
  }
  return longest;
}

std::string Bottleneck::sentence() const {
  return fmt::format("The step is bound by {}: {:.1f}% of its critical path. {}: {:.3f} ms -> {:.3f} ms a step.",
                     kind_words(kind, on_tpu), share_pct, change, step_ms, predicted_step_ms);
}

nlohmann::json to_json(const Bottleneck& b) {
  return {{"kind", path_kind_key(b.kind)}, {"share_pct", b.share_pct},   {"evidence", b.evidence},
          {"saving_ms", b.saving_ms()},    {"step_ms", b.step_ms},       {"predicted_step_ms", b.predicted_step_ms},
          {"change", b.change},            {"sentence", b.sentence()}};
}

}  // namespace mlprof::analysis
