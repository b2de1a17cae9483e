#include "analysis/critical_path/dependency_graph.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/critical_path/event_waits.h"
#include "analysis/critical_path/rank_waits.h"
#include "analysis/device_work.h"
#include "analysis/event_kinds.h"
#include "analysis/gpu_timeline/collective_calls.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/sort_runs.h"
#include "model/well_known_strings.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;
using model::Profile;

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A host call that blocks until device work is done: a synchronisation, or a copy that returns
// when the copy has (cudaMemcpy without Async).
bool is_blocking_call(std::string_view name) {
  if (contains(name, "Synchronize")) return name.starts_with("cu") || name.starts_with("hip");
  if (is_mtia_sync_name(name)) return true;
  return (name.starts_with("cudaMemcpy") || name.starts_with("hipMemcpy") || name.starts_with("cuMemcpy")) &&
         !contains(name, "Async");
}

// CUDA's and HIP's launches return once the work is queued (their blocking calls are named:
// is_blocking_call); TensorFlow's host events that launch are its ops. MTIA's runtime may return
// only after the work has run (runFunction holds most of its kernels): such a launch whose work
// ended before it returned waited for it.
bool launch_may_wait(std::string_view name) { return is_mtia_launch_name(name); }

// The kind of a host event's own time, before its dependencies are known (a blocked call
// weighs nothing only once what it waits for is found).
PathKind host_kind(std::string_view name, bool is_producer) {
  if (is_producer || is_input_request_name(name) || is_iterator_name(name)) return PathKind::kInput;
  // Launches of kernels, copies and sets; other runtime calls (allocation, queries) are host time.
  if (is_launch_name(name) || is_mtia_launch_name(name) ||
      (is_runtime_api_name(name) && (contains(name, "Memcpy") || contains(name, "Memset"))))
    return PathKind::kKernelLaunch;
  if (is_host_collective_name(name)) return PathKind::kCollectives;
  return PathKind::kHost;
}

// TraceMe's context types (tsl/profiler/lib/context_types.h, ContextType): a producer of data is
// generic (a program's own `_p`, a loader's) or a request batcher's; the runtime's own links (an
// executor, PjRt, a launch, a thread pool: XLA writes them on every run) hand over work, not data.
bool links_data(int64_t context_type) {
  constexpr int64_t kGeneric = 0, kLegacy = 1, kSharedBatchScheduler = 4, kAdaptiveSharedBatchScheduler = 6,
                    kBatcher = 10;
  return context_type == kGeneric || context_type == kLegacy || context_type == kSharedBatchScheduler ||
         context_type == kAdaptiveSharedBatchScheduler || context_type == kBatcher;
}

HostNameKind host_name_kind(std::string_view name) { return {host_kind(name, false), is_blocking_call(name)}; }

PathKind device_kind(GpuWorkKind k) {
  switch (k) {
    case GpuWorkKind::kCommunication: return PathKind::kCollectives;
    case GpuWorkKind::kMemory: return PathKind::kCopies;
    default: return PathKind::kDeviceCompute;
  }
}

PathKind device_kind(DeviceWork w) { return device_kind(gpu_work_kind(w)); }

class GraphBuilder {
 public:
  GraphBuilder(const Profile& p, const StepAnalysis& steps, const std::vector<StepSpan>& spans, size_t context_spans,
               const GraphInputs& inputs, EventSelection events, std::pair<int64_t, int64_t> counted)
      : p_(p),
        steps_(steps),
        spans_(spans),
        context_spans_(context_spans),
        counted_(counted),
        inputs_(inputs),
        start_node_(events.size(), kNoNode),
        end_node_(events.size(), kNoNode),
        kind_(events.size(), uint8_t(PathKind::kHost)) {
    g_.events = std::move(events);
  }

  DependencyGraph build() {
    offset_ = inputs_.rank_waits.clock_offset_ps;
    const size_t events = g_.events.size();
    g_.anchor_ps.reserve(2 * events + spans_.size());
    // Two nodes an event at most, and a step's sink: made at once, not grown node by node.
    chain_edge_.assign(2 * events + spans_.size(), UINT32_MAX);
    const size_t edges = 5 * events / 2 + spans_.size();
    g_.edges.reserve(edges);
    g_.edge_from.reserve(edges);
    g_.edge_weight_ps.reserve(edges);
    for (uint32_t l = 0; l < p_.lines.size(); ++l)
      if (is_host_thread(l)) add_thread(l);
    link_producers();
    link_side_threads();
    add_device_work();
    link_rank_waits();
    add_steps();
    release_building_state();
    if (!number_by_time()) {
      g_.cut_edges += cut_backward_edges();
      renumber(order_nodes());
    }
    return std::move(g_);
  }

 private:
  bool is_host_thread(uint32_t l) const {
    const model::Line& line = p_.lines[l];
    return line.kind == model::LineKind::kThread && p_.planes[line.plane].kind == model::PlaneKind::kHostThreads;
  }
  uint16_t host_of_line(uint32_t l) const { return uint16_t(p_.planes[p_.lines[l].plane].host); }
  size_t counted_at(int64_t t) const { return t >= counted_.first && t < counted_.second; }
  size_t counted(EventIndex e) const { return counted_at(p_.start_ps(e)); }

  // An event's nodes and kind (kNoNode where the graph does not hold it).
  uint32_t slot(EventIndex e) const { return g_.events.slot(e); }
  uint32_t start_of(EventIndex e) const {
    const uint32_t s = slot(e);
    return s == kNoSlot ? kNoNode : start_node_[s];
  }
  uint32_t end_of(EventIndex e) const {
    const uint32_t s = slot(e);
    return s == kNoSlot ? kNoNode : end_node_[s];
  }
  PathKind kind_of(EventIndex e) const {
    const uint32_t s = slot(e);
    return s == kNoSlot ? PathKind::kHost : PathKind(kind_[s]);
  }

  uint32_t add_node(int64_t t) {
    const uint32_t v = uint32_t(g_.anchor_ps.size());
    g_.anchor_ps.push_back(t);
    if (v >= chain_edge_.size()) chain_edge_.resize(size_t(v) + 1, UINT32_MAX);
    return v;
  }
  uint32_t add_edge(uint32_t from, uint32_t to, int64_t w, EventIndex ev, EventIndex owner, uint16_t host, PathKind k) {
    g_.edges.push_back({to, ev, owner, host, k});
    g_.edge_from.push_back(from);
    g_.edge_weight_ps.push_back(std::max<int64_t>(w, 0));
    return uint32_t(g_.edges.size() - 1);
  }

