#include "analysis/step_grouping.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analysis/device_work_names.h"
#include "analysis/event_kinds.h"
#include "analysis/step_inference.h"
#include "format/xspace_schema.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;
using model::LineKind;
using model::PlaneKind;
using model::Profile;
using model::StringId;

// Events carrying a link: producer or consumer context, or a correlation id. Contexts are
// the process's own: a link joins events of one host only.
struct Link {
  EventIndex event;
  uint32_t host;
  uint64_t type;
  uint64_t id;
};

struct Links {
  std::vector<Link> producers, consumers;
  std::vector<EventIndex> explicit_roots;
};

// The link stats an event carries: each the first of its key among the event's stats, else
// among its name's (as Profile::stat finds them), read in one pass over them.
enum LinkStat {
  kRootStat, kProducerIdStat, kProducerTypeStat, kConsumerIdStat, kConsumerTypeStat, kNumLinkStats
};
struct LinkStats {
  std::array<std::optional<model::StatValue>, kNumLinkStats> of;
};

// The link stat a stat key is, or kNumLinkStats for none: the one list of link keys.
LinkStat link_stat_of(StringId key) {
  switch (key) {
    case model::kIsRoot: return kRootStat;
    case model::kProducerId: return kProducerIdStat;
    case model::kProducerType: return kProducerTypeStat;
    case model::kConsumerId: return kConsumerIdStat;
    case model::kConsumerType: return kConsumerTypeStat;
    default: return kNumLinkStats;
  }
}

bool any_link_key(const model::StatTable& table, uint32_t first, uint32_t end) {
  for (uint32_t i = first; i < end; ++i)
    if (link_stat_of(table.key(i)) != kNumLinkStats) return true;
  return false;
}

// Names whose own stats hold link keys (e.g. "train#step_num=1,_r=1#" kept unsplit by a writer).
std::vector<uint8_t> names_with_link_keys(const Profile& p) {
  std::vector<uint8_t> has(p.names.size(), 0);
  for (size_t n = 0; n < p.names.size(); ++n) {
    const auto r = p.names[n].stats;
    has[n] = any_link_key(p.metadata_stats, r.first, r.first + r.count);
  }
  return has;
}

LinkStats link_stats(const Profile& p, EventIndex e) {
  LinkStats s;
  auto take = [&](const model::StatTable& table, uint32_t first, uint32_t end) {
    for (uint32_t i = first; i < end; ++i) {
      const LinkStat k = link_stat_of(table.key(i));
      if (k != kNumLinkStats && !s.of[size_t(k)]) s.of[size_t(k)] = table.value(i);
    }
  };
  take(p.event_stats, p.events.first_stat[e], p.events.first_stat[e + 1]);
  const model::StatRange named = p.names[p.events.name[e]].stats;
  take(p.metadata_stats, named.first, named.first + named.count);
  return s;
}

// Whether any of the event's own stats is a link key: most events' stats are none (a
// correlation id, an op's arguments), and link_stats is left unread for them.
bool has_link_key(const Profile& p, EventIndex e) {
  return any_link_key(p.event_stats, p.events.first_stat[e], p.events.first_stat[e + 1]);
}

// Reads the host events' roots and producer/consumer contexts.
Links collect_links(const Profile& p, const std::vector<uint8_t>& name_has_keys) {
  Links links;
  for (const auto& line : p.lines) {
    if (p.planes[line.plane].kind != PlaneKind::kHostThreads) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (!name_has_keys[p.events.name[e]] && !has_link_key(p, e)) continue;
      const LinkStats s = link_stats(p, e);
      const auto& get = s.of;
      if (const auto& r = get[kRootStat]; r && r->as_int() != 0) links.explicit_roots.push_back(e);
      if (const auto& id = get[kProducerIdStat]) {
        const auto& type = get[kProducerTypeStat];
        links.producers.push_back({e, p.planes[line.plane].host, type ? type->as_uint() : 0, id->as_uint()});
      }
      if (const auto& id = get[kConsumerIdStat]) {
        const auto& type = get[kConsumerTypeStat];
        links.consumers.push_back({e, p.planes[line.plane].host, type ? type->as_uint() : 0, id->as_uint()});
      }
    }
  }
  std::sort(links.explicit_roots.begin(), links.explicit_roots.end());
  return links;
}

