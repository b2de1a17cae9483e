#include "analysis/tf_data_bottleneck_analysis.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <unordered_map>

#include "analysis/csv.h"
#include "analysis/event_kinds.h"
#include "analysis/interval_union.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::PlaneKind;
using model::Profile;
using model::StringId;

// Executions of each iterator (by long name, a view into the profile's strings) on one host,
// sorted by start.
using Executions = std::unordered_map<std::string_view, std::vector<TimeInterval>>;

std::vector<Executions> collect_executions(const Profile& p) {
  std::vector<Executions> by_host(p.hosts.size());
  std::vector<uint8_t> iterator_name(p.names.size());
  for (size_t n = 0; n < p.names.size(); ++n) iterator_name[n] = is_iterator_name(p.strings.view(p.names[n].name));
  for (const auto& line : p.lines) {
    const auto& plane = p.planes[line.plane];
    if (plane.kind != PlaneKind::kHostThreads) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (iterator_name[p.events.name[e]]) by_host[plane.host][p.name(e)].push_back({p.start_ps(e), p.end_ps(e)});
  }
  for (auto& host : by_host)
    for (auto& [name, list] : host) std::sort(list.begin(), list.end());
  return by_host;
}

// alone_on_path: the root with nothing blocking it, i.e. no traced producer explains the wait.
std::string bottleneck_kind(const IteratorNode& node, bool alone_on_path) {
  if (is_source_iterator_type(node.type)) return is_file_source_iterator_type(node.type) ? "source" : "generator";
  if (alone_on_path) return "consumer";
  // DatasetGet: a LibTorch dataset's get(), which more DataLoader workers run in parallel.
  static const char* kParallelizable[] = {"Map", "Interleave", "Batch", "Filter", "MapAndBatch", "ParallelMap",
                                          "ParallelMapV2", "ParallelInterleave", "ParallelBatch", "Prefetch",
                                          "DatasetGet"};
  for (const char* t : kParallelizable)
    if (node.type == t) return "parallelizable";
  return "sequential";
}

std::string suggestion_for(const IteratorNode& node, const std::string& kind) {
  char share[64];
  std::snprintf(share, sizeof share, "%.2f ms", ms(node.self_ps));
  const std::string who = "`" + node.type + "` (" + node.long_name + ", " + share + " of self time)";
  if (kind == "source")
    return who + " reads the data: read files in parallel (interleave several files, more loader threads), "
                 "cache the data after the first epoch, or store it in larger, fewer files.";
  if (kind == "generator")
    return who + " makes the elements itself (user code or in-memory data), one at a time: move its work into "
                 "a parallel map (num_parallel_calls), build the dataset from tensors or files instead, or cache "
                 "its output.";
  if (kind == "consumer")
    return who + " waits with no traced producer: prefetch more batches ahead (a larger prefetch buffer) and "
                 "trace the stages that produce its data.";
  if (kind == "parallelizable") {
    if (node.is_async)
      return who + " is already asynchronous but cannot keep up: raise its parallelism (more parallel calls or "
                   "worker threads) or make each call cheaper.";
    return who + " runs sequentially: parallelise it (num_parallel_calls=AUTOTUNE, more worker threads) and "
                 "prefetch its output.";
  }
  return who + " has no parallel form: move it earlier in the pipeline, fuse it with a neighbouring stage, or "
               "cache its input.";
}