  // Program order on one thread: a node at every event's start and end, an edge for each
  // stretch between, weighing its length, charged to the innermost event open then.
  void add_thread(uint32_t l) {
    const EventIndex first = g_.events.first_in_line(l);
    if (first == kNone) return;
    const uint16_t host = host_of_line(l);
    struct Open {
      EventIndex event;
      uint32_t slot;
    };
    std::vector<Open> open;  // the events open now, innermost last, with their slots
    uint32_t node = kNoNode;
    const uint32_t first_node = uint32_t(g_.anchor_ps.size());
    if (thread_nodes_.empty()) thread_nodes_.assign(p_.lines.size(), {0, 0});
    int64_t now = p_.start_ps(first);  // times may be negative (hosts after the first)
    const int64_t off = offset_[host];  // onto the ranks' common clock
    // A node and the edge to it, written in place rather than by add_node and add_edge: most of
    // the graph's nodes and edges are made here, and the calls (even a push's) cost as much as
    // the writes. The line makes two nodes an event at most, and an edge fewer: the arrays are
    // given room for them, and cut to those made after. Inlined where called (the compiler kept
    // it a call of its own).
    const size_t most = 2 * g_.events.count_in_line(l);
    uint32_t nodes = uint32_t(g_.anchor_ps.size()), edges = uint32_t(g_.edges.size());
    g_.anchor_ps.resize(nodes + most);
    g_.edges.resize(edges + most);
    g_.edge_from.resize(edges + most);
    g_.edge_weight_ps.resize(edges + most);
    int64_t* const anchor = g_.anchor_ps.data();
    PathEdge* const edge = g_.edges.data();
    uint32_t* const edge_from = g_.edge_from.data();
    int64_t* const weight = g_.edge_weight_ps.data();
    auto advance = [&](int64_t t) __attribute__((always_inline)) {
      const int64_t at = std::max(t, now);
      const uint32_t next = nodes++;
      anchor[next] = at + off;
      if (node != kNoNode) {
        const EventIndex ev = open.empty() ? kNone : open.back().event;
        const PathKind k = ev == kNone ? PathKind::kIdle : PathKind(kind_[open.back().slot]);
        chain_edge_[node] = edges;
        edge[edges] = {next, ev, ev, host, k};
        edge_from[edges] = node;
        weight[edges] = at - now;
        ++edges;
      }
      node = next;
      now = at;
    };
    if (chain_edge_.size() < nodes + most) chain_edge_.resize(nodes + most, UINT32_MAX);
    // A window's launches, for its device work, where the steps' join of launches is not at
    // hand (the whole profile's is found beforehand).
    std::vector<std::pair<uint64_t, EventIndex>>* launches = nullptr;
    if (!g_.events.is_whole() && inputs_.launches == nullptr) {
      if (launches_.read.empty()) {
        launches_.read.assign(p_.lines.size(), 0);
        launches_.of_line.resize(p_.lines.size());
      }
      launches_.read[l] = 1;
      launches = &launches_.of_line[l];
    }
    g_.events.for_each_slot_in_line(l, [&](EventIndex e, uint32_t s) {
      while (!open.empty() && p_.end_ps(open.back().event) <= p_.start_ps(e)) {
        advance(p_.end_ps(open.back().event));
        end_node_[open.back().slot] = node;
        open.pop_back();
      }
      classify(e, s, open.empty() ? kNoSlot : open.back().slot, host, launches);
      advance(p_.start_ps(e));
      start_node_[s] = node;
      open.push_back({e, s});
    });
    while (!open.empty()) {
      advance(p_.end_ps(open.back().event));
      end_node_[open.back().slot] = node;
      open.pop_back();
    }
    g_.anchor_ps.resize(nodes);
    g_.edges.resize(edges);
    g_.edge_from.resize(edges);
    g_.edge_weight_ps.resize(edges);
    chain_last_.push_back({host, node, false});
    thread_nodes_[l] = {first_node, node};
  }

  // An event's kind (inheriting input from its parent, at `parent_slot`), and the links it
  // takes part in.
  void classify(EventIndex e, uint32_t e_slot, uint32_t parent_slot, uint16_t host,
                std::vector<std::pair<uint64_t, EventIndex>>* launches) {
    std::optional<model::StatValue> producer, consumer;
    if (may_link(e, launches)) {
      producer = p_.stat(e, model::kProducerId);
      consumer = p_.stat(e, model::kConsumerId);
    }
    const HostNameKind& of_name = name_kind(p_.events.name[e]);
    // A step's root produces the context its other threads consume (PyTorch's ProfilerStep, a
    // StepTrace): it is the step, not input work; producers of data (a loader's _p) are input.
    const bool produces_input = producer.has_value() && !p_.stat(e, model::kIsRoot).has_value() &&
                                links_data(std::get<1>(link_key(e, host, *producer, model::kProducerType)));
    PathKind k = produces_input ? PathKind::kInput : of_name.kind;
    if (parent_slot != kNoSlot && PathKind(kind_[parent_slot]) == PathKind::kInput) k = PathKind::kInput;
    kind_[e_slot] = uint8_t(k);
    if (producer) producers_[link_key(e, host, *producer, model::kProducerType)].push_back(e);
    if (consumer) consumers_.push_back({link_key(e, host, *consumer, model::kConsumerType), e});
    if (of_name.blocking) blocking_[host].push_back(e);
  }

  // What a host event's name says, read once a name for all the graphs (most events share a few
  // hundred names).
  const HostNameKind& name_kind(model::NameIndex n) const { return inputs_.name_kinds[n]; }

  // Whether the event or its name carries a producer or consumer id: one look at its stats
  // (most events have several and no link), each name's once. The same look finds its
  // correlation id (Profile::stat's), the launch a window's device work is joined to: added to
  // `launches`, where given.
  bool may_link(EventIndex e, std::vector<std::pair<uint64_t, EventIndex>>* launches) {
    bool links = false, correlated = false;
    for (uint32_t i = p_.events.first_stat[e], end = p_.events.first_stat[e + 1]; i < end; ++i) {
      const model::StringId k = p_.event_stats.key(i);
      if (k == model::kProducerId || k == model::kConsumerId) links = true;
      if (k == model::kCorrelationId && !correlated && launches) {
        correlated = true;
        launches->emplace_back(p_.event_stats.value(i).as_uint(), e);
      }
    }
    const NameStats& named = name_stats(p_.events.name[e]);
    if (launches && !correlated && named.correlated) launches->emplace_back(named.correlation, e);
    return links || named.links;
  }

  // What a name's own stats say of its events: whether they carry _p/_c, and their correlation
  // id, if any (read once a name).
  struct NameStats {
    bool known = false, links = false, correlated = false;
    uint64_t correlation = 0;
  };
  const NameStats& name_stats(model::NameIndex n) {
    if (name_stats_.empty()) name_stats_.resize(p_.names.size());
    NameStats& named = name_stats_[n];
    if (!named.known) {
      named.known = true;
      const model::StatRange r = p_.names[n].stats;
      for (uint32_t i = r.first; i < r.first + r.count; ++i) {
        const model::StringId k = p_.metadata_stats.key(i);
        if (k == model::kProducerId || k == model::kConsumerId) named.links = true;
        if (k == model::kCorrelationId && !named.correlated) {
          named.correlated = true;
          named.correlation = p_.metadata_stats.value(i).as_uint();
        }
      }
    }
    return named;
  }

  using LinkKey = std::tuple<uint16_t, int64_t, int64_t>;  // host, type, id
  LinkKey link_key(EventIndex e, uint16_t host, const model::StatValue& id, model::StringId type_key) const {
    const auto type = p_.stat(e, type_key);
    return {host, type ? type->as_int() : 0, id.as_int()};
  }