// Lines whose events are the device's work: its streams, else (TPU, XLA) its op lines.
std::vector<uint8_t> find_device_work_lines(const Profile& p) {
  std::vector<uint8_t> work(p.lines.size(), 0);
  for (const auto& plane : p.planes) {
    if (plane.kind != PlaneKind::kDevice) continue;
    for (LineKind wanted : {LineKind::kStream, LineKind::kXlaOps, LineKind::kFrameworkOps}) {
      bool found = false;
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
        if (p.lines[l].kind == wanted && p.lines[l].num_events > 0) work[l] = 1, found = true;
      if (found) break;
    }
  }
  return work;
}

// The roots of one host's steps: its events marked _r when it has any, else its top-level
// events named as an implicit root, of the outermost kind found on that host. Each host is
// decided alone (§5.1), so that a host reads the same inside a run as on its own.
std::vector<EventIndex> find_host_roots(const Profile& p, uint32_t host, std::vector<EventIndex> roots,
                                        const std::vector<int>& rank_of_name, std::string* kind) {
  if (!roots.empty()) {
    *kind = "_r";
    // A capture that inferred its steps (no markers in the program) says how: step_source.
    if (const StringId source = p.strings.find("step_source"); source != model::kNoString)
      if (auto s = p.stat(roots.front(), source); s && s->type == model::StatType::kString)
        *kind = std::string(p.string_of(*s));
    // PyTorch's importer marks ProfilerStep#N with _r: say what the user wrote.
    if (p.name(roots.front()).starts_with(format::xspace::kProfilerStepPrefix)) *kind = "ProfilerStep#N";
    return roots;
  }
  // TensorFlow and PyTorch: top-level host events with a root's name, of the outermost kind.
  int best = INT32_MAX;
  const model::Host& h = p.hosts[host];
  for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes; ++pl) {
    const auto& plane = p.planes[pl];
    if (plane.kind != PlaneKind::kHostThreads) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const auto& line = p.lines[l];
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const int rank = rank_of_name[p.events.name[e]];
        if (rank < 0 || p.events.parent[e] != kNone || rank > best) continue;
        if (rank < best) roots.clear(), best = rank;
        roots.push_back(e);
      }
    }
  }
  if (!roots.empty()) *kind = std::string(p.name(roots.front()));
  return roots;
}

// An inferred step's end and whether the capture cut it, by its root.
struct InferredEnd {
  int64_t end_ps = 0;
  bool incomplete = false;
};
using InferredEnds = std::unordered_map<EventIndex, InferredEnd>;

// Every host's roots; `kind` is what marked the steps of the first host that has any. A host
// without step markers gets the steps inferred from its repeated work (step_inference.h).
std::vector<EventIndex> find_roots(const Profile& p, const Links& links, std::string* kind, InferredEnds* inferred) {
  std::vector<int> rank_of_name(p.names.size());
  for (size_t n = 0; n < p.names.size(); ++n) rank_of_name[n] = implicit_root_rank(p.strings.view(p.names[n].name));
  std::vector<std::vector<EventIndex>> explicit_of_host(p.hosts.size());
  for (EventIndex e : links.explicit_roots) explicit_of_host[p.plane_of(e).host].push_back(e);
  std::vector<EventIndex> roots;
  for (uint32_t host = 0; host < p.hosts.size(); ++host) {
    std::string host_kind;
    std::vector<EventIndex> of_host =
        find_host_roots(p, host, std::move(explicit_of_host[host]), rank_of_name, &host_kind);
    if (of_host.empty()) {
      InferredSteps found = infer_steps(p, host);
      for (size_t i = 0; i < found.roots.size(); ++i)
        (*inferred)[found.roots[i]] = {found.end_ps[i], found.last_incomplete && i + 1 == found.roots.size()};
      of_host = std::move(found.roots);
      host_kind = std::move(found.kind);
    }
    if (kind->empty()) *kind = std::move(host_kind);
    roots.insert(roots.end(), of_host.begin(), of_host.end());
  }
  return roots;
}

int64_t step_number(const Profile& p, EventIndex root, int64_t fallback) {
  if (auto s = p.stat(root, model::kStepNum)) return s->as_int();
  if (auto s = p.stat(root, model::kIterNum)) return s->as_int();
  if (int64_t n = 0; format::xspace::profiler_step_number(p.name(root), &n)) return n;
  return fallback;
}

