#include "analysis/gpu_timeline/gpu_activity.h"

#include <algorithm>
#include <optional>

#include "analysis/event_kinds.h"
#include "analysis/lower_bound_near.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;
using model::LineKind;
using model::PlaneKind;
using model::Profile;

bool is_cuda_call(std::string_view name) {
  if (is_runtime_api_name(name) || is_launch_name(name)) return true;
  return name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z';
}

std::string ms_text(int64_t ps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", double(ps) / 1e9);
  return buf;
}

// The host's steps, by host start.
std::vector<const Step*> steps_of(const StepGrouping& g, uint32_t host, bool selected_only) {
  std::vector<const Step*> out;
  if (selected_only) {
    for (uint32_t s : g.selected)
      if (g.steps[s].host == host) out.push_back(&g.steps[s]);
  } else {
    for (const Step& s : g.steps)
      if (s.host == host && s.root != kNone) out.push_back(&s);
  }
  std::sort(out.begin(), out.end(), [](const Step* a, const Step* b) { return a->host_begin_ps < b->host_begin_ps; });
  return out;
}

// Streams left with no work in the scope are not shown (as HTA lists only streams with work).
void drop_empty_streams(HostGpuActivity* h) {
  std::vector<GpuStream> streams;
  std::vector<uint32_t> first;
  std::vector<uint32_t> new_index(h->streams.size(), 0);
  for (uint32_t s = 0; s < h->streams.size(); ++s) {
    if (h->stream_first[s] == h->stream_first[s + 1]) continue;
    new_index[s] = uint32_t(streams.size());
    streams.push_back(h->streams[s]);
    first.push_back(h->stream_first[s]);
  }
  if (streams.size() == h->streams.size()) return;
  first.push_back(uint32_t(h->work.size()));
  for (GpuWork& w : h->work) w.stream = uint16_t(new_index[w.stream]);
  h->streams = std::move(streams);
  h->stream_first = std::move(first);
}