  // The stretches inside a blocked call weigh nothing once what it waits for is linked.
  void make_waiting(EventIndex e) {
    for (uint32_t n = start_of(e); n < end_of(e); ++n)
      if (chain_edge_[n] != UINT32_MAX) make_waiting_edge(chain_edge_[n]);
  }

  void make_waiting_edge(uint32_t k) {
    g_.edge_weight_ps[k] = 0;
    g_.edges[k].kind = PathKind::kWaiting;
  }

  // A consumer (`_c`) waits for the producer (`_p`) with the same id and type on its host:
  // the last of them to end before the consumer does.
  void link_producers() {
    for (const auto& [key, consumer] : consumers_) {
      auto it = producers_.find(key);
      if (it == producers_.end()) continue;
      EventIndex best = kNone;
      for (EventIndex pr : it->second)  // ids may repeat: the latest producer done by the consumer's end
        if (pr != consumer && p_.end_ps(pr) <= p_.end_ps(consumer) && (best == kNone || p_.end_ps(pr) > p_.end_ps(best)))
          best = pr;
      if (best == kNone || p_.end_ps(best) <= p_.start_ps(consumer)) continue;  // ready before asked: no wait
      make_waiting(consumer);
      // What the consumer does after the batch is there (hand-over, wake-up) is input time; after
      // the runtime's work is handed over, the consumer's own kind.
      const PathKind after = kind_of(best) == PathKind::kInput ? PathKind::kInput : kind_of(consumer);
      add_edge(end_of(best), end_of(consumer), p_.end_ps(consumer) - p_.end_ps(best), consumer, consumer,
               std::get<0>(key), after);
      g_.consumer_links += counted(consumer);
    }
  }

  // A thread beside the step's (PyTorch's autograd engine running the backward pass) starts its
  // work when the step's thread gets there: each of its top-level events waits for the step
  // thread's instant before it, by the time measured between them, and its idle gap before
  // the event is waiting, not work. Without it such a thread kept its measured times in every
  // what-if: taking the step thread's input wait away moved none of the backward pass.
  // Whether a host thread line got nodes (one event makes two: its last node is never 0).
  bool has_thread_nodes(uint32_t l) const { return l < thread_nodes_.size() && thread_nodes_[l].second != 0; }

  void link_side_threads() {
    std::map<uint32_t, uint32_t> step_line_of_plane;
    for (const StepSpan& span : spans_)
      if (span.root != kNone) {
        const uint32_t l = p_.line_index(span.root);
        if (has_thread_nodes(l)) step_line_of_plane.try_emplace(p_.lines[l].plane, l);
      }
    for (uint32_t l = 0; l < thread_nodes_.size(); ++l) {
      if (!has_thread_nodes(l)) continue;
      const auto nodes = thread_nodes_[l];
      auto step_line = step_line_of_plane.find(p_.lines[l].plane);
      if (step_line == step_line_of_plane.end() || step_line->second == l) continue;
      const auto [step_first, step_last] = thread_nodes_[step_line->second];
      const bool engine = is_autograd_engine_thread(l);
      std::map<uint32_t, EventIndex> step_waits;  // a step-thread stretch: the engine work ending last in it
      g_.events.for_each_slot_in_line(l, [&](EventIndex e, uint32_t s) {
        // Loader work runs on its own: only work the step thread sets off (not input) is tied to it.
        if (p_.events.parent[e] != kNone || start_node_[s] == kNoNode || PathKind(kind_[s]) == PathKind::kInput) return;
        const int64_t t = p_.start_ps(e) + offset_[host_of_line(l)];  // on the ranks' common clock
        // The step thread's last instant at or before t (a thread's instants never go back).
        const int64_t* first = g_.anchor_ps.data() + step_first;
        const int64_t* after = std::upper_bound(first, first + (step_last - step_first + 1), t);
        if (after == first) return;  // before the step thread's first instant
        const uint32_t from = uint32_t(after - g_.anchor_ps.data()) - 1;
        const uint32_t to = start_node_[s];
        // backward() returns when the engine's thread is done: a stretch of the step thread that
        // holds the engine's work whole is the step thread waiting for it. The engine's work after
        // the first in that stretch follows its own thread's order, not the step thread's.
        if (engine && from < step_last && g_.anchor_ps[from + 1] >= p_.end_ps(e) + offset_[host_of_line(l)]) {
          auto [it, fresh] = step_waits.try_emplace(from, e);
          if (!fresh) {
            if (p_.end_ps(e) > p_.end_ps(it->second)) it->second = e;
            return;
          }
        }
        add_edge(from, to, t - g_.anchor_ps[from], kNone, kNone, host_of_line(l), PathKind::kIdle);
        if (to > nodes.first && chain_edge_[to - 1] != UINT32_MAX && g_.edges[chain_edge_[to - 1]].event == kNone)
          make_waiting_edge(chain_edge_[to - 1]);
      });
      for (const auto& [from, e] : step_waits) link_step_wait(from, e, host_of_line(l));
    }
  }

  // PyTorch's autograd engine runs the backward pass of device tensors on a thread of its own
  // while the thread that called backward() waits: a thread whose top-level work is the
  // engine's functions.
  // (Among the graph's events of the line.)
  bool is_autograd_engine_thread(uint32_t l) const {
    bool engine = false;
    g_.events.for_each_in_line(l, [&](EventIndex e) {
      engine = engine ||
               (p_.events.parent[e] == kNone && p_.name(e).starts_with("autograd::engine::evaluate_function"));
    });
    return engine;
  }

  // The step thread's stretch leaving `from` waited for the engine's work `e`: it weighs
  // nothing, and the step thread goes on when `e` ends (its measured wake-up after, at its kind).
  void link_step_wait(uint32_t from, EventIndex e, uint16_t host) {
    const uint32_t k = chain_edge_[from];
    if (k == UINT32_MAX || g_.edges[k].to != from + 1 || end_of(e) == kNoNode) return;
    const PathEdge stretch = g_.edges[k];
    if (stretch.kind == PathKind::kInput) return;
    make_waiting_edge(k);
    add_edge(end_of(e), from + 1, g_.anchor_ps[from + 1] - g_.anchor_ps[end_of(e)], stretch.event, stretch.owner,
             host, stretch.kind == PathKind::kWaiting ? PathKind::kHost : stretch.kind);
    g_.sync_links += counted(e);
  }

