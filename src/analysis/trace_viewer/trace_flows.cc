#include "analysis/trace_viewer/trace_flows.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::PlaneKind;
using model::Profile;

bool has_stats(const Profile& p, EventIndex e) {
  return p.events.first_stat[e] != p.events.first_stat[e + 1] || p.names[p.events.name[e]].stats.count != 0;
}

}  // namespace

std::span<const TraceFlow> TraceFlows::starting_at(EventIndex e) const {
  auto lo = std::lower_bound(flows.begin(), flows.end(), e, [](const TraceFlow& f, EventIndex v) { return f.from < v; });
  auto hi = std::upper_bound(lo, flows.end(), e, [](EventIndex v, const TraceFlow& f) { return v < f.from; });
  return {lo, hi};
}

std::span<const uint32_t> TraceFlows::ending_at(EventIndex e) const {
  auto lo = std::lower_bound(by_target.begin(), by_target.end(), e,
                             [&](uint32_t f, EventIndex v) { return flows[f].to < v; });
  auto hi = std::upper_bound(lo, by_target.end(), e, [&](EventIndex v, uint32_t f) { return v < flows[f].to; });
  return {lo, hi};
}

TraceFlows find_trace_flows(const Profile& p) {
  std::unordered_map<uint64_t, EventIndex> launches;  // correlation id -> host event
  std::vector<std::pair<uint64_t, EventIndex>> device_work;
  // (type, id) -> producers by start
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::pair<int64_t, EventIndex>>> producers;
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, EventIndex>> consumers;

  for (const auto& line : p.lines) {
    const PlaneKind kind = p.planes[line.plane].kind;
    const bool host = kind == PlaneKind::kHostThreads, device = kind == PlaneKind::kDevice;
    if (!host && !device) continue;
    // Derived device lines (steps, ops) repeat the streams' work: link the streams only.
    if (device && line.kind != model::LineKind::kStream && line.kind != model::LineKind::kOther) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (!has_stats(p, e)) continue;
      if (auto c = p.stat(e, model::kCorrelationId)) {
        if (host) launches.emplace(c->as_uint(), e);
        else device_work.push_back({c->as_uint(), e});
      }
      if (!host) continue;
      if (auto id = p.stat(e, model::kProducerId)) {
        auto type = p.stat(e, model::kProducerType);
        producers[{type ? type->as_uint() : 0, id->as_uint()}].push_back({p.start_ps(e), e});
      }
      if (auto id = p.stat(e, model::kConsumerId)) {
        auto type = p.stat(e, model::kConsumerType);
        consumers.push_back({{type ? type->as_uint() : 0, id->as_uint()}, e});
      }
    }
  }

  TraceFlows out;
  for (const auto& [id, e] : device_work)
    if (auto it = launches.find(id); it != launches.end()) out.flows.push_back({it->second, e, TraceFlowKind::kLaunch});
  for (auto& [key, list] : producers) std::sort(list.begin(), list.end());
  for (const auto& [key, consumer] : consumers) {
    auto it = producers.find(key);
    if (it == producers.end()) continue;
    // The latest producer that started before the consumer, else the first one.
    const auto& list = it->second;
    auto after = std::upper_bound(list.begin(), list.end(), std::pair{p.start_ps(consumer), model::kNone});
    const EventIndex producer = after == list.begin() ? list.front().second : std::prev(after)->second;
    if (producer != consumer) out.flows.push_back({producer, consumer, TraceFlowKind::kProducerConsumer});
  }
  std::sort(out.flows.begin(), out.flows.end(),
            [](const TraceFlow& a, const TraceFlow& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
  out.by_target.resize(out.flows.size());
  for (uint32_t i = 0; i < out.by_target.size(); ++i) out.by_target[i] = i;
  std::sort(out.by_target.begin(), out.by_target.end(),
            [&](uint32_t a, uint32_t b) { return out.flows[a].to < out.flows[b].to; });
  return out;
}

}  // namespace mlprof::analysis