void collect_host(const Profile& p, const StepGrouping& g, const LaunchJoin& launches, const GpuActivityOptions& options,
                  uint32_t h, HostGpuActivity* out) {
  const GpuScope scope = options.scope;
  out->profile = &p;
  out->round_like_hta = options.round_like_hta;
  // HTA reads the file's own ts, which count from Kineto's base time.
  out->hta_rounding = HtaTimeRounding(p.origin_ns - p.hosts[h].trace_clock_base_ns);
  const model::Host& host = p.hosts[h];
  out->host = h;
  out->name = std::string(p.strings.view(host.name));
  for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
    const model::Plane& plane = p.planes[pl];
    if (plane.kind != PlaneKind::kDevice) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
      if (p.lines[l].kind == LineKind::kStream && p.lines[l].num_events > 0)
        out->streams.push_back({l, p.lines[l].id, plane.device_ordinal == kNone ? 0 : plane.device_ordinal});
  }
  if (out->streams.empty()) return;
  if (out->streams.size() > kMaxStreamsPerHost) out->streams.resize(kMaxStreamsPerHost);
  std::stable_sort(out->streams.begin(), out->streams.end(), [](const GpuStream& a, const GpuStream& b) {
    return a.device_ordinal != b.device_ordinal ? a.device_ordinal < b.device_ordinal : a.id < b.id;
  });
  out->launches_seen = launches.calls_on_host(h);

  // Which time counts.
  int64_t launched_before = INT64_MAX;  // kHtaScope: launches from the last step on are left out
  std::vector<std::pair<int64_t, int64_t>> step_windows;
  if (scope == GpuScope::kHtaScope) {
    const auto steps = steps_of(g, h, false);
    if (steps.size() >= 2) {
      const Step& last = *steps.back();
      launched_before = last.host_begin_ps;
      out->scope_note = "the whole profile less its last step (step " + std::to_string(last.step_num) + ", from " +
                        ms_text(last.host_begin_ps) + " ms), as Holistic Trace Analysis counts it";
    } else {
      out->scope_note = "the whole profile (fewer than two steps)";
    }
  } else if (scope == GpuScope::kAnalysedSteps) {
    auto steps = steps_of(g, h, true);
    std::sort(steps.begin(), steps.end(), [](const Step* a, const Step* b) { return a->begin_ps < b->begin_ps; });
    for (const Step* s : steps) {
      step_windows.push_back({s->begin_ps, s->end_ps});
      out->window_step_num.push_back(s->step_num);
    }
    out->scope_note = std::to_string(step_windows.size()) + " analysed step(s)";
  } else {
    out->scope_note = "the whole profile";
  }

  DeviceWorkClassifier classify(p, g.device_work_names);
  size_t stream_events = 0;
  for (const GpuStream& s : out->streams) stream_events += p.lines[s.line].num_events;
  out->work.reserve(stream_events);
  size_t dma_queues = 0;
  for (uint32_t s = 0; s < out->streams.size(); ++s) {
    out->stream_first.push_back(uint32_t(out->work.size()));
    const model::Line& line = p.lines[out->streams[s].line];
    size_t dma = 0, window_hint = 0;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      GpuWork w;
      w.event = e;
      w.stream = uint16_t(s);
      w.launch = launches.launch_of(out->streams[s].line, e);  // the outermost call with its id
      if (launched_before != INT64_MAX && (w.launch == kNone || p.start_ps(w.launch) >= launched_before)) continue;
      if (scope == GpuScope::kAnalysedSteps) {
        const int64_t begin = out->gpu_begin(p, w), end = out->gpu_end(p, w);
        // The first window starting after the work does, searched from the last one's: a
        // stream's work comes in start order.
        auto it = lower_bound_near(step_windows.begin(), step_windows.end(),
                                   step_windows.begin() + ptrdiff_t(std::min(window_hint, step_windows.size())),
                                   std::pair{begin, INT64_MAX}, std::less_equal<>());
        window_hint = size_t(it - step_windows.begin());
        if (it != step_windows.begin() && std::prev(it)->second > begin) --it;  // starts inside a step
        if (it == step_windows.end() || it->first >= end) continue;              // outside every step
        w.window = uint32_t(it - step_windows.begin());
      }
      const DeviceWork work = classify.of(e);
      dma += work == DeviceWork::kDma;
      w.kind = gpu_work_kind(work);
      out->work.push_back(w);
    }
    // A line of DMA requests alone is a DMA engine's queue (MTIA's), not a stream: its requests
    // carry no stream, and HTA leaves them out.
    if (dma > 0 && dma == out->work.size() - out->stream_first.back()) {
      out->work.resize(out->stream_first.back());
      ++dma_queues;
    }
  }
  out->stream_first.push_back(uint32_t(out->work.size()));
  drop_empty_streams(out);
  if (dma_queues > 0)
    out->scope_note += "; " + std::to_string(dma_queues) + " DMA queue(s) left out (they run copies for the streams)";
  out->warnings = classify.warnings();

  if (scope == GpuScope::kAnalysedSteps) {
    out->windows = std::move(step_windows);
  } else if (!out->work.empty()) {
    int64_t begin = INT64_MAX, end = INT64_MIN;
    for (const GpuWork& w : out->work) {
      begin = std::min(begin, out->gpu_begin(p, w));
      end = std::max(end, out->gpu_end(p, w));
    }
    out->windows.push_back({begin, end});
  }
}

}  // namespace

GpuActivity collect_gpu_activity(const Profile& profile, const StepGrouping& grouping,
                                 const GpuActivityOptions& options) {
  GpuActivity out;
  out.scope = options.scope;
  // The grouping's join of launches, else one made here.
  std::optional<LaunchJoin> own;
  if (!grouping.launches) own.emplace(profile);
  const LaunchJoin& launches = grouping.launches ? *grouping.launches : *own;
  for (uint32_t h = 0; h < profile.hosts.size(); ++h) {
    HostGpuActivity host;
    collect_host(profile, grouping, launches, options, h, &host);
    if (!host.streams.empty()) out.hosts.push_back(std::move(host));
  }
  return out;
}

GpuActivity collect_all_gpu_activity(const Profile& profile) {
  return collect_gpu_activity(profile, StepGrouping{}, GpuActivityOptions{GpuScope::kWholeProfile, false});
}

std::string_view gpu_scope_key(GpuScope scope) {
  switch (scope) {
    case GpuScope::kHtaScope: return "hta";
    case GpuScope::kAnalysedSteps: return "steps";
    case GpuScope::kWholeProfile: return "profile";
  }
  return "hta";
}

std::string_view gpu_span_description(GpuScope scope) {
  // The windows of collect_host: the span of the work kept, or the steps themselves.
  if (scope == GpuScope::kAnalysedSteps) return "in the analysed steps, from each step's start to its end";
  return "from the first to the last GPU work";
}

std::string_view launching_op(const Profile& profile, EventIndex launch) {
  if (launch == kNone) return {};
  EventIndex op = profile.events.parent[launch];
  while (op != kNone && is_cuda_call(profile.name(op))) op = profile.events.parent[op];
  return op == kNone ? std::string_view() : profile.name(op);
}

}  // namespace mlprof::analysis