  // Order on each device stream, launch to work, and work to the host calls that wait for it.
  void add_device_work() {
    // The whole profile's device work, found once; a window's, found for it.
    WindowDeviceWork window;
    if (!g_.events.is_whole())
      window = inputs_.launches ? window_device_work(p_, inputs_.windows, g_.events, *inputs_.launches)
                                : window_device_work(p_, inputs_.windows, g_.events, &launches_);
    const std::vector<HostGpuActivity>& hosts = g_.events.is_whole() ? inputs_.activity.hosts : window.hosts;
    for (size_t hi = 0; hi < hosts.size(); ++hi) {
      const HostGpuActivity& h = hosts[hi];
      const uint16_t host = uint16_t(h.host);
      const EventWaits& waits = g_.events.is_whole() ? inputs_.event_waits[hi] : window.waits[hi];
      std::unordered_map<uint32_t, uint32_t> first_edge_of;  // a stream wait's work: its first edge
      for (const EventWaits::StreamWait& w : waits.streams)
        if (slot(h.work[w.dest].event) != kNoSlot) first_edge_of.emplace(w.dest, 0);
      std::vector<std::tuple<int64_t, int64_t, uint32_t>> launched;  // launch start, work end, end node
      std::vector<size_t> launched_runs;  // where each stream's begin: a stream's launches come in order
      std::vector<EventWaits::HostWait> launch_waits;  // launches that returned after their work
      for (size_t s = 0; s + 1 < h.stream_first.size(); ++s) {
        uint32_t prev_start = kNoNode, prev_end = kNoNode;
        const auto [first, end] = selected_work(h, s);
        if (launched_runs.empty() || launched_runs.back() != launched.size()) launched_runs.push_back(launched.size());
        for (uint32_t i = first; i < end; ++i) {
          const GpuWork& w = h.work[i];
          const uint32_t w_slot = slot(w.event);
          if (w_slot == kNoSlot) continue;
          const uint32_t launch = w.launch != kNone ? start_of(w.launch) : kNoNode;
          if (auto it = first_edge_of.find(i); it != first_edge_of.end()) it->second = uint32_t(g_.edges.size());
          add_device_item(w.event, w_slot, device_kind(w.kind), w.launch, launch, host, prev_start, prev_end);
          if (w.launch != kNone) {
            launched.emplace_back(p_.start_ps(w.launch), p_.end_ps(w.event), prev_end);
            launch_work_.emplace_back(w.launch, w.event);
            if (p_.end_ps(w.event) <= p_.end_ps(w.launch) && launch_may_wait(p_.name(w.launch)))
              launch_waits.push_back({i, w.launch});
          }
        }
        chain_last_.push_back({host, prev_end, true});
      }
      for (const EventWaits::StreamWait& w : waits.streams)
        if (const auto it = first_edge_of.find(w.dest); it != first_edge_of.end()) link_stream_wait(h, w, it->second);
      std::vector<EventIndex> event_synced;
      for (const EventWaits::HostWait& w : waits.hosts) {
        link_host_wait(h.work[w.source].event, w.call, host);
        event_synced.push_back(w.call);
      }
      for (const EventWaits::HostWait& w : launch_waits) link_host_wait(h.work[w.source].event, w.call, host);
      std::sort(event_synced.begin(), event_synced.end());
      link_blocking_calls(host, launched, std::move(launched_runs), event_synced);
    }
    add_streamless_device_lines();
  }

  // The items of stream s whose events the graph holds lie in [first, end) (by start, as the
  // stream's line): found by their starts, so that a window's graph reads only its own.
  std::pair<uint32_t, uint32_t> selected_work(const HostGpuActivity& h, size_t s) const {
    uint32_t first = h.stream_first[s], end = h.stream_first[s + 1];
    if (g_.events.is_whole() || first == end) return {first, end};
    EventIndex lo = kNone, hi = kNone;
    g_.events.for_each_in_line(h.streams[s].line, [&](EventIndex e) {
      if (lo == kNone) lo = e;
      hi = e;
    });
    if (lo == kNone) return {first, first};
    const int64_t from = p_.start_ps(lo), to = p_.start_ps(hi);
    const auto by_start = [&](const GpuWork& w, int64_t t) { return p_.start_ps(w.event) < t; };
    first = uint32_t(std::lower_bound(h.work.begin() + first, h.work.begin() + end, from, by_start) - h.work.begin());
    end = uint32_t(std::upper_bound(h.work.begin() + first, h.work.begin() + end, to,
                                    [&](int64_t t, const GpuWork& w) { return t < p_.start_ps(w.event); }) -
                   h.work.begin());
    return {first, end};
  }

  // Stream B's work after a cudaStreamWaitEvent waits for the work stream A recorded. When that
  // work ended after the launch and B's previous work, it set the start: the measured gap is
  // charged to the wait (the launch and stream-order edges, weighed at item creation, then weigh
  // nothing).
  void link_stream_wait(const HostGpuActivity& h, const EventWaits::StreamWait& w, uint32_t first_edge) {
    const GpuWork& source = h.work[w.source];
    const GpuWork& dest = h.work[w.dest];
    const uint32_t s = start_of(dest.event), source_end = end_of(source.event);
    if (s == kNoNode || source_end == kNoNode) return;
    const int64_t ready = g_.anchor_ps[source_end], start = g_.anchor_ps[s];
    int64_t before = INT64_MIN;  // when the launch and the stream let it start
    for (uint32_t k = first_edge; k < g_.edges.size() && k < first_edge + 3; ++k)
      if (g_.edges[k].to == s) before = std::max(before, g_.anchor_ps[g_.edge_from[k]]);
    int64_t weight = 0;
    if (ready > before && ready <= start) {
      for (uint32_t k = first_edge; k < g_.edges.size() && k < first_edge + 3; ++k)
        if (g_.edges[k].to == s) g_.edge_weight_ps[k] = 0;
      weight = start - ready;
    }
    add_edge(source_end, s, weight, kNone, kNone, uint16_t(h.host), PathKind::kIdle);
    g_.sync_links += counted(dest.event);
  }

  // A rank's collective call ends, once the last rank has arrived, after the call's own time:
  // the time before is waiting for that rank, and the path runs on into that rank's work.
  void link_rank_waits() {
    const std::vector<RankWait>& waits = inputs_.rank_waits.waits;
    if (waits.empty()) return;
    std::unordered_map<EventIndex, int64_t> own_time;  // a call's time after the last arrival (one clock)
    for (const RankWait& w : waits)
      if (end_of(w.early) != kNoNode && start_of(w.late) != kNoNode)
        own_time[w.early] = std::max<int64_t>(g_.anchor_ps[end_of(w.early)] - g_.anchor_ps[start_of(w.late)], 0);
    for (uint32_t k = 0; k < g_.edges.size(); ++k) {  // a collective kernel's own edge
      const PathEdge& e = g_.edges[k];
      if (e.event == kNone || g_.edge_from[k] != start_of(e.event) || e.to != end_of(e.event)) continue;
      const auto it = own_time.find(e.event);
      if (it != own_time.end() && p_.plane_of(e.event).kind == model::PlaneKind::kDevice)
        g_.edge_weight_ps[k] = std::min(g_.edge_weight_ps[k], it->second);
    }
    std::vector<EventIndex> host_calls;
    for (const RankWait& w : waits) {
      const uint32_t from = start_of(w.late), to = end_of(w.early);
      if (from == kNoNode || to == kNoNode || !own_time.count(w.early)) continue;
      if (p_.plane_of(w.early).kind == model::PlaneKind::kHostThreads) {
        make_waiting(w.early);
        host_calls.push_back(w.early);
      }
      if (p_.plane_of(w.late).kind == model::PlaneKind::kHostThreads) host_calls.push_back(w.late);
      add_edge(from, to, own_time.at(w.early), w.early, w.early, uint16_t(w.early_host), PathKind::kCollectives);
      g_.rank_links += counted(w.early);
    }
    std::sort(host_calls.begin(), host_calls.end());
    host_calls.erase(std::unique(host_calls.begin(), host_calls.end()), host_calls.end());
    for (EventIndex call : host_calls) link_to_step_thread(call);
  }

