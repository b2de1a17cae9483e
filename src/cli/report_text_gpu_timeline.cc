#include <fmt/format.h>

#include <functional>
#include <optional>

#include "analysis/gpu_timeline/gpu_timeline_ranks.h"
#include "analysis/units.h"
#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {

std::string us_text(double v) { return fmt::format("{:.1f} us", v); }

void breakdown_text(const GpuTimeBreakdown& b, GpuScope scope, std::string& out) {
  out += fmt::format("  GPU time: {} {}; idle {}, computing {}, other work {}\n", format_ms(ms(b.span_ps)),
                     gpu_span_description(scope), format_pct(b.idle_pct()), format_pct(b.compute_pct()),
                     format_pct(b.non_compute_pct()));
  const double computation = b.kind_pct(GpuWorkKind::kComputation),
               communication = b.kind_pct(GpuWorkKind::kCommunication), memory = b.kind_pct(GpuWorkKind::kMemory);
  // Each kind counts the time it overlaps another (HTA's kernel breakdown does the same).
  const double kinds_sum = computation + communication + memory;
  out += wrap_text(fmt::format("Of the busy time: computation {}, communication {}, memory copies and sets {}{}",
                               format_pct(computation), format_pct(communication), format_pct(memory),
                               kinds_sum > 100.05
                                   ? fmt::format(" (kinds overlap where streams run at once: together {})",
                                                 format_pct(kinds_sum))
                                   : ""),
                   text_width(), "  ", "    ") +
         "\n";
  TextTable t({"device", "stream", "items", "busy", "computation", "communication", "memory", "idle"},
              {true, true, true, true, true, true, true, true});
  for (const GpuStreamTime& s : b.streams) {
    const auto& u = s.times.union_ps;
    t.add_row({std::to_string(s.device_ordinal), std::to_string(s.stream_id), std::to_string(s.events),
               format_ms(ms(s.times.busy_ps)), format_ms(ms(u[size_t(GpuWorkKind::kComputation)])),
               format_ms(ms(u[size_t(GpuWorkKind::kCommunication)])), format_ms(ms(u[size_t(GpuWorkKind::kMemory)])),
               format_pct(b.span_ps > 0 ? 100.0 * double(b.span_ps - s.times.busy_ps) / double(b.span_ps) : 0)});
  }
  out += t.render() + "\n";
}

void idle_text(const HostGpuTimeline& h, std::string& out) {
  const GpuIdleTime& idle = *h.idle;
  out += fmt::format(
      "  Idle time by cause (host wait: the work after the gap was launched after the gap began; kernel wait: a gap "
      "under {:.0f} us between work launched in time)\n",
      us(kKernelWaitThresholdPs));
  TextTable t({"device", "stream", "idle", "host wait", "kernel wait", "other"}, {true, true, true, true, true, true});
  for (const StreamIdleTime& s : idle.streams) {
    auto cell = [&](IdleCause c) {
      const int64_t ps = s.cause_ps[size_t(c)];
      return fmt::format("{} ({})", format_ms(ms(ps)), format_pct(s.idle_ps() ? 100.0 * double(ps) / double(s.idle_ps()) : 0));
    };
    t.add_row({std::to_string(s.device_ordinal), std::to_string(s.stream_id), format_ms(ms(s.idle_ps())),
               cell(IdleCause::kHostWait), cell(IdleCause::kKernelWait), cell(IdleCause::kOther)});
  }
  out += t.render();
  if (!idle.largest.empty()) {
    out += "\n  Longest gaps\n";
    TextTable g({"stream", "at", "length", "cause", "work after it", "launched by"},
                {true, true, true, false, false, false}, 48);
    for (size_t i = 0; i < idle.largest.size(); ++i) {
      const IdleGap& gap = idle.largest[i];
      g.add_row({std::to_string(idle.streams[gap.stream].stream_id), format_ms(ms(gap.begin_ps)),
                 format_ms(ms(gap.length_ps)), std::string(idle_cause_key(gap.cause)), h.gap_next_names[i],
                 h.gap_launch_ops[i].empty() ? "-" : h.gap_launch_ops[i]});
    }
    out += g.render();
  }
  out += "\n";
}

void overlap_text(const CommComputeOverlap& o, std::string& out) {
  if (const auto pct = o.overlap_pct())
    out += fmt::format(
        "  Communication/computation overlap: {} of the {} of communication runs beside computation; {} overlaps "
        "nothing\n\n",
        format_pct(*pct), format_ms(ms(o.communication_ps)), format_ms(ms(o.exposed_communication_ps())));
  else
    out += "  Communication/computation overlap: no communication kernels\n\n";
}