InputPipeline analyze_pipeline(const Profile& p, uint32_t host, const Executions& executions, std::string_view root) {
  InputPipeline pl;
  pl.host = host;
  pl.host_name = std::string(p.strings.view(p.hosts[host].name));
  pl.name = std::string(root);
  const auto& root_exec = executions.at(root);
  pl.calls = root_exec.size();
  pl.min_ps = root_exec.empty() ? 0 : INT64_MAX;
  pl.max_ps = -1;
  TimeInterval slowest{0, 0};
  for (const auto& x : root_exec) {
    const int64_t d = x.second - x.first;
    pl.total_ps += d;
    pl.min_ps = std::min(pl.min_ps, d);
    pl.slow_calls += d > kSlowCallPs;
    if (d > pl.max_ps) pl.max_ps = d, slowest = x;
  }
  pl.max_ps = std::max<int64_t>(pl.max_ps, 0);
  pl.slowest_start_ps = slowest.first;

  // The tree: every long name under the root, with the missing intermediate names added.
  std::unordered_map<std::string, int> index;
  std::function<int(std::string_view)> node_for = [&](std::string_view long_name) -> int {
    auto it = index.find(std::string(long_name));
    if (it != index.end()) return it->second;
    IteratorNode n;
    n.long_name = std::string(long_name);
    n.type = std::string(iterator_type(long_name));
    n.is_async = is_async_iterator_type(n.type);
    const int id = int(pl.nodes.size());
    pl.nodes.push_back(n);
    index.emplace(n.long_name, id);
    if (long_name != pl.name) {
      const int parent = node_for(iterator_parent(long_name));
      pl.nodes[size_t(id)].parent = parent;
      pl.nodes[size_t(parent)].children.push_back(id);
    }
    return id;
  };
  node_for(pl.name);
  const std::string prefix = pl.name + "::";
  std::vector<std::pair<std::string, std::string_view>> members;
  for (const auto& [name, list] : executions)
    if (name.starts_with(prefix)) members.emplace_back(std::string(name), name);
  std::sort(members.begin(), members.end());
  for (const auto& [text, id] : members) node_for(text);
  std::vector<std::string_view> name_of_node(pl.nodes.size());  // empty: a stage not traced
  name_of_node[0] = root;
  for (const auto& [text, id] : members) name_of_node[size_t(index[text])] = id;

  // Time each node ran while its parent waited: its executions clipped to the parent's windows.
  // A node with no events of its own (an untraced stage) lends its parent's windows to its
  // children and counts as busy exactly when they are. Returns when the node was busy.
  std::vector<std::vector<TimeInterval>> windows(pl.nodes.size());
  windows[0] = {slowest};
  std::function<std::vector<TimeInterval>(int)> visit = [&](int node) -> std::vector<TimeInterval> {
    const auto& w = windows[size_t(node)];
    std::vector<TimeInterval> children_busy;
    for (int c : pl.nodes[size_t(node)].children) {
      IteratorNode& child = pl.nodes[size_t(c)];
      const std::string_view child_name = name_of_node[size_t(c)];
      if (child_name.empty()) {
        windows[size_t(c)] = w;
      } else {
        std::vector<TimeInterval> clipped;
        int64_t first = INT64_MAX;
        for (const auto& x : executions.at(child_name)) {
          bool overlaps = false;
          auto it = std::lower_bound(w.begin(), w.end(), TimeInterval{x.first, INT64_MIN},
                                     [](const TimeInterval& a, const TimeInterval& b) { return a.second <= b.first; });
          for (; it != w.end() && it->first < x.second; ++it) {
            const int64_t b = std::max(x.first, it->first), e = std::min(x.second, it->second);
            if (b < e) clipped.push_back({b, e}), overlaps = true;
          }
          if (overlaps) ++child.calls, first = std::min(first, x.first);
        }
        windows[size_t(c)] = merged(std::move(clipped));
        child.first_start_ps = first == INT64_MAX ? 0 : first;
      }
      std::vector<TimeInterval> busy = visit(c);
      for (const auto& iv : busy) children_busy.push_back(iv);
    }
    const auto children_union = merged(std::move(children_busy));
    IteratorNode& n = pl.nodes[size_t(node)];
    if (node != 0 && name_of_node[size_t(node)].empty()) {
      n.total_ps = 0;
      for (const auto& iv : children_union) n.total_ps += iv.second - iv.first;
      n.self_ps = 0;
      return children_union;
    }
    int64_t total = 0, covered = 0;
    for (const auto& iv : w) total += iv.second - iv.first, covered += covered_length(children_union, iv);
    n.total_ps = total;
    n.self_ps = std::max<int64_t>(0, total - covered);
    return w;
  };
  pl.nodes[0].calls = 1;
  pl.nodes[0].first_start_ps = slowest.first;
  visit(0);

  // Critical path: from the root, the child that blocked longest; the bottleneck is the
  // critical-path iterator with the largest self time.
  int node = 0;
  while (true) {
    pl.critical_path.push_back(node);
    pl.nodes[size_t(node)].on_critical_path = true;
    int next = -1;
    for (int c : pl.nodes[size_t(node)].children)
      if (pl.nodes[size_t(c)].total_ps > 0 && (next < 0 || pl.nodes[size_t(c)].total_ps > pl.nodes[size_t(next)].total_ps))
        next = c;
    if (next < 0) break;
    node = next;
  }
  pl.bottleneck = pl.critical_path.front();
  for (int n : pl.critical_path)
    if (pl.nodes[size_t(n)].self_ps > pl.nodes[size_t(pl.bottleneck)].self_ps) pl.bottleneck = n;
  const IteratorNode& b = pl.nodes[size_t(pl.bottleneck)];
  pl.bottleneck_kind = bottleneck_kind(b, pl.critical_path.size() == 1);
  pl.suggestion = suggestion_for(b, pl.bottleneck_kind);
  return pl;
}

}  // namespace

TfDataBottleneckAnalysis compute_tf_data_bottleneck_analysis(const Profile& p) {
  return compute_tf_data_bottleneck_analysis(p, analyze_steps(p));
}

namespace {

// A pipeline whose root iterator is not traced itself (a synchronous stage on the step's
// thread: `Iterator::Prefetch::Map::FileRead` alone) is still a pipeline: its root's calls are
// the spans of its traced stages, merged.
void add_untraced_roots(Executions& executions) {
  Executions untraced;  // keys view the stages' own names, which outlive the analysis
  for (const auto& [name, list] : executions) {
    const std::string_view root = root_iterator_of(name);
    if (root.empty() || executions.count(root)) continue;
    auto& spans = untraced[root];
    spans.insert(spans.end(), list.begin(), list.end());
  }
  for (auto& [root, spans] : untraced) executions[root] = merged(std::move(spans));
}
}  // namespace