  // A collective call run on a thread of its process group (gloo's) for the thread that runs the
  // step: that thread issued it, and waits for its end where it runs no op of its own.
  void link_to_step_thread(EventIndex call) {
    const uint32_t line = p_.line_index(call);
    const uint32_t host = p_.planes[p_.lines[line].plane].host;
    EventIndex root = kNone;
    for (const StepSpan& s : spans_)
      if (s.host == host && s.root != kNone && s.begin_ps <= p_.start_ps(call) && p_.start_ps(call) < s.end_ps) root = s.root;
    if (root == kNone) return;
    const uint32_t step_line = p_.line_index(root);
    if (step_line == line || step_line >= thread_nodes_.size()) return;
    const auto [first, last] = thread_nodes_[step_line];
    const int64_t off = offset_[host];
    // The step thread's node at or before a time.
    auto node_at = [&](int64_t t) -> uint32_t {
      const auto it = std::upper_bound(g_.anchor_ps.begin() + first, g_.anchor_ps.begin() + last + 1, t);
      return it == g_.anchor_ps.begin() + first ? kNoNode : uint32_t(it - g_.anchor_ps.begin() - 1);
    };
    // Issued: from what the step thread ran when the call began; the call's thread idled till then.
    const uint32_t start = start_of(call);
    if (const uint32_t issuer = node_at(p_.start_ps(call) + off); issuer != kNoNode && start != kNoNode) {
      if (start > 0 && chain_edge_[start - 1] != UINT32_MAX && g_.edges[chain_edge_[start - 1]].to == start &&
          g_.edges[chain_edge_[start - 1]].event == kNone)
        g_.edge_weight_ps[chain_edge_[start - 1]] = 0;
      add_edge(issuer, start, g_.anchor_ps[start] - g_.anchor_ps[issuer], call, call, uint16_t(host), PathKind::kCollectives);
    }
    // Waited for: the step thread's stretch in which the call ended, when no op of its own ran.
    const uint32_t end = end_of(call), n = node_at(p_.end_ps(call) + off);
    if (end == kNoNode || n == kNoNode || n >= last || chain_edge_[n] == UINT32_MAX) return;
    const PathEdge& stretch = g_.edges[chain_edge_[n]];
    if (stretch.event != kNone && stretch.event != root) return;
    const int64_t after = g_.anchor_ps[n + 1] - g_.anchor_ps[end];
    const EventIndex charged = stretch.event;
    const PathKind kind = stretch.kind;
    make_waiting_edge(chain_edge_[n]);
    add_edge(end, n + 1, after, charged, charged, uint16_t(host), kind);
  }

  // cudaEventSynchronize returns when the recorded work is done.
  void link_host_wait(EventIndex work, EventIndex call, uint16_t host) {
    const int64_t work_end = p_.end_ps(work);
    if (work_end <= p_.start_ps(call) || end_of(call) == kNoNode || end_of(work) == kNoNode) return;
    make_waiting(call);
    add_edge(end_of(work), end_of(call), p_.end_ps(call) - work_end, call, call, host, PathKind::kKernelLaunch);
    g_.sync_links += counted(call);
  }

  // One kernel, copy or op on a device line: start and end nodes; the start waits for the
  // previous item on the line and for its launch. The measured gap before it is charged to
  // whichever of the two came last: launch latency, or the line idle.
  void add_device_item(EventIndex ev, uint32_t ev_slot, PathKind kind, EventIndex launch_event, uint32_t launch,
                       uint16_t host, uint32_t& prev_start, uint32_t& prev_end) {
    const int64_t start = p_.start_ps(ev) + offset_[host], end = p_.end_ps(ev) + offset_[host];
    const uint32_t s = add_node(start), e = add_node(end);
    start_node_[ev_slot] = s;
    end_node_[ev_slot] = e;
    add_edge(s, e, end - start, ev, launch_event != kNone ? launch_event : ev, host, kind);
    const int64_t launch_t = launch != kNoNode ? g_.anchor_ps[launch] : INT64_MIN;
    const int64_t prev_t = prev_end != kNoNode ? g_.anchor_ps[prev_end] : INT64_MIN;
    if (launch != kNoNode) {
      add_edge(launch, s, launch_t >= prev_t ? start - launch_t : 0, launch_event, launch_event, host,
               PathKind::kKernelLaunch);
      g_.launch_links += counted(ev);
    }
    if (prev_end != kNoNode) {
      if (prev_t <= start)
        add_edge(prev_end, s, prev_t > launch_t ? start - prev_t : 0, kNone, kNone, host, PathKind::kIdle);
      else  // overlapping items on one line: the order of their starts
        add_edge(prev_start, s, start - g_.anchor_ps[prev_start], kNone, kNone, host, PathKind::kIdle);
    }
    prev_start = s;
    prev_end = e;
  }

  // A blocking call waits for the work launched before it began that ends last (but for an
  // event's synchronisation whose record is known: `event_synced`, sorted).
  void link_blocking_calls(uint16_t host, std::vector<std::tuple<int64_t, int64_t, uint32_t>>& launched,
                           std::vector<size_t> launched_runs,
                           const std::vector<EventIndex>& event_synced) {
    auto it = blocking_.find(host);
    if (it == blocking_.end() || launched.empty()) return;
    sort_runs(launched, std::move(launched_runs), std::less<>());
    std::vector<size_t> latest(launched.size());  // index of the latest-ending work among the first i+1
    for (size_t i = 0; i < launched.size(); ++i)
      latest[i] = i == 0 || std::get<1>(launched[i]) > std::get<1>(launched[latest[i - 1]]) ? i : latest[i - 1];
    for (EventIndex call : it->second) {
      if (std::binary_search(event_synced.begin(), event_synced.end(), call)) continue;
      const int64_t begin = p_.start_ps(call);
      auto up = std::upper_bound(launched.begin(), launched.end(), std::make_tuple(begin, INT64_MAX, UINT32_MAX));
      if (up == launched.begin()) continue;
      const auto& [launch_t, work_end, work_node] = launched[latest[size_t(up - launched.begin()) - 1]];
      if (work_end <= begin || end_of(call) == kNoNode || work_node == kNoNode) continue;  // nothing left to wait for
      make_waiting(call);
      // The call's return after the work is done is the runtime's time.
      add_edge(work_node, end_of(call), p_.end_ps(call) - work_end, call, call, host, PathKind::kKernelLaunch);
      g_.sync_links += counted(call);
    }
  }