// Children take their parent's group; parents come before children in event order. Events
// [first, end) only, where given: a parent is on its child's line.
void inherit_from_parents(const Profile& p, std::vector<int32_t>& group, EventIndex first = 0,
                          EventIndex end = model::kNone) {
  const auto& parent = p.events.parent;
  for (EventIndex e = first, n = std::min(end, EventIndex(group.size())); e < n; ++e)
    if (group[e] == kNoGroup && parent[e] != kNone) group[e] = group[parent[e]];
}

// (host, context type, context id).
using LinkKey = std::tuple<uint32_t, uint64_t, uint64_t>;
struct LinkKeyHash {
  size_t operator()(const LinkKey& k) const {
    return std::hash<uint64_t>()((std::get<1>(k) * 0x9E3779B97F4A7C15ull ^ std::get<2>(k)) * 0x9E3779B97F4A7C15ull ^
                                 std::get<0>(k));
  }
};

// Consumers join the group of the latest producer with their context that started before them.
bool link_consumers(const Profile& p, const Links& links, std::vector<int32_t>& group) {
  std::unordered_map<LinkKey, std::vector<std::pair<int64_t, int32_t>>, LinkKeyHash> producers;
  for (const Link& l : links.producers)
    if (group[l.event] != kNoGroup) producers[{l.host, l.type, l.id}].push_back({p.start_ps(l.event), group[l.event]});
  if (producers.empty()) return false;
  for (auto& [key, list] : producers) std::sort(list.begin(), list.end());
  bool changed = false;
  for (const Link& l : links.consumers) {
    if (group[l.event] != kNoGroup) continue;
    auto it = producers.find({l.host, l.type, l.id});
    if (it == producers.end()) continue;
    const auto& list = it->second;
    auto after = std::upper_bound(list.begin(), list.end(), std::make_pair(p.start_ps(l.event), INT32_MAX));
    group[l.event] = (after == list.begin() ? list.front() : *(after - 1)).second;
    changed = true;
  }
  return changed;
}

// Device work joins the group of the host event that launched it: the first of its launches
// (launch_join.h) that has a group.
bool link_correlations(const Profile& p, const LaunchJoin& launches, const std::vector<uint8_t>& device_work_line,
                       std::vector<int32_t>& group) {
  bool changed = false;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    if (!device_work_line[l]) continue;
    const model::Line& line = p.lines[l];
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (group[e] != kNoGroup) continue;
      const EventIndex call = launches.launch_of(l, e, [&](EventIndex c) { return group[c] != kNoGroup; });
      if (call == kNone) continue;
      group[e] = group[call];
      changed = true;
    }
  }
  return changed;
}

// The end of the device work launched by runtime calls that lie inside each step's host span
// (torch-tb-profiler's rule), per step; INT64_MIN for a step whose span launched nothing.
std::vector<int64_t> launched_device_end(const Profile& p, const LaunchJoin& launches, const StepGrouping& g) {
  std::vector<int64_t> end(g.steps.size(), INT64_MIN);
  if (g.steps.empty()) return end;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    if (!g.device_work_line[l]) continue;
    const model::Line& line = p.lines[l];
    // Steps of the line's host, by host start (steps are sorted by host, then start): a call
    // and its work are on one host.
    const uint32_t host = p.planes[line.plane].host;
    const auto first = std::lower_bound(g.steps.begin(), g.steps.end(), host,
                                        [](const Step& s, uint32_t h) { return s.host < h; });
    const auto last = std::upper_bound(first, g.steps.end(), host, [](uint32_t h, const Step& s) { return h < s.host; });
    if (first == last) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const Step* step = nullptr;
      // The first launch whose call lies inside a step's host span: the step that starts last
      // at or before the call's start, if the call ends inside it.
      launches.launch_of(l, e, [&](EventIndex call) {
        const auto after = std::upper_bound(first, last, p.start_ps(call),
                                            [](int64_t t, const Step& s) { return t < s.host_begin_ps; });
        if (after == first || p.end_ps(call) > (after - 1)->host_end_ps) return false;
        step = &*(after - 1);
        return true;
      });
      if (step != nullptr) end[step->group] = std::max(end[step->group], p.end_ps(e));
    }
  }
  return end;
}

