#include "analysis/critical_path/window_gpu_work.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/device_work.h"
#include "analysis/lower_bound_near.h"
#include "analysis/sort_runs.h"
#include "model/op_arg_names.h"
#include "model/well_known_strings.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;

std::optional<uint64_t> correlation_of(const model::Profile& p, EventIndex e) {
  if (p.events.first_stat[e] == p.events.first_stat[e + 1] && p.names[p.events.name[e]].stats.count == 0)
    return std::nullopt;  // no stats at all: most events
  if (auto c = p.stat(e, model::kCorrelationId)) return c->as_uint();
  return std::nullopt;
}

// A line of DMA requests alone is a DMA engine's queue (MTIA's), not a stream (gpu_activity.cc).
bool is_dma_queue(const model::Profile& p, const model::Line& line, DeviceWorkClassifier& classify) {
  if (line.num_events == 0) return false;
  for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
    if (classify.of(e) != DeviceWork::kDma) return false;
  return true;
}

}  // namespace

WindowDeviceInputs window_device_inputs(const model::Profile& p) {
  WindowDeviceInputs out;
  DeviceWorkClassifier classify(p);
  for (uint32_t h = 0; h < p.hosts.size(); ++h) {
    const model::Host& host = p.hosts[h];
    WindowDeviceInputs::Host wh;
    wh.host = h;
    for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
      const model::Plane& plane = p.planes[pl];
      if (plane.kind != model::PlaneKind::kDevice) continue;
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
        if (p.lines[l].kind == model::LineKind::kStream && p.lines[l].num_events > 0 &&
            !is_dma_queue(p, p.lines[l], classify))
          wh.streams.push_back({l, p.lines[l].id, plane.device_ordinal == kNone ? 0 : plane.device_ordinal});
    }
    if (wh.streams.empty()) continue;
    if (wh.streams.size() > kMaxStreamsPerHost) wh.streams.resize(kMaxStreamsPerHost);
    std::stable_sort(wh.streams.begin(), wh.streams.end(), [](const GpuStream& a, const GpuStream& b) {
      return a.device_ordinal != b.device_ordinal ? a.device_ordinal < b.device_ordinal : a.id < b.id;
    });
    for (const GpuStream& stream : wh.streams) {
      const model::Line& line = p.lines[stream.line];
      std::vector<GpuWorkKind>& kinds = wh.kinds.emplace_back(line.num_events);
      for (uint32_t i = 0; i < line.num_events; ++i) kinds[i] = gpu_work_kind(classify.of(line.first_event + i));
    }
    out.hosts.push_back(std::move(wh));
  }
  // The waits, where the trace records them: found once over the whole activity, kept by event.
  if (p.strings.find(model::kArgWaitOnEventRecord) == model::kNoString) return out;
  const GpuActivity activity = collect_all_gpu_activity(p);
  for (const HostGpuActivity& h : activity.hosts) {
    auto it = std::find_if(out.hosts.begin(), out.hosts.end(), [&](const auto& wh) { return wh.host == h.host; });
    if (it == out.hosts.end()) continue;
    const EventWaits waits = find_event_waits(p, h);
    for (const EventWaits::StreamWait& w : waits.streams)
      it->stream_waits.emplace_back(h.work[w.source].event, h.work[w.dest].event);
    for (const EventWaits::HostWait& w : waits.hosts) it->host_waits.emplace_back(h.work[w.source].event, w.call);
  }
  return out;
}