  // Devices whose work is on op lines rather than streams (TPUs: XLA Ops): each line in order.
  void add_streamless_device_lines() {
    const StepGrouping& grouping = steps_.grouping;
    std::vector<uint8_t> plane_has_streams(p_.planes.size(), 0);
    for (const model::Line& line : p_.lines)
      if (line.kind == model::LineKind::kStream && line.num_events > 0) plane_has_streams[line.plane] = 1;
    DeviceWorkClassifier classify(p_);
    for (uint32_t l = 0; l < p_.lines.size(); ++l) {
      const model::Line& line = p_.lines[l];
      if (l >= grouping.device_work_line.size() || !grouping.device_work_line[l]) continue;
      if (line.kind == model::LineKind::kStream || plane_has_streams[line.plane]) continue;
      if (p_.planes[line.plane].kind != model::PlaneKind::kDevice) continue;
      uint32_t prev_start = kNoNode, prev_end = kNoNode;
      g_.events.for_each_slot_in_line(l, [&](EventIndex e, uint32_t s) {
        if (p_.events.parent[e] == kNone)
          add_device_item(e, s, device_kind(classify.of(e)), kNone, kNoNode, host_of_line(l), prev_start, prev_end);
      });
      if (prev_end != kNoNode) chain_last_.push_back({host_of_line(l), prev_end, true});
    }
  }

  // Each step's sink waits for its root's end and for the last of its device work on each line.
  void add_steps() {
    std::map<uint32_t, int32_t> last_step_of_host;
    for (const StepSpan& span : spans_) {
      GraphStep gs;
      gs.reported = g_.steps.size() >= context_spans_;
      gs.host = span.host;
      gs.step_num = span.step_num;
      gs.begin_ps = span.begin_ps + offset_[span.host];
      gs.end_ps = span.end_ps + offset_[span.host];
      gs.sink = add_node(gs.end_ps);
      const uint16_t host = uint16_t(span.host);
      auto prev = last_step_of_host.find(span.host);
      if (prev != last_step_of_host.end()) gs.previous = prev->second;
      if (span.root != kNone) {
        gs.begin_node = start_of(span.root);
        if (end_of(span.root) != kNoNode)
          add_edge(end_of(span.root), gs.sink, 0, kNone, kNone, host, PathKind::kWaiting);
        if (span.group == kLaunchedInside)
          add_launched_inside(span.root, gs.sink, host);
        else
          add_device_ends(span.group, gs.sink, host);
      } else {  // a step without a root (the whole profile): its device activity, else its threads
        bool device = false;
        for (const ChainEnd& c : chain_last_) device = device || (c.host == span.host && c.on_device);
        for (const ChainEnd& c : chain_last_)
          if (c.host == span.host && c.node != kNoNode && c.on_device == device)
            add_edge(c.node, gs.sink, 0, kNone, kNone, c.host, PathKind::kWaiting);
      }
      last_step_of_host[span.host] = int32_t(g_.steps.size());
      g_.steps.push_back(gs);
    }
  }

  // The work launched by calls inside `root`, on its thread.
  void add_launched_inside(EventIndex root, uint32_t sink, uint16_t host) {
    const uint32_t line = p_.line_index(root);
    for (const auto& [launch, work] : launch_work_)
      if (p_.start_ps(launch) >= p_.start_ps(root) && p_.start_ps(launch) < p_.end_ps(root) &&
          p_.line_index(launch) == line)
        if (end_of(work) != kNoNode) add_edge(end_of(work), sink, 0, kNone, kNone, host, PathKind::kWaiting);
  }

  // The step's device work: per device line, the item of the step that ends last.
  void add_device_ends(uint32_t group, uint32_t sink, uint16_t host) {
    if (!last_of_group_made_) make_last_of_group();
    auto it = last_of_group_.find(group);
    if (it == last_of_group_.end()) return;
    for (EventIndex last : it->second) add_edge(end_of(last), sink, 0, kNone, kNone, host, PathKind::kWaiting);
  }
  // One pass over the device lines: per step group, the last-ending item of each line.
  void make_last_of_group() {
    last_of_group_made_ = true;
    const StepGrouping& grouping = steps_.grouping;
    for (uint32_t l = 0; l < p_.lines.size(); ++l) {
      if (l >= grouping.device_work_line.size() || !grouping.device_work_line[l]) continue;
      std::map<int32_t, EventIndex> last;
      g_.events.for_each_slot_in_line(l, [&](EventIndex e, uint32_t s) {
        const int32_t g = e < grouping.group_of.size() ? grouping.group_of[e] : kNoGroup;
        if (g == kNoGroup || end_node_[s] == kNoNode) return;
        auto [it, fresh] = last.try_emplace(g, e);
        if (!fresh && p_.end_ps(e) > p_.end_ps(it->second)) it->second = e;
      });
      for (const auto& [g, e] : last) last_of_group_[uint32_t(g)].push_back(e);
    }
  }

  // An edge into an earlier instant cannot be followed: cut it, and count it. Makes target_.
  size_t cut_backward_edges() {
    size_t cut = 0;
    target_.resize(g_.edges.size());
    for (uint32_t k = 0; k < target_.size(); ++k) {
      const uint32_t to = g_.edges[k].to;
      const int64_t t = g_.anchor_ps[to];
      const bool back = t < g_.anchor_ps[g_.edge_from[k]];
      if (back) cut += counted_at(t);
      target_[k] = back ? kNoNode : to;
    }
    return cut;
  }
  void cut_edge(uint32_t k) { target_[k] = kNoNode; }

  // What only the building reads, let go before ordering and renumbering the nodes (the peak).
  void release_building_state() {
    start_node_ = {};
    end_node_ = {};
    chain_edge_ = {};
    kind_ = {};
    thread_nodes_ = {};
    launch_work_ = {};
    launches_ = {};
    producers_ = {};
    consumers_ = {};
    blocking_ = {};
    last_of_group_ = {};
  }