// Step windows (§5.1): step N starts at the later of its host start and the end of step N-1
// on its host, and ends at the later of its host end and the end of the device work launched
// by runtime calls inside its host span; so steps never overlap. A step that launched nothing
// inside its host span but has device work through its links (TensorFlow dispatches the
// step's ops after the marker closes) is its device span, as TensorFlow's own Steps line says.
void set_step_windows(const Profile& p, StepGrouping& g) {
  const std::vector<int64_t> launched_end = launched_device_end(p, *g.launches, g);
  int64_t previous_end = INT64_MIN;
  for (size_t i = 0; i < g.steps.size(); ++i) {
    Step& s = g.steps[i];
    if (i == 0 || g.steps[i - 1].host != s.host) previous_end = INT64_MIN;
    s.launched_end_ps = launched_end[i];
    s.begin_ps = s.host_begin_ps;
    s.end_ps = std::max(s.host_end_ps, s.launched_end_ps);
    if (s.launched_end_ps == INT64_MIN && s.has_device_work() &&
        (s.device_begin_ps < s.host_begin_ps || s.device_end_ps > s.host_end_ps)) {
      s.begin_ps = s.device_begin_ps;
      s.end_ps = s.device_end_ps;
    }
    s.begin_ps = std::max(s.begin_ps, previous_end);
    s.end_ps = std::max(s.end_ps, s.begin_ps);
    previous_end = s.end_ps;
  }
}

// Inferred steps have no marker around their work: the top-level events of their host (its
// threads and its devices' work) join the step whose span holds their start, and their
// children follow them.
void join_inferred_by_time(const Profile& p, const std::vector<uint8_t>& device_work_line, StepGrouping& g) {
  std::vector<std::vector<const Step*>> of_host(p.hosts.size());
  for (const Step& s : g.steps)
    if (s.root_is_work) of_host[s.host].push_back(&s);
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    const model::Plane& plane = p.planes[line.plane];
    const auto& steps = of_host[plane.host];
    if (steps.empty() || (plane.kind != PlaneKind::kHostThreads && !device_work_line[l])) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (g.group_of[e] != kNoGroup || p.events.parent[e] != kNone) continue;
      auto it = std::upper_bound(steps.begin(), steps.end(), p.start_ps(e),
                                 [](int64_t t, const Step* s) { return t < s->host_begin_ps; });
      if (it == steps.begin()) continue;
      const Step* s = *(it - 1);
      if (p.start_ps(e) < s->host_end_ps) g.group_of[e] = int32_t(s->group);
    }
  }
}

// The capture's window on a host where its files record it (an XSpace's Task Environment
// plane: profile_start_time and profile_stop_time, ns since the epoch); else unbounded.
std::pair<int64_t, int64_t> capture_window(const Profile& p, uint32_t host) {
  const model::Host& h = p.hosts[host];
  for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes; ++pl) {
    const model::Plane& plane = p.planes[pl];
    if (plane.kind != PlaneKind::kTaskEnvironment) continue;
    int64_t start_ns = 0, stop_ns = 0;
    for (uint32_t i = plane.stats.first; i < plane.stats.first + plane.stats.count; ++i) {
      const StringId key = p.metadata_stats.key(i);
      if (key == model::kProfileStartTime) start_ns = p.metadata_stats.value(i).as_int();
      if (key == model::kProfileStopTime) stop_ns = p.metadata_stats.value(i).as_int();
    }
    // Far from the events (another clock), picoseconds would overflow: no window then.
    constexpr int64_t kFarNs = INT64_MAX / 1000 / 2;
    if (start_ns > 0 && stop_ns > start_ns && std::abs(start_ns - p.origin_ns) < kFarNs &&
        std::abs(stop_ns - p.origin_ns) < kFarNs)
      return {(start_ns - p.origin_ns) * 1000, (stop_ns - p.origin_ns) * 1000};
  }
  return {INT64_MIN, INT64_MAX};
}

// Which steps count (§5.1): all but those the capture cut (its start or stop falls inside them)
// and, on a host with device work, those that ran none. A step wholly outside the window is
// timed on another clock than the window (TPU hosts' devices): the window says nothing of it.
void select_steps(const Profile& p, const std::vector<uint8_t>& host_has_device_work, const InferredEnds& inferred,
                  StepGrouping& g) {
  std::vector<std::pair<int64_t, int64_t>> window(p.hosts.size());
  for (uint32_t h = 0; h < p.hosts.size(); ++h) window[h] = capture_window(p, h);
  for (const Step& s : g.steps) {
    const auto [begin, end] = window[s.host];
    const auto it = inferred.find(s.root);
    const int64_t step_end = std::max(s.host_end_ps, s.end_ps);
    if (s.host_begin_ps < begin && step_end > begin) ++g.left_out.cut_at_start;
    else if ((s.host_begin_ps < end && step_end > end) || (it != inferred.end() && it->second.incomplete))
      ++g.left_out.cut_at_end;
    else if (host_has_device_work[s.host] && s.device_kernels == 0) ++g.left_out.without_device_work;
    else g.selected.push_back(s.group);
  }
}

}  // namespace