std::vector<InputPipeline> find_input_pipelines(const Profile& p) {
  TfDataBottleneckAnalysis out;
  std::vector<Executions> by_host = collect_executions(p);
  for (uint32_t h = 0; h < by_host.size(); ++h) {
    add_untraced_roots(by_host[h]);
    std::vector<std::string_view> roots;
    for (const auto& [name, list] : by_host[h])
      if (is_root_iterator(name)) roots.push_back(name);
    std::sort(roots.begin(), roots.end());
    for (const std::string_view root : roots) out.pipelines.push_back(analyze_pipeline(p, h, by_host[h], root));
  }
  std::stable_sort(out.pipelines.begin(), out.pipelines.end(),
                   [](const InputPipeline& a, const InputPipeline& b) { return a.max_ps > b.max_ps; });
  return std::move(out.pipelines);
}

TfDataBottleneckAnalysis compute_tf_data_bottleneck_analysis(const Profile& p, const StepAnalysis& steps) {
  TfDataBottleneckAnalysis out;
  out.input_bound = input_bound_of(steps);
  out.pipelines = find_input_pipelines(p);
  if (!out.pipelines.empty() && !out.input_bound.input_bound()) {
    for (InputPipeline& pl : out.pipelines) pl.suggestion.clear();
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "The steps are %s input-bound (%.1f%% of the step time waits for input): no input stage holds "
                  "them up, so there is nothing to change in the input pipeline.",
                  std::string(verdict_name(out.input_bound.verdict)).c_str(), out.input_bound.input_pct);
    out.note = buf;
  }
  return out;
}

nlohmann::json to_json(const TfDataBottleneckAnalysis& a) {
  nlohmann::json pipelines = nlohmann::json::array();
  for (const auto& pl : a.pipelines) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : pl.nodes) {
      nodes.push_back({{"long_name", n.long_name},
                       {"type", n.type},
                       {"is_async", n.is_async},
                       {"parent", n.parent},
                       {"children", n.children},
                       {"calls", n.calls},
                       {"total_time_ms", ms(n.total_ps)},
                       {"self_time_ms", ms(n.self_ps)},
                       {"on_critical_path", n.on_critical_path}});
    }
    nlohmann::json j = {
        {"host", pl.host_name},
        {"name", pl.name},
        {"calls", pl.calls},
        {"slow_calls", pl.slow_calls},
        {"avg_latency_ms", pl.calls ? ms(pl.total_ps) / double(pl.calls) : 0.0},
        {"min_latency_ms", ms(pl.min_ps)},
        {"max_latency_ms", ms(pl.max_ps)},
        {"iterators", nodes},
        {"critical_path", pl.critical_path},
        {"bottleneck", nullptr},
    };
    if (pl.bottleneck >= 0) {
      const auto& b = pl.nodes[size_t(pl.bottleneck)];
      j["bottleneck"] = {{"iterator", b.long_name},
                         {"type", b.type},
                         {"self_time_ms", ms(b.self_ps)},
                         {"kind", pl.bottleneck_kind},
                         {"suggestion", pl.suggestion}};
    }
    pipelines.push_back(std::move(j));
  }
  nlohmann::json summary = nullptr;
  if (!a.pipelines.empty() && a.pipelines.front().bottleneck >= 0 && a.note.empty()) {
    const auto& pl = a.pipelines.front();
    summary = {{"host", pl.host_name},
               {"pipeline", pl.name},
               {"max_latency_ms", ms(pl.max_ps)},
               {"bottleneck", pl.nodes[size_t(pl.bottleneck)].long_name},
               {"suggestion", pl.suggestion}};
  }
  return {{"pipelines", pipelines},
          {"summary", summary},
          {"input_bound", {{"verdict", verdict_name(a.input_bound.verdict)}, {"input_pct", a.input_bound.input_pct}}},
          {"note", a.note}};
}

std::string to_csv(const TfDataBottleneckAnalysis& a) {
  std::string out;
  append_csv_row(out, {"host", "pipeline", "calls", "slow_calls", "avg_latency_ms", "max_latency_ms",
                       "bottleneck", "bottleneck_self_time_ms", "suggestion"});
  for (const auto& pl : a.pipelines) {
    const bool has = pl.bottleneck >= 0;
    append_csv_row(out, {pl.host_name, pl.name, std::to_string(pl.calls), std::to_string(pl.slow_calls),
                         csv_number(pl.calls ? ms(pl.total_ps) / double(pl.calls) : 0.0), csv_number(ms(pl.max_ps)),
                         has ? pl.nodes[size_t(pl.bottleneck)].long_name : "",
                         csv_number(has ? ms(pl.nodes[size_t(pl.bottleneck)].self_ps) : 0.0), pl.suggestion});
  }
  return out;
}

}  // namespace mlprof::analysis