namespace {

// The window's device work per host; `launcher(wh)` gives the host's finder of an item's launch
// among the window's events, `find(line, e)`.
template <typename Launcher>
WindowDeviceWork device_work(const model::Profile& p, const WindowDeviceInputs& in, const EventSelection& events,
                             Launcher&& launcher) {
  WindowDeviceWork out;
  for (const WindowDeviceInputs::Host& wh : in.hosts) {
    auto find = launcher(wh);
    HostGpuActivity h;
    h.profile = &p;
    h.host = wh.host;
    h.streams = wh.streams;
    size_t items = 0;
    for (const GpuStream& stream : h.streams) items += events.count_in_line(stream.line);
    h.work.reserve(items);
    for (uint32_t s = 0; s < h.streams.size(); ++s) {
      h.stream_first.push_back(uint32_t(h.work.size()));
      const uint32_t line = h.streams[s].line;
      const EventIndex line_first = p.lines[line].first_event;
      events.for_each_in_line(line, [&](EventIndex e) {
        GpuWork w;
        w.event = e;
        w.stream = uint16_t(s);
        w.launch = find(line, e);
        w.kind = wh.kinds[s][e - line_first];
        h.work.push_back(w);
      });
    }
    h.stream_first.push_back(uint32_t(h.work.size()));
    EventWaits waits;
    if (!wh.stream_waits.empty() || !wh.host_waits.empty()) {
      std::unordered_map<EventIndex, uint32_t> index_of;
      for (uint32_t i = 0; i < h.work.size(); ++i) index_of.emplace(h.work[i].event, i);
      for (const auto& [source, dest] : wh.stream_waits) {
        const auto s = index_of.find(source), d = index_of.find(dest);
        if (s != index_of.end() && d != index_of.end()) waits.streams.push_back({s->second, d->second});
      }
      for (const auto& [source, call] : wh.host_waits)
        if (const auto s = index_of.find(source); s != index_of.end()) waits.hosts.push_back({s->second, call});
    }
    out.hosts.push_back(std::move(h));
    out.waits.push_back(std::move(waits));
  }
  return out;
}

}  // namespace

WindowDeviceWork window_device_work(const model::Profile& p, const WindowDeviceInputs& in,
                                    const EventSelection& events, const KnownLaunches* known) {
  return device_work(p, in, events, [&](const WindowDeviceInputs::Host& wh) {
    const model::Host& host = p.hosts[wh.host];
    // The window's launches on the host's threads, by correlation id (a thread's in time order
    // already: merged, not sorted).
    std::vector<std::pair<uint64_t, EventIndex>> launches;
    std::vector<size_t> runs;  // one a thread
    for (uint32_t pl = host.first_plane; pl < host.first_plane + host.num_planes; ++pl) {
      const model::Plane& plane = p.planes[pl];
      if (plane.kind != model::PlaneKind::kHostThreads) continue;
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
        runs.push_back(launches.size());
        if (known && l < known->read.size() && known->read[l]) {
          launches.insert(launches.end(), known->of_line[l].begin(), known->of_line[l].end());
          continue;
        }
        events.for_each_in_line(l, [&](EventIndex e) {
          if (const auto c = correlation_of(p, e)) launches.emplace_back(*c, e);
        });
      }
    }
    if (runs.empty() || runs.front() != 0) runs.insert(runs.begin(), 0);
    sort_runs(launches, std::move(runs), std::less<>());
    // Where the last search ended: a stream's ids mostly ascend.
    return [&p, launches = std::move(launches), found = size_t(0)](uint32_t, EventIndex e) mutable {
      const auto c = correlation_of(p, e);
      if (!c) return kNone;
      const auto it = lower_bound_near(launches.begin(), launches.end(), launches.begin() + ptrdiff_t(found),
                                       std::make_pair(*c, EventIndex(0)), std::less<>());
      found = size_t(it - launches.begin());
      return it != launches.end() && it->first == *c ? it->second : kNone;
    };
  });
}

WindowDeviceWork window_device_work(const model::Profile& p, const WindowDeviceInputs& in,
                                    const EventSelection& events, const LaunchJoin& launches) {
  return device_work(p, in, events, [&](const WindowDeviceInputs::Host&) {
    return [&](uint32_t line, EventIndex e) {
      return launches.launch_of(line, e, [&](EventIndex call) { return events.slot(call) != kNoSlot; });
    };
  });
}

}  // namespace mlprof::analysis