void launches_text(const KernelLaunchStats& k, std::string& out) {
  out += fmt::format(
      "  Kernel launches: {}; delay from the call's end to the work's start: median {}, mean {}, max {}\n"
      "  Launch-bound (the work is shorter than its launch call, a call of at most {:.0f} us): {} ({} of GPU work "
      "for {} of calls); calls over {:.0f} us: {}; delays over {:.0f} us: {}\n",
      k.launches, us_text(k.median_launch_delay_us), us_text(k.mean_launch_delay_us), us_text(k.max_launch_delay_us),
      us(kLaunchRuntimeCutoffPs), k.short_kernels, format_ms(ms(k.short_kernels_gpu_ps)),
      format_ms(ms(k.short_kernels_cpu_ps)), us(kLaunchRuntimeCutoffPs), k.runtime_outliers, us(kLaunchDelayCutoffPs),
      k.long_delay_kernels);
  if (!k.short_kernel_names.empty()) {
    out += "\n  Most frequent launch-bound work\n";
    TextTable t({"count", "GPU", "calls", "name", "op"}, {true, true, true, false, false}, 48);
    for (const LaunchedKernelGroup& g : k.short_kernel_names)
      t.add_row({std::to_string(g.count), format_ms(ms(g.gpu_ps)), format_ms(ms(g.cpu_ps)), g.name,
                 g.op.empty() ? "-" : g.op});
    out += t.render();
  }
  if (!k.longest_delays.empty()) {
    out += "\n  Longest launch delays\n";
    TextTable t({"at", "delay", "call", "GPU", "name", "op"}, {true, true, true, true, false, false}, 48);
    for (const DelayedLaunch& d : k.longest_delays)
      t.add_row({format_ms(ms(d.begin_ps)), format_ms(ms(d.delay_ps)), format_ms(ms(d.cpu_ps)), format_ms(ms(d.gpu_ps)),
                 d.name, d.op.empty() ? "-" : d.op});
    out += t.render();
  }
  out += "\n";
}

void queue_text(const std::vector<StreamQueueLength>& queue, std::string& out) {
  out += "  GPU queue length (work launched and not yet started; the trace viewer draws it per stream)\n";
  TextTable t({"device", "stream", "max", "mean", "mean at changes (HTA)"}, {true, true, true, true, true});
  for (const StreamQueueLength& q : queue)
    t.add_row({std::to_string(q.device_ordinal), std::to_string(q.stream_id), std::to_string(q.max),
               fmt::format("{:.3f}", q.mean), fmt::format("{:.3f}", q.mean_at_changes)});
  out += t.render() + "\n";
}

// Every rank's headline figures in one table, before any rank's detail: the columns of the
// parts the tool computed.
void ranks_text(const GpuTimeline& t, std::string& out) {
  const std::vector<GpuTimelineRankRow> rows = gpu_timeline_rank_rows(t);
  std::vector<std::string> head = {"rank"};
  std::vector<std::function<std::string(const GpuTimelineRankRow&)>> cells;
  auto column = [&](std::string name, std::function<std::string(const GpuTimelineRankRow&)> cell) {
    head.push_back(std::move(name));
    cells.push_back(std::move(cell));
  };
  auto pct = [](const std::optional<double>& v) { return v ? format_pct(*v) : std::string("-"); };
  auto msv = [](const std::optional<double>& v) { return v ? format_ms(*v) : std::string("-"); };
  if (t.parts & kGpuTimeBreakdownPart) {
    column("GPU time", [&](const auto& r) { return msv(r.span_ms); });
    column("idle", [&](const auto& r) { return pct(r.idle_pct); });
    column("computation", [&](const auto& r) { return pct(r.computation_pct); });
    column("communication", [&](const auto& r) { return pct(r.communication_pct); });
    column("memory", [&](const auto& r) { return pct(r.memory_pct); });
  }
  if (t.parts & kGpuIdleTimePart) {
    column("idle (streams)", [&](const auto& r) { return msv(r.idle_ms); });
    column("host wait", [&](const auto& r) { return pct(r.host_wait_pct); });
    column("kernel wait", [&](const auto& r) { return pct(r.kernel_wait_pct); });
    column("other", [&](const auto& r) { return pct(r.other_wait_pct); });
  }
  if (t.parts & kCommComputeOverlapPart) {
    column("communication", [&](const auto& r) { return msv(r.communication_ms); });
    column("overlapped", [&](const auto& r) { return pct(r.overlap_pct); });
  }
  if (t.parts & kKernelLaunchStatsPart) {
    column("launches", [](const auto& r) { return r.launches ? fmt::format("{:.0f}", *r.launches) : "-"; });
    column("median delay", [](const auto& r) { return r.median_launch_delay_us ? us_text(*r.median_launch_delay_us) : "-"; });
    column("launch-bound", [](const auto& r) { return r.launch_bound ? fmt::format("{:.0f}", *r.launch_bound) : "-"; });
  }
  if (t.parts & kGpuQueueLengthPart) {
    column("queue max", [](const auto& r) { return r.queue_max ? fmt::format("{:.0f}", *r.queue_max) : "-"; });
    column("queue mean", [](const auto& r) { return r.queue_mean ? fmt::format("{:.3f}", *r.queue_mean) : "-"; });
  }
  std::vector<bool> right(head.size(), true);
  right[0] = false;
  TextTable table(head, right);
  for (const GpuTimelineRankRow& r : rows) {
    std::vector<std::string> row = {r.host};
    for (const auto& cell : cells) row.push_back(cell(r));
    table.add_row(row);
  }
  std::string notes;
  if (t.parts & kGpuTimeBreakdownPart) notes += "; idle and each kind as shares of the rank's GPU time";
  if (t.parts & kGpuIdleTimePart) notes += "; idle causes as shares of the streams' idle time";
  if (t.parts & kCommComputeOverlapPart) notes += "; overlapped: the share of communication beside computation";
  if (t.parts & kGpuQueueLengthPart) notes += "; queue: the busiest stream's";
  out += wrap_text("Ranks (one row each" + notes + ")", text_width(), "", "  ");
  out += table.render() + "\n";
}

}  // namespace

