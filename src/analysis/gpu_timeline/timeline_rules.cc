#include "analysis/gpu_timeline/timeline_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "analysis/gpu_timeline/comm_compute_overlap.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/gpu_work_order.h"
#include "analysis/gpu_timeline/kernel_launch_stats.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/host_labels.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::Profile;

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

enum class HostCall : int8_t { kUnknown = -1, kNone, kSyncCopy, kBlockingSync };

HostCall host_call_of(std::string_view n) {
  static constexpr std::array<std::string_view, 10> kSyncCopies = {
      "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemset", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
      "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "hipMemcpy", "hipMemset"};
  static constexpr std::array<std::string_view, 8> kSyncs = {
      "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize",
      "cuStreamSynchronize", "cuEventSynchronize", "hipDeviceSynchronize", "hipStreamSynchronize"};
  for (auto c : kSyncCopies)
    if (n == c) return HostCall::kSyncCopy;
  for (auto c : kSyncs)
    if (n == c) return HostCall::kBlockingSync;
  return HostCall::kNone;
}

using HostFindings = TimelineFindings;
using ByOp = TimeByOp;

std::string most_in(const ByOp& by_op, size_t steps) {
  const auto [op, ps] = by_op.top();
  if (op.empty()) return "";
  return fmt::format(", most in {} ({:.3f} ms per step)", op, ms(ps) / double(std::max<size_t>(steps, 1)));
}

std::string on_host(const std::string& host, size_t hosts) { return hosts > 1 ? " on " + host : ""; }

void scan_host_calls(const Profile& p, uint32_t host_index, const std::vector<std::pair<int64_t, int64_t>>& windows,
                     std::vector<int8_t>& call_of_name, HostFindings* f) {
  const model::Host& host = p.hosts[host_index];
  for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
    const model::Plane& plane = p.planes[pl];
    if (plane.kind != model::PlaneKind::kHostThreads) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        int8_t& kind = call_of_name[p.events.name[e]];
        if (kind == int8_t(HostCall::kUnknown)) kind = int8_t(host_call_of(p.name(e)));
        if (kind == int8_t(HostCall::kNone)) continue;
        const int64_t t = p.start_ps(e);
        auto it = std::upper_bound(windows.begin(), windows.end(), std::pair{t, INT64_MAX});
        if (it == windows.begin() || std::prev(it)->second <= t) continue;  // outside the steps
        ByOp& into = kind == int8_t(HostCall::kSyncCopy) ? f->sync_copies : f->blocking_syncs;
        into.add(launching_op(p, e), p.duration_ps(e));
      }
    }
  }
}

}  // namespace

void TimeByOp::add(std::string_view op, int64_t ps) {
  total_ps += ps;
  ++count;
  auto it = ops.find(op);
  if (it == ops.end()) it = ops.emplace(std::string(op), 0).first;
  it->second += ps;
}

std::pair<std::string_view, int64_t> TimeByOp::top() const {
  std::pair<std::string_view, int64_t> best{{}, 0};
  for (const auto& [op, ps] : ops)
    if (!op.empty() && (ps > best.second || (ps == best.second && std::string_view(op) < best.first))) best = {op, ps};
  return best;
}

namespace {

std::vector<HostFindings> findings_of(const Profile& p, const StepGrouping& g, const GpuActivity& gpu, bool steps) {
  std::vector<HostFindings> hosts(p.hosts.size());
  std::vector<std::vector<std::pair<int64_t, int64_t>>> windows(p.hosts.size());
  if (steps)
    for (uint32_t s : g.selected) windows[g.steps[s].host].push_back({g.steps[s].begin_ps, g.steps[s].end_ps});
  if (!steps) {  // the whole profile of each host is one window
    for (const model::Line& line : p.lines) {
      if (line.num_events == 0) continue;
      auto& w = windows[p.planes[line.plane].host];
      if (w.empty()) w.push_back({INT64_MAX, INT64_MIN});
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
        w[0] = {std::min(w[0].first, p.start_ps(e)), std::max(w[0].second, p.end_ps(e))};
    }
  }
  std::vector<int8_t> call_of_name(p.names.size(), int8_t(HostCall::kUnknown));
  std::vector<int8_t> pageable_of_name(p.names.size(), -1);
  for (uint32_t h = 0; h < p.hosts.size(); ++h) {
    HostFindings& f = hosts[h];
    f.host = std::string(p.strings.view(p.hosts[h].name));
    f.rank = p.hosts[h].rank;
    f.vendor = host_gpu_vendor(p, h);
    std::sort(windows[h].begin(), windows[h].end());
    f.steps = windows[h].size();
    for (const auto& [b, e] : windows[h]) f.step_ps += e - b;
    scan_host_calls(p, h, windows[h], call_of_name, &f);
  }
  for (const HostGpuActivity& host : gpu.hosts) {
    HostFindings& f = hosts[host.host];
    f.launches = compute_kernel_launch_stats(p, host, 3, false);
    f.overlap = compute_comm_compute_overlap(host);
    SortedUnion busy;
    visit_by_start(host, [&](const GpuWork& w) { busy.add(host.begin_ps(w), host.end_ps(w)); });
    for (const GpuWork& w : host.work) {
      int8_t& pageable = pageable_of_name[p.events.name[w.event]];  // the name searched once
      if (pageable < 0) pageable = p.name(w.event).find("Pageable") != std::string_view::npos;
      if (pageable) f.pageable_copies.add(launching_op(p, w.launch), host.end_ps(w) - host.begin_ps(w));
    }
    f.gpu_busy_ps = busy.length();
  }
  return hosts;
}

GpuActivity gpu_of(const Profile& p, const StepGrouping& g, bool steps) {
  return collect_gpu_activity(p, g, steps ? GpuScope::kAnalysedSteps : GpuScope::kWholeProfile);
}

}  // namespace