  // Cuts the edges into earlier instants (as cut_backward_edges), numbers the nodes by time,
  // those of one time in the order they were made in, and groups the edges by target (as
  // renumber()), where every kept edge then goes to a higher number; where one does not (it
  // joins two instants of one time against the order they were made in, or closes a cycle),
  // changes nothing and returns false. Every order of the dependencies gives the same paths and
  // replays: this one is found by merging the runs the nodes were made in, without walking the
  // edges.
  bool number_by_time() {
    const size_t n = g_.num_nodes();
    // The nodes were made a thread or a stream at a time, each in time order: a few runs,
    // walked side by side.
    std::vector<uint32_t> bounds{0};
    for (uint32_t v = 1; v < n; ++v)
      if (g_.anchor_ps[v] < g_.anchor_ps[v - 1]) {
        if (bounds.size() == kMaxTimeRuns) return false;
        bounds.push_back(v);
      }
    bounds.push_back(uint32_t(n));
    UnfilledVector<uint32_t> new_id(n);
    UnfilledVector<int64_t> anchor(n);
    const size_t runs = bounds.size() - 1;
    std::vector<uint32_t> next(bounds.begin(), bounds.end() - 1);  // each run's next node
    std::vector<int64_t> head(runs);  // its time; INT64_MAX once the run is done
    for (size_t r = 0; r < runs; ++r) head[r] = g_.anchor_ps[next[r]];
    for (uint32_t i = 0; i < n;) {
      // The run whose next node is earliest (the first such: of one time, the node made first),
      // and how far it goes before another's next node comes first: runs before it win ties,
      // runs after it lose them.
      size_t least = 0;
      int64_t before = INT64_MAX, upto = INT64_MAX;
      for (size_t r = 1; r < runs; ++r)
        if (head[r] < head[least]) {  // the earlier ones' least is the new one's bound
          before = head[least];
          upto = INT64_MAX;
          least = r;
        } else {
          upto = std::min(upto, head[r]);
        }
      uint32_t v = next[least];
      const uint32_t end = bounds[least + 1];
      int64_t t = head[least];
      do {
        new_id[v] = i;
        anchor[i++] = t;
        if (++v == end) break;
        t = g_.anchor_ps[v];
      } while (t < before && t <= upto);
      next[least] = v;
      head[least] = v == end ? INT64_MAX : t;
    }
    // One pass over the edges: those into an earlier instant cut (as cut_backward_edges), the
    // others' ends renumbered in place, and counted into their targets' in_first[to + 1].
    size_t cut = 0;
    target_.resize(g_.edges.size());
    g_.in_first.assign(n + 1, 0);
    for (uint32_t k = 0; k < target_.size(); ++k) {
      const uint32_t from = new_id[g_.edge_from[k]], to = new_id[g_.edges[k].to];
      // Numbered by time: only an edge to a lower number may go back in time.
      if (from > to && anchor[to] < anchor[from]) {
        cut += counted_at(anchor[to]);
        target_[k] = kNoNode;
        continue;
      }
      if (from >= to) {  // back to the numbers made, for the walk
        std::vector<uint32_t> old_id(n);
        for (uint32_t v = 0; v < n; ++v) old_id[new_id[v]] = v;
        for (uint32_t j = 0; j < k; ++j)
          if (target_[j] != kNoNode) g_.edge_from[j] = old_id[g_.edge_from[j]];
        g_.in_first = {};
        return false;
      }
      target_[k] = to;
      g_.edge_from[k] = from;
      ++g_.in_first[to + 1];
    }
    g_.cut_edges += cut;
    for (size_t v = 0; v < n; ++v) g_.in_first[v + 1] += g_.in_first[v];
    g_.anchor_ps = std::move(anchor);
    place_edges(new_id);
    return true;
  }

  // An order in which every node comes after its dependencies, keeping the order the nodes were
  // made in where it allows (a thread's or a stream's instants one after the other, so that a
  // replay reads its times nearly in sequence): a node is placed when it is reached with its
  // dependencies placed, else as soon as the last of them is. A cycle left among instants of
  // the same time is cut where it is found. renumber() then numbers the nodes in that order.
  std::vector<uint32_t> order_nodes() {
    const size_t n = g_.num_nodes();
    std::vector<uint32_t> out_first(n + 1, 0), pending(n, 0);
    for (uint32_t k = 0; k < target_.size(); ++k) {
      if (target_[k] == kNoNode) continue;  // cut
      ++out_first[g_.edge_from[k] + 1];
      ++pending[target_[k]];
    }
    in_degree_ = pending;
    for (size_t v = 0; v < n; ++v) out_first[v + 1] += out_first[v];
    // Each source's targets in edge order: filled from the back, each out_first[v + 1] moving
    // down to v's first, then shifted back (no copy of out_first).
    std::vector<uint32_t> out_targets(out_first[n]);
    for (uint32_t k = uint32_t(target_.size()); k-- > 0;)
      if (target_[k] != kNoNode) out_targets[--out_first[g_.edge_from[k] + 1]] = target_[k];
    for (size_t v = 0; v < n; ++v) out_first[v] = out_first[v + 1];
    out_first[n] = uint32_t(out_targets.size());
    std::vector<uint32_t> order;
    order.reserve(n);
    std::vector<uint8_t> placed(n, 0);
    std::vector<uint32_t> ready;  // placed, their dependents not yet released
    uint32_t reached = 0;         // the nodes below it were reached in the scan
    auto place = [&](uint32_t v) {
      placed[v] = 1;
      order.push_back(v);
      ready.push_back(v);
      while (!ready.empty()) {
        const uint32_t u = ready.back();
        ready.pop_back();
        for (uint32_t k = out_first[u]; k < out_first[u + 1]; ++k) {
          const uint32_t w = out_targets[k];
          if (--pending[w] == 0 && w < reached && !placed[w]) {
            placed[w] = 1;
            order.push_back(w);
            ready.push_back(w);
          }
        }
      }
    };
    for (; reached < n;) {
      const uint32_t v = reached++;
      if (pending[v] == 0 && !placed[v]) place(v);
    }
    while (order.size() < n) place(break_cycle(pending, placed));
    return order;
  }

  // Nodes left waiting lie on a cycle (of instants of one time, the others being cut already):
  // release the first of them, cutting its edges from nodes not yet placed. Returns it.
  uint32_t break_cycle(std::vector<uint32_t>& pending, const std::vector<uint8_t>& placed) {
    uint32_t v = 0;
    while (placed[v] || pending[v] == 0) ++v;
    for (uint32_t k = 0; k < target_.size(); ++k)
      if (target_[k] == v && !placed[g_.edge_from[k]]) {
        cut_edge(k);
        --in_degree_[v];
        g_.cut_edges += counted_at(g_.anchor_ps[v]);
      }
    pending[v] = 0;
    return v;
  }

  // The nodes renumbered in `order` and the edges grouped by their target, in the order they
  // were made, so that a replay reads both front to back; the cut edges are counted, and gone.
  // The edges' arrays are moved one at a time (two copies of all of them alive together set the
  // overview's peak memory).
  void renumber(std::vector<uint32_t> order) {
    const size_t n = order.size();
    UnfilledVector<uint32_t> new_id(n);
    for (uint32_t i = 0; i < n; ++i) new_id[order[i]] = i;
    {
      UnfilledVector<int64_t> anchor(n);
      for (uint32_t i = 0; i < n; ++i) anchor[i] = g_.anchor_ps[order[i]];
      g_.anchor_ps = std::move(anchor);
    }
    // in_first: each new target's first edge (its in-degree, counted when ordering).
    g_.in_first.resize(n + 1);
    g_.in_first[0] = 0;
    for (uint32_t i = 0; i < n; ++i) g_.in_first[i + 1] = g_.in_first[i] + in_degree_[order[i]];
    in_degree_ = {};
    order = {};
    for (uint32_t k = 0; k < target_.size(); ++k)
      if (target_[k] != kNoNode) {
        target_[k] = new_id[target_[k]];
        g_.edge_from[k] = new_id[g_.edge_from[k]];
      }
    place_edges(new_id);
  }