StepGrouping group_steps(const Profile& p, std::shared_ptr<const LaunchJoin> launches) {
  StepGrouping g;
  g.device_work_names = std::make_shared<const DeviceWorkNames>(p);
  g.device_work_line = find_device_work_lines(p);
  std::vector<uint8_t> host_has_device_work(p.hosts.size(), 0);
  for (size_t l = 0; l < p.lines.size(); ++l) {
    if (!g.device_work_line[l] || p.lines[l].num_events == 0) continue;
    g.has_device_work = true;
    host_has_device_work[p.planes[p.lines[l].plane].host] = 1;
  }
  const std::vector<uint8_t> name_has_keys = names_with_link_keys(p);
  const Links links = collect_links(p, name_has_keys);
  InferredEnds inferred;
  std::vector<EventIndex> roots = find_roots(p, links, &g.root_kind, &inferred);
  std::sort(roots.begin(), roots.end(), [&](EventIndex a, EventIndex b) {
    const uint32_t ha = p.plane_of(a).host, hb = p.plane_of(b).host;
    if (ha != hb) return ha < hb;
    return p.start_ps(a) != p.start_ps(b) ? p.start_ps(a) < p.start_ps(b) : a < b;  // outer first
  });

  g.group_of.assign(p.num_events(), kNoGroup);
  std::vector<int64_t> rank_in_host;
  for (EventIndex root : roots) {
    // A root nested in another root of the same step is part of that step.
    bool nested = false;
    for (EventIndex a = p.events.parent[root]; a != kNone && !nested; a = p.events.parent[a])
      nested = g.group_of[a] != kNoGroup;
    if (nested) continue;
    Step s;
    s.group = uint32_t(g.steps.size());
    s.root = root;
    s.host = p.plane_of(root).host;
    s.host_begin_ps = p.start_ps(root);
    s.host_end_ps = p.end_ps(root);
    if (auto it = inferred.find(root); it != inferred.end()) s.root_is_work = true, s.host_end_ps = it->second.end_ps;
    const int64_t rank = g.steps.empty() || g.steps.back().host != s.host ? 0 : rank_in_host.back() + 1;
    rank_in_host.push_back(rank);
    s.step_num = step_number(p, root, rank);
    g.group_of[root] = int32_t(s.group);
    g.steps.push_back(s);
  }

  // Nesting and producer/consumer chains until nothing changes, then launches to devices.
  if (!inferred.empty()) join_inferred_by_time(p, g.device_work_line, g);
  inherit_from_parents(p, g.group_of);
  for (int round = 0; round < 8 && link_consumers(p, links, g.group_of); ++round) inherit_from_parents(p, g.group_of);
  // The correlations give groups to the devices' work only: their children follow them.
  g.launches = launches ? std::move(launches) : std::make_shared<const LaunchJoin>(p);
  if (link_correlations(p, *g.launches, g.device_work_line, g.group_of))
    for (uint32_t l = 0; l < p.lines.size(); ++l)
      if (g.device_work_line[l])
        inherit_from_parents(p, g.group_of, p.lines[l].first_event, p.lines[l].first_event + p.lines[l].num_events);

  // Device spans, then each step's span.
  const std::vector<MemcpyKind> kind_of_name = memcpy_kinds_by_name(p);
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    if (!g.device_work_line[l]) continue;
    const auto& line = p.lines[l];
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const int32_t group = g.group_of[e];
      if (group == kNoGroup) continue;
      Step& s = g.steps[size_t(group)];
      s.device_begin_ps = std::min(s.device_begin_ps, p.start_ps(e));
      s.device_end_ps = std::max(s.device_end_ps, p.end_ps(e));
      s.device_kernels += kind_of_name[p.events.name[e]] == MemcpyKind::kNone;
    }
  }
  set_step_windows(p, g);

  select_steps(p, host_has_device_work, inferred, g);
  return g;
}

}  // namespace mlprof::analysis
