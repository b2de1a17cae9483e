#include "analysis/critical_path/event_waits.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include "format/xspace_schema.h"
#include "model/op_arg_names.h"
#include "model/well_known_strings.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;

bool is_event_call(std::string_view name) {
  for (std::string_view prefix : {"cuda", "hip"})
    if (name.starts_with(prefix)) {
      const std::string_view rest = name.substr(prefix.size());
      return rest.starts_with("EventRecord") || rest.starts_with("StreamWaitEvent") ||
             rest.starts_with("EventSynchronize");
    }
  return false;
}

std::optional<int64_t> int_stat(const model::Profile& p, EventIndex e, model::StringId key) {
  const auto v = p.stat(e, key);
  if (!v) return std::nullopt;
  return v->as_int();
}

}  // namespace

EventWaits find_event_waits(const model::Profile& p, const HostGpuActivity& h) {
  EventWaits out;
  const model::StringId record_key = p.strings.find(model::kArgWaitOnEventRecord);
  const model::StringId recorded_stream_key = p.strings.find(model::kArgWaitOnStream);
  if (record_key == model::kNoString || recorded_stream_key == model::kNoString || h.work.empty()) return out;
  const model::StringId waiting_stream_key = p.strings.find(model::kArgWaitingStream);

  // The waits: on each of the host's devices' synchronisation lines.
  struct Wait {
    uint32_t plane;
    int64_t correlation, record, recorded_stream, waiting_stream;
  };
  std::vector<Wait> waits;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    const model::Plane& plane = p.planes[line.plane];
    if (line.id != format::xspace::kSyncLineId || plane.host != h.host) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const auto record = int_stat(p, e, record_key), recorded = int_stat(p, e, recorded_stream_key);
      const auto correlation = int_stat(p, e, model::kCorrelationId);
      if (!record || !recorded || !correlation || *record < 0 || *recorded < 0) continue;
      const auto waiting = waiting_stream_key == model::kNoString ? std::nullopt : int_stat(p, e, waiting_stream_key);
      waits.push_back({line.plane, *correlation, *record, *recorded, waiting.value_or(-1)});
    }
  }
  if (waits.empty()) return out;

  // The host's record, wait and synchronize calls by correlation id.
  std::unordered_map<int64_t, EventIndex> call_of;
  std::vector<int8_t> name_is_call(p.names.size(), -1);
  for (const model::Line& line : p.lines) {
    const model::Plane& plane = p.planes[line.plane];
    if (line.kind != model::LineKind::kThread || plane.kind != model::PlaneKind::kHostThreads || plane.host != h.host)
      continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      int8_t& is_call = name_is_call[p.events.name[e]];
      if (is_call < 0) is_call = is_event_call(p.name(e)) ? 1 : 0;
      if (!is_call) continue;
      if (const auto c = int_stat(p, e, model::kCorrelationId)) call_of.emplace(*c, e);
    }
  }

  auto stream_index = [&](uint32_t plane, int64_t id) -> int32_t {
    for (size_t s = 0; s < h.streams.size(); ++s)
      if (h.streams[s].id == id && p.lines[h.streams[s].line].plane == plane) return int32_t(s);
    return -1;
  };
  // Per stream waited on, its launched work by launch time (made when first asked).
  std::unordered_map<int32_t, std::vector<std::pair<int64_t, uint32_t>>> by_launch;
  auto launches_of = [&](int32_t s) -> const std::vector<std::pair<int64_t, uint32_t>>& {
    auto [it, fresh] = by_launch.try_emplace(s);
    if (fresh) {
      for (uint32_t i = h.stream_first[size_t(s)]; i < h.stream_first[size_t(s) + 1]; ++i)
        if (h.work[i].launch != kNone) it->second.emplace_back(p.start_ps(h.work[i].launch), i);
      std::sort(it->second.begin(), it->second.end());
    }
    return it->second;
  };
  // The work launched to a stream last at or before `t` (as the record marks it).
  auto launched_before = [&](int32_t s, int64_t t) -> int64_t {
    const auto& launches = launches_of(s);
    const auto it = std::upper_bound(launches.begin(), launches.end(), std::make_pair(t, UINT32_MAX));
    return it == launches.begin() ? -1 : int64_t(std::prev(it)->second);
  };
  // The first work launched to a stream from `thread` at or after `t`.
  auto launched_after = [&](int32_t s, uint32_t thread, int64_t t) -> int64_t {
    const auto& launches = launches_of(s);
    for (auto it = std::lower_bound(launches.begin(), launches.end(), std::make_pair(t, uint32_t(0)));
         it != launches.end(); ++it)
      if (p.line_index(h.work[it->second].launch) == thread) return it->second;
    return -1;
  };

  for (const Wait& w : waits) {
    const auto record = call_of.find(w.record), call = call_of.find(w.correlation);
    const int32_t recorded = stream_index(w.plane, w.recorded_stream);
    if (record == call_of.end() || call == call_of.end() || recorded < 0) continue;
    const int64_t source = launched_before(recorded, p.start_ps(record->second));
    if (source < 0) continue;
    const std::string_view name = p.name(call->second);
    if (name.find("StreamWaitEvent") != std::string_view::npos) {
      const int32_t waiting = stream_index(w.plane, w.waiting_stream);
      if (waiting < 0) continue;
      const int64_t dest = launched_after(waiting, p.line_index(call->second), p.start_ps(call->second));
      if (dest >= 0) out.streams.push_back({uint32_t(source), uint32_t(dest)});
    } else if (name.find("EventSynchronize") != std::string_view::npos) {
      out.hosts.push_back({uint32_t(source), call->second});
    }
  }
  return out;
}

}  // namespace mlprof::analysis
