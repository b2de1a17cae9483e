#include "analysis/timeline_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "analysis/comm_compute_overlap.h"
#include "analysis/gpu_activity.h"
#include "analysis/gpu_work_order.h"
#include "analysis/kernel_launch_stats.h"
#include "analysis/stragglers.h"
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

std::string_view timeline_rule_key(TimelineRule rule) {
  static constexpr std::array<std::string_view, 5> kKeys = {"sync_copies", "tiny_kernels", "blocking_sync",
                                                            "low_overlap", "straggler_rank"};
  return kKeys[size_t(rule)];
}

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
  for (uint32_t h = 0; h < p.hosts.size(); ++h) {
    HostFindings& f = hosts[h];
    f.host = std::string(p.strings.view(p.hosts[h].name));
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
      if (p.name(w.event).find("Pageable") != std::string_view::npos)
        f.pageable_copies.add(launching_op(p, w.launch), host.end_ps(w) - host.begin_ps(w));
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

std::vector<TimelineAdvice> timeline_advice(const std::vector<TimelineFindings>& hosts, bool steps,
                                            const StragglerAnalysis* stragglers) {
  const size_t n_hosts = hosts.size();
  const char* per = steps ? "per step" : "in the profile";
  auto worst = [&](auto share) {
    size_t best = 0;
    for (size_t h = 1; h < hosts.size(); ++h)
      if (share(hosts[h]) > share(hosts[best])) best = h;
    return best;
  };
  std::vector<TimelineAdvice> out;

  // Synchronous copies.
  {
    auto share = [](const HostFindings& f) {
      return pct(double(f.sync_copies.total_ps + f.pageable_copies.total_ps), double(f.step_ps));
    };
    const HostFindings& f = hosts[worst(share)];
    if (!hosts.empty() && share(f) >= kSyncCopyThresholdPct) {
      const double n = double(std::max<size_t>(f.steps, 1));
      std::string text = fmt::format("Synchronous copies take {:.1f}% of the step time{}:", share(f), on_host(f.host, n_hosts));
      const GpuTerms& gpu = gpu_terms(f.vendor);
      if (f.sync_copies.count)
        text += fmt::format(" {} blocking copy call(s) ({}Memcpy and the like), {:.3f} ms {}{};", f.sync_copies.count,
                            gpu.api, ms(f.sync_copies.total_ps) / n, per, most_in(f.sync_copies, f.steps));
      if (f.pageable_copies.count)
        text += fmt::format(" {} copies from pageable host memory, {:.3f} ms {}{};", f.pageable_copies.count,
                            ms(f.pageable_copies.total_ps) / n, per, most_in(f.pageable_copies, f.steps));
      text += fmt::format(" the host waits for each. Copy from pinned memory (pin_memory=True in the DataLoader) with "
                          "{}MemcpyAsync / .to(device, non_blocking=True) so copies overlap with compute.",
                          gpu.api);
      const auto top = (f.sync_copies.total_ps >= f.pageable_copies.total_ps ? f.sync_copies : f.pageable_copies).top();
      out.push_back({TimelineRule::kSyncCopies, text, f.host,
                     ms(f.sync_copies.total_ps + f.pageable_copies.total_ps) / n, std::string(top.first)});
    }
  }
  // Many tiny kernels.
  {
    auto share = [](const HostFindings& f) {
      return f.launches.short_kernels >= kTinyKernelsMinimum
                 ? pct(double(f.launches.short_kernels), double(f.launches.launches)) : 0.0;
    };
    const HostFindings& f = hosts[worst(share)];
    if (!hosts.empty() && share(f) >= kTinyKernelsThresholdPct) {
      const KernelLaunchStats& l = f.launches;
      const double n = double(std::max<size_t>(f.steps, 1));
      std::string text = fmt::format(
          "Many tiny kernels{}: {} of {} launches ({:.0f}%) run shorter on the GPU than their launch call takes "
          "({:.3f} ms of GPU work for {:.3f} ms of launching {}), so the GPU waits for the host",
          on_host(f.host, n_hosts), l.short_kernels, l.launches, share(f), ms(l.short_kernels_gpu_ps) / n,
          ms(l.short_kernels_cpu_ps) / n, per);
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
      out.push_back({TimelineRule::kTinyKernels, text, f.host, ms(l.short_kernels_cpu_ps) / n, op});
    }
  }
  // Blocking synchronisation.
  {
    auto share = [](const HostFindings& f) { return pct(double(f.blocking_syncs.total_ps), double(f.step_ps)); };
    const HostFindings& f = hosts[worst(share)];
    if (!hosts.empty() && share(f) >= kBlockingSyncThresholdPct) {
      const double n = double(std::max<size_t>(f.steps, 1));
      const std::string text = fmt::format(
          "Blocking synchronisation takes {:.1f}% of the step time{}: {} {api}DeviceSynchronize / "
          "{api}StreamSynchronize / event synchronize call(s), {:.3f} ms {}{}. The host waits for the GPU instead "
          "of queuing the next work: avoid .item(), .cpu(), printing tensors and explicit synchronize calls inside "
          "the step (log every N steps instead).",
          share(f), on_host(f.host, n_hosts), f.blocking_syncs.count, ms(f.blocking_syncs.total_ps) / n, per,
          most_in(f.blocking_syncs, f.steps), fmt::arg("api", gpu_terms(f.vendor).api));
      out.push_back({TimelineRule::kBlockingSync, text, f.host, ms(f.blocking_syncs.total_ps) / n,
                     std::string(f.blocking_syncs.top().first)});
    }
  }
  // Low overlap of communication with computation.
  {
    auto exposed = [](const HostFindings& f) {
      const auto o = f.overlap.overlap_pct();
      const bool matters = o && *o < kLowOverlapThresholdPct &&
                           pct(double(f.overlap.communication_ps), double(f.gpu_busy_ps)) >= kCommunicationShareThresholdPct;
      return matters ? double(f.overlap.exposed_communication_ps()) : 0.0;
    };
    const HostFindings& f = hosts[worst(exposed)];
    if (!hosts.empty() && exposed(f) > 0) {
      const double n = double(std::max<size_t>(f.steps, 1));
      const std::string text = fmt::format(
          "Communication overlaps little with computation{}: {:.1f}% of its {:.3f} ms {} runs while compute "
          "kernels run, leaving {:.3f} ms {} of exposed communication ({:.1f}% of the GPU's busy time). Overlap "
          "gradient all-reduce with the backward pass (DDP buckets: tune bucket_cap_mb; FSDP prefetching), and "
          "avoid synchronising before collectives.",
          on_host(f.host, n_hosts), *f.overlap.overlap_pct(), ms(f.overlap.communication_ps) / n, per,
          ms(f.overlap.exposed_communication_ps()) / n, per,
          pct(double(f.overlap.communication_ps), double(f.gpu_busy_ps)));
      out.push_back({TimelineRule::kLowOverlap, text, f.host, ms(f.overlap.exposed_communication_ps()) / n, ""});
    }
  }
  // A straggler rank.
  if (steps && n_hosts > 1 && stragglers != nullptr) {
    const StragglerAnalysis& s = *stragglers;
    if (s.straggler >= 0) {
      const StragglerRank& r = s.ranks[size_t(s.straggler)];
      const std::string text = straggler_sentence(s) +
                               " Look at what it does differently (uneven data shards or sequence lengths, a slower "
                               "device, other work on its host).";
      out.push_back({TimelineRule::kStragglerRank, text, r.host, s.matched_calls ? s.late_per_step_ms : 0.0, ""});
    }
  }
  return out;
}

}  // namespace mlprof::analysis