std::vector<TimelineFindings> timeline_findings(const Profile& p, const StepGrouping& g, bool steps) {
  return findings_of(p, g, gpu_of(p, g, steps), steps);
}

std::vector<TimelineAdvice> timeline_advice(const Profile& p, const StepGrouping& g) {
  const bool steps = !g.selected.empty();
  const GpuActivity gpu = gpu_of(p, g, steps);
  std::optional<StragglerAnalysis> stragglers;
  if (steps && p.hosts.size() > 1) stragglers = compute_stragglers(p, g, gpu);
  return timeline_advice(findings_of(p, g, gpu, steps), steps, stragglers ? &*stragglers : nullptr);
}

namespace {

// What the rules read: every host's findings (one at least), and whether they are over steps.
struct RuleInput {
  const std::vector<HostFindings>& hosts;
  bool steps;
  const char* per;  // "per step" or "in the profile"
  std::vector<std::string> labels;  // what the text calls each host: its rank where known

  // The host where `share` is largest (ties: the first).
  template <class Share>
  const HostFindings& worst(Share share) const {
    size_t best = 0;
    for (size_t h = 1; h < hosts.size(); ++h)
      if (share(hosts[h]) > share(hosts[best])) best = h;
    return hosts[best];
  }
  std::string on(const HostFindings& f) const { return on_host(labels[size_t(&f - hosts.data())], hosts.size()); }
};

double steps_of(const HostFindings& f) { return double(std::max<size_t>(f.steps, 1)); }

std::optional<TimelineAdvice> sync_copies_rule(const RuleInput& in) {
  auto share = [](const HostFindings& f) {
    return pct(double(f.sync_copies.total_ps + f.pageable_copies.total_ps), double(f.step_ps));
  };
  const HostFindings& f = in.worst(share);
  if (share(f) < kSyncCopyThresholdPct) return std::nullopt;
  const double n = steps_of(f);
  std::string text = fmt::format("Synchronous copies take {:.1f}% of the step time{}:", share(f), in.on(f));
  const GpuTerms& gpu = gpu_terms(f.vendor);
  if (f.sync_copies.count)
    text += fmt::format(" {} blocking copy call(s) ({}Memcpy and the like), {:.3f} ms {}{};", f.sync_copies.count,
                        gpu.api, ms(f.sync_copies.total_ps) / n, in.per, most_in(f.sync_copies, f.steps));
  if (f.pageable_copies.count)
    text += fmt::format(" {} copies from pageable host memory, {:.3f} ms {}{};", f.pageable_copies.count,
                        ms(f.pageable_copies.total_ps) / n, in.per, most_in(f.pageable_copies, f.steps));
  text += fmt::format(" the host waits for each. Copy from pinned memory (pin_memory=True in the DataLoader) with "
                      "{}MemcpyAsync / .to(device, non_blocking=True) so copies overlap with compute.",
                      gpu.api);
  const auto top = (f.sync_copies.total_ps >= f.pageable_copies.total_ps ? f.sync_copies : f.pageable_copies).top();
  return TimelineAdvice{TimelineRule::kSyncCopies, text, f.host,
                        ms(f.sync_copies.total_ps + f.pageable_copies.total_ps) / n, std::string(top.first)};
}

std::optional<TimelineAdvice> tiny_kernels_rule(const RuleInput& in) {
  auto share = [](const HostFindings& f) {
    return f.launches.short_kernels >= kTinyKernelsMinimum
               ? pct(double(f.launches.short_kernels), double(f.launches.launches)) : 0.0;
  };
  const HostFindings& f = in.worst(share);
  if (share(f) < kTinyKernelsThresholdPct) return std::nullopt;
  const KernelLaunchStats& l = f.launches;
  const double n = steps_of(f);
  std::string text = fmt::format(
      "Many tiny kernels{}: {} of {} launches ({:.0f}%) run shorter on the GPU than their launch call takes "
      "({:.3f} ms of GPU work for {:.3f} ms of launching {}), so the GPU waits for the host",
      in.on(f), l.short_kernels, l.launches, share(f), ms(l.short_kernels_gpu_ps) / n, ms(l.short_kernels_cpu_ps) / n,
      in.per);
  std::string op;
  if (!l.short_kernel_names.empty()) {
    const LaunchedKernelGroup& k = l.short_kernel_names.front();
    op = k.op;
    text += fmt::format("; the most frequent is {} ({} launches{})", k.name, k.count,
                        k.op.empty() ? "" : ", from " + k.op);
  }
  text += fmt::format(". Fuse small ops (torch.compile, fused optimizers such as foreach/fused Adam), capture the "
                      "step in {}, or raise the batch size so each kernel does more work.",
                      gpu_terms(f.vendor).graphs);
  return TimelineAdvice{TimelineRule::kTinyKernels, text, f.host, ms(l.short_kernels_cpu_ps) / n, op};
}

std::optional<TimelineAdvice> blocking_sync_rule(const RuleInput& in) {
  auto share = [](const HostFindings& f) { return pct(double(f.blocking_syncs.total_ps), double(f.step_ps)); };
  const HostFindings& f = in.worst(share);
  if (share(f) < kBlockingSyncThresholdPct) return std::nullopt;
  const double n = steps_of(f);
  const std::string text = fmt::format(
      "Blocking synchronisation takes {:.1f}% of the step time{}: {} {api}DeviceSynchronize / "
      "{api}StreamSynchronize / event synchronize call(s), {:.3f} ms {}{}. The host waits for the GPU instead "
      "of queuing the next work: avoid .item(), .cpu(), printing tensors and explicit synchronize calls inside "
      "the step (log every N steps instead).",
      share(f), in.on(f), f.blocking_syncs.count, ms(f.blocking_syncs.total_ps) / n, in.per,
      most_in(f.blocking_syncs, f.steps), fmt::arg("api", gpu_terms(f.vendor).api));
  return TimelineAdvice{TimelineRule::kBlockingSync, text, f.host, ms(f.blocking_syncs.total_ps) / n,
                        std::string(f.blocking_syncs.top().first)};
}

std::optional<TimelineAdvice> low_overlap_rule(const RuleInput& in) {
  auto exposed = [](const HostFindings& f) {
    const auto o = f.overlap.overlap_pct();
    const bool matters = o && *o < kLowOverlapThresholdPct &&
                         pct(double(f.overlap.communication_ps), double(f.gpu_busy_ps)) >= kCommunicationShareThresholdPct;
    return matters ? double(f.overlap.exposed_communication_ps()) : 0.0;
  };
  const HostFindings& f = in.worst(exposed);
  if (exposed(f) <= 0) return std::nullopt;
  const double n = steps_of(f);
  const std::string text = fmt::format(
      "Communication overlaps little with computation{}: {:.1f}% of its {:.3f} ms {} runs while compute "
      "kernels run, leaving {:.3f} ms {} of exposed communication ({:.1f}% of the GPU's busy time). Overlap "
      "gradient all-reduce with the backward pass (DDP buckets: tune bucket_cap_mb; FSDP prefetching), and "
      "avoid synchronising before collectives.",
      in.on(f), *f.overlap.overlap_pct(), ms(f.overlap.communication_ps) / n, in.per,
      ms(f.overlap.exposed_communication_ps()) / n, in.per,
      pct(double(f.overlap.communication_ps), double(f.gpu_busy_ps)));
  return TimelineAdvice{TimelineRule::kLowOverlap, text, f.host, ms(f.overlap.exposed_communication_ps()) / n, ""};
}

std::optional<TimelineAdvice> straggler_rank_rule(const RuleInput& in, const StragglerAnalysis* stragglers) {
  if (!in.steps || in.hosts.size() < 2 || stragglers == nullptr || stragglers->straggler < 0) return std::nullopt;
  const StragglerAnalysis& s = *stragglers;
  const StragglerRank& r = s.ranks[size_t(s.straggler)];
  const std::string text = straggler_sentence(s) +
                           " Look at what it does differently (uneven data shards or sequence lengths, a slower "
                           "device, other work on its host).";
  return TimelineAdvice{TimelineRule::kStragglerRank, text, r.host, s.matched_calls ? s.late_per_step_ms : 0.0, ""};
}

}  // namespace

std::vector<TimelineAdvice> timeline_advice(const std::vector<TimelineFindings>& hosts, bool steps,
                                            const StragglerAnalysis* stragglers) {
  std::vector<TimelineAdvice> out;
  if (hosts.empty()) return out;
  std::vector<int64_t> ranks;
  std::vector<std::string> files;
  for (const HostFindings& f : hosts) {
    ranks.push_back(f.rank);
    files.push_back(f.host);
  }
  const RuleInput in{hosts, steps, steps ? "per step" : "in the profile", host_labels(ranks, files)};
  for (auto advice : {sync_copies_rule(in), tiny_kernels_rule(in), blocking_sync_rule(in), low_overlap_rule(in),
                      straggler_rank_rule(in, stragglers)})
    if (advice) out.push_back(std::move(*advice));
  return out;
}

}  // namespace mlprof::analysis