std::string render_text(const GpuTimeline& t) {
  std::string out = "GPU timeline\n\n";
  if (t.hosts.empty()) return out + "  No GPU work was found.\n";
  if (t.hosts.size() > 1) ranks_text(t, out);
  for (const HostGpuTimeline& h : t.hosts) {
    out += fmt::format("Host {} ({})\n\n", h.host, h.scope_note);
    if (h.breakdown) breakdown_text(*h.breakdown, t.scope, out);
    if (h.idle) idle_text(h, out);
    if (h.overlap) overlap_text(*h.overlap, out);
    if (h.launches) launches_text(*h.launches, out);
    if (h.queue) queue_text(*h.queue, out);
  }
  return out;
}

std::string render_text(const StragglerAnalysis& s) {
  std::string out = "Stragglers\n\n";
  if (s.ranks.size() < 2)
    return out + wrap_text(fmt::format("Stragglers need two or more ranks (hosts) with steps; {} steps.",
                                       s.ranks.empty() ? std::string("none has") : "only " + s.ranks.front().host + " has"),
                           text_width(), "  ", "  ") + "\n";
  // Ranks are compared step by step, matched by step number.
  if (s.steps.empty())
    return out + wrap_text(fmt::format("The {} ranks with steps have no step number in common, so no step can be "
                                       "compared across them (steps are matched by their number).",
                                       s.ranks.size()),
                           text_width(), "  ", "  ") + "\n";
  const char* load = s.uses_gpu_compute ? "GPU compute" : "step time";
  if (s.straggler >= 0) {
    out += wrap_text(straggler_sentence(s), text_width(), "  ", "  ") + "\n\n";
  } else if (s.matched_calls > 0) {
    out += wrap_text(fmt::format("No rank arrives {:.1f} ms or more after the others at the {} collective calls "
                                 "matched across ranks.",
                                 kMinLateMs, s.matched_calls),
                     text_width(), "  ", "  ") + "\n\n";
  } else {
    out += fmt::format("  No rank's {} is {:.0f}% or more above the others'.\n\n", load, kStragglerThresholdPct);
  }
  if (!s.mismatches.empty()) {
    out += "  Not matched across ranks (compared where they match):\n";
    for (const std::string& line : s.mismatches) out += wrap_text(line, text_width(), "  - ", "    ");
    out += "\n";
  }
  out += "  Ranks (means per step; wait: its time in collectives beyond the rank that waits least; late: its\n"
         "  latest arrival at a collective call of the step, after the other ranks' median)\n";
  TextTable ranks({"rank", "steps", "step", "compute", "communication", "wait", "late", "slowest in"},
                  {false, true, true, true, true, true, true, true});
  for (const StragglerRank& r : s.ranks)
    ranks.add_row({r.host, std::to_string(r.steps), format_ms(r.step_ms), format_ms(r.compute_ms),
                   format_ms(r.communication_ms), format_ms(r.wait_ms),
                   r.calls_matched ? format_ms(r.late_ms) : std::string("-"), std::to_string(r.slowest_in)});
  out += ranks.render();
  out += "\n  Steps\n";
  // Ranks that meet in collectives finish their steps together: who arrived last tells more
  // than whose step or compute was longest.
  const bool by_arrival = s.matched_calls > 0;
  TextTable steps(by_arrival ? std::vector<std::string>{"step", "latest at the calls", "late", "most work", "its excess"}
                             : std::vector<std::string>{"step", "slowest", "its excess"},
                  by_arrival ? std::vector<bool>{true, false, true, false, true} : std::vector<bool>{true, false, true});
  constexpr size_t kMaxSteps = 20;  // --format json or csv has them all
  for (size_t i = 0; i < s.steps.size() && i < kMaxSteps; ++i) {
    const StragglerStep& step = s.steps[i];
    const std::string slowest = s.ranks[step.ranks[step.slowest].rank].host;
    if (by_arrival)
      steps.add_row({std::to_string(step.step_num), step.latest >= 0 ? s.ranks[size_t(step.latest)].host : "-",
                     step.latest >= 0 ? format_ms(step.latest_late_ms) : "-", slowest,
                     format_pct(step.slowest_vs_median_pct)});
    else
      steps.add_row({std::to_string(step.step_num), slowest, format_pct(step.slowest_vs_median_pct)});
  }
  out += steps.render();
  return out;
}

}  // namespace mlprof::cli