  // Given the kept edges' ends renumbered (target_, edge_from) and in_first, the edges grouped
  // by their new target, in the order they were made. in_first gives each kept edge its place
  // (edge_at: the edge at each place), then is shifted back to the firsts. new_id: for the steps.
  void place_edges(const UnfilledVector<uint32_t>& new_id) {
    const size_t n = new_id.size();
    const uint32_t kept = g_.in_first[n];
    UnfilledVector<uint32_t> edge_at(kept);
    {
      // The sources, renumbered straight into their places (the smallest array: the peak is
      // the edges' gather below).
      UnfilledVector<uint32_t> from(kept);
      for (uint32_t k = 0; k < target_.size(); ++k) {
        const uint32_t to = target_[k];
        if (to == kNoNode) continue;
        const uint32_t place = g_.in_first[to]++;
        edge_at[place] = k;
        g_.edges[k].to = to;
        from[place] = g_.edge_from[k];
      }
      g_.edge_from = std::move(from);
    }
    target_ = {};
    for (size_t v = n; v > 0; --v) g_.in_first[v] = g_.in_first[v - 1];
    g_.in_first[0] = 0;
    // One array at a time, each into a copy of its own kept size (moving them in place by swaps
    // follows a chain of places, one cache miss after another: 0.1 s more on 3 M edges).
    gather(g_.edge_weight_ps, edge_at);
    gather(g_.edges, edge_at);
    for (GraphStep& s : g_.steps) {
      if (s.begin_node != kNoNode) s.begin_node = new_id[s.begin_node];
      s.sink = new_id[s.sink];
    }
  }

  // Replaces `items` by items[edge_at[0]], items[edge_at[1]], ...: written in order, each
  // once (sized unfilled, then written by index: no push's check of room each); the cut ones
  // are in no place, and gone.
  template <typename Items>
  static void gather(Items& items, const UnfilledVector<uint32_t>& edge_at) {
    Items placed(edge_at.size());
    auto* out = placed.data();
    const auto* in = items.data();
    for (size_t i = 0; i < edge_at.size(); ++i) out[i] = in[edge_at[i]];
    items = std::move(placed);
  }

  // More runs of nodes in time order than this, and numbering them by time does not pay.
  static constexpr size_t kMaxTimeRuns = 64;
  const Profile& p_;
  const StepAnalysis& steps_;
  const std::vector<StepSpan>& spans_;
  const size_t context_spans_;  // the first spans are context: in the graph, not reported
  // Links are counted for the events starting in [first, second) (a window's own time: the
  // windows count each link once).
  const std::pair<int64_t, int64_t> counted_;
  const GraphInputs& inputs_;
  DependencyGraph g_;
  std::vector<uint32_t> start_node_, end_node_;  // per event
  // Per node: the program-order edge leaving it (sized for the most nodes the graph can have).
  std::vector<uint32_t> chain_edge_;
  // Per edge, its target again (kNoNode: cut), beside g_.edge_from: what ordering the nodes
  // reads, made once the edges are (cut_backward_edges); renumber() turns it into each kept
  // edge's place.
  UnfilledVector<uint32_t> target_;
  std::vector<uint32_t> in_degree_;  // per node: its kept in-edges, from ordering to renumbering
  std::vector<std::pair<uint32_t, uint32_t>> thread_nodes_;  // per host thread line: its first and last node
  std::vector<int64_t> offset_;  // per host: rank_waits_.clock_offset_ps
  std::vector<uint8_t> kind_;                    // per host event: PathKind of its own time
  std::vector<NameStats> name_stats_;            // per name
  struct ChainEnd {
    uint16_t host;
    uint32_t node;  // the last node of a thread or a device line
    bool on_device;
  };
  std::vector<ChainEnd> chain_last_;
  std::vector<std::pair<EventIndex, EventIndex>> launch_work_;  // a launch call and its work
  KnownLaunches launches_;  // per host thread line: its calls with a correlation id, as read
  std::map<LinkKey, std::vector<EventIndex>> producers_;
  std::vector<std::pair<LinkKey, EventIndex>> consumers_;
  std::map<uint16_t, std::vector<EventIndex>> blocking_;  // per host, in line order
  std::map<uint32_t, std::vector<EventIndex>> last_of_group_;
  bool last_of_group_made_ = false;
};

}  // namespace

GraphInputs graph_inputs(const model::Profile& profile, const StepAnalysis& steps, bool whole) {
  GraphInputs in;
  in.launches = steps.grouping.launches.get();
  in.rank_waits = find_rank_waits(profile, steps);
  in.name_kinds.reserve(profile.names.size());
  for (const model::EventName& n : profile.names) in.name_kinds.push_back(host_name_kind(profile.strings.view(n.name)));
  if (!whole) {
    in.windows = window_device_inputs(profile);
    return in;
  }
  // All of it, joined to its launches by the steps' join (the scope reads no steps).
  in.activity = collect_gpu_activity(profile, steps.grouping, GpuActivityOptions{GpuScope::kWholeProfile, false});
  for (const HostGpuActivity& h : in.activity.hosts) in.event_waits.push_back(find_event_waits(profile, h));
  return in;
}

DependencyGraph build_dependency_graph(const model::Profile& profile, const StepAnalysis& steps,
                                       const std::vector<StepSpan>& spans, size_t context_spans,
                                       const GraphInputs& inputs, EventSelection events,
                                       std::pair<int64_t, int64_t> counted) {
  return GraphBuilder(profile, steps, spans, context_spans, inputs, std::move(events), counted).build();
}

DependencyGraph build_dependency_graph(const model::Profile& profile, const StepAnalysis& steps,
                                       const std::vector<StepSpan>& spans) {
  return build_dependency_graph(profile, steps, spans, 0, graph_inputs(profile, steps, true),
                                EventSelection::whole(profile));
}

std::vector<StepSpan> step_spans(const StepAnalysis& steps) {
  std::vector<StepSpan> spans;
  for (const StepBreakdown& sb : steps.steps) {
    StepSpan span{sb.host, sb.step_num, sb.begin_ps, sb.begin_ps + sb.duration_ps, kNone, sb.group};
    if (sb.group < steps.grouping.steps.size()) span.root = steps.grouping.steps[sb.group].root;
    spans.push_back(span);
  }
  return spans;
}

DependencyGraph build_dependency_graph(const model::Profile& profile, const StepAnalysis& steps) {
  return build_dependency_graph(profile, steps, step_spans(steps));
}

std::vector<StepSpan> annotation_spans(const model::Profile& p, std::string_view name) {
  std::vector<StepSpan> spans;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    if (line.kind != model::LineKind::kThread || p.planes[line.plane].kind != model::PlaneKind::kHostThreads) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (p.name(e) == name)
        spans.push_back({p.planes[line.plane].host, int64_t(spans.size()), p.start_ps(e), p.end_ps(e), e,
                         kLaunchedInside});
  }
  // Each ends when the last of the work launched inside it does.
  const GpuActivity activity = collect_all_gpu_activity(p);
  for (StepSpan& span : spans) {
    const uint32_t line = p.line_index(span.root);
    for (const HostGpuActivity& h : activity.hosts)
      for (const GpuWork& w : h.work)
        if (w.launch != kNone && p.start_ps(w.launch) >= span.begin_ps && p.start_ps(w.launch) < p.end_ps(span.root) &&
            p.line_index(w.launch) == line)
          span.end_ps = std::max(span.end_ps, p.end_ps(w.event));
  }
  std::sort(spans.begin(), spans.end(), [](const StepSpan& a, const StepSpan& b) {
    return std::tie(a.host, a.begin_ps) < std::tie(b.host, b.begin_ps);
  });
  return spans;
}

}  // namespace mlprof::analysis
