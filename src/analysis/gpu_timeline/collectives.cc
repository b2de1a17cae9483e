#include "analysis/gpu_timeline/collectives.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "analysis/gpu_timeline/collective_args.h"
#include "analysis/gpu_timeline/collective_calls.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/csv.h"
#include "analysis/device_work.h"
#include "analysis/host_labels.h"
#include "analysis/launch_ops.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::Profile;

using CallArgs = CollectiveArgs;

struct Call {
  EventIndex event;
  std::string kind;
  CallArgs args;
};

std::string lower_letters(std::string_view name) {
  std::string out;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c))) out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A backend's own op (gloo:*, nccl:*) rather than c10d's front end, which only hands the call on.
bool is_backend_op(std::string_view name) { return name.starts_with("gloo:") || name.starts_with("nccl:"); }

// The ranks of the group: "Group size", else the entries of "Process Group Ranks".
int64_t group_ranks(const CallArgs& a) {
  if (a.group_size > 0) return a.group_size;
  if (a.ranks.empty()) return -1;
  int64_t n = 0;
  bool in_number = false;
  for (char c : a.ranks) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (digit && !in_number) ++n;
    in_number = digit;
  }
  return n > 0 ? n : -1;
}

}  // namespace

std::string collective_kind(std::string_view name) {
  const std::string n = lower_letters(name);
  // Longer names first: "allreduce" holds "reduce", "reducescatter" holds "scatter".
  if (contains(n, "reducescatter")) return "reduce_scatter";
  if (contains(n, "allreduce")) return "all_reduce";
  if (contains(n, "allgather")) return "all_gather";
  if (contains(n, "alltoall")) return "all_to_all";
  if (contains(n, "broadcast")) return "broadcast";
  if (contains(n, "sendrecv")) return "send_recv";
  if (contains(n, "send")) return "send";
  if (contains(n, "recv")) return "recv";
  if (contains(n, "barrier")) return "barrier";
  if (contains(n, "reduce")) return "reduce";
  if (contains(n, "gather")) return "gather";
  if (contains(n, "scatter")) return "scatter";
  return "";
}

double bus_bandwidth_factor(std::string_view kind, int64_t ranks) {
  if (ranks < 1) return -1;
  const double n = double(ranks);
  if (kind == "all_reduce") return 2 * (n - 1) / n;
  if (kind == "all_gather" || kind == "reduce_scatter" || kind == "all_to_all" || kind == "gather" ||
      kind == "scatter")
    return (n - 1) / n;
  if (kind == "broadcast" || kind == "reduce" || kind == "send" || kind == "recv" || kind == "send_recv") return 1;
  return -1;
}

int64_t dtype_bytes(std::string_view dtype) {
  const std::string t = lower_letters(dtype);
  if (t.starts_with("float8") || t == "char" || t == "byte" || t == "bool" || t == "int8" || t == "uint8") return 1;
  if (t == "half" || t == "bfloat16" || t == "float16" || t == "short" || t == "int16") return 2;
  if (t == "float" || t == "float32" || t == "int" || t == "int32" || t == "complexhalf") return 4;
  if (t == "double" || t == "float64" || t == "long" || t == "int64" || t == "complexfloat") return 8;
  if (t == "complexdouble") return 16;
  return 0;
}

double CollectiveRow::mean_ms() const { return count > 0 ? double(total_ps) / 1e9 / double(count) : 0; }
double CollectiveRow::mean_bytes() const { return sized_count > 0 ? double(bytes) / double(sized_count) : 0; }
double CollectiveRow::algbw_gbps() const {
  // bytes per ps × 1e12 is bytes per s; / 1e9 is GB/s.
  return sized_count > 0 && sized_ps > 0 ? double(bytes) / double(sized_ps) * 1e3 : -1;
}
double CollectiveRow::busbw_gbps() const {
  const double factor = bus_bandwidth_factor(kind, group_size);
  const double alg = algbw_gbps();
  return factor >= 0 && alg >= 0 ? alg * factor : -1;
}

CollectivesTable compute_collectives(const Profile& p) {
  CollectiveArgReader args(p);
  DeviceWorkClassifier work(p);
  LaunchOps launches(p);
  const size_t hosts = p.hosts.size();
  // Per host: calls timed by kernels, by backend host ops, by c10d's host ops, and the host
  // ops that record a collective's arguments.
  std::vector<std::vector<Call>> device(hosts), backend(hosts), front(hosts), recorded(hosts);

  for (const model::Line& line : p.lines) {
    const model::Plane& plane = p.planes[line.plane];
    if (plane.host >= hosts) continue;
    const EventIndex end = line.first_event + line.num_events;
    if (plane.kind == model::PlaneKind::kDevice) {
      if (line.kind != model::LineKind::kStream) continue;
      for (EventIndex e = line.first_event; e < end; ++e) {
        const bool named = args.named(e);
        if (!named && work.of(e) != DeviceWork::kCollective) continue;
        Call call{e, {}, named ? args.of(e) : CallArgs{}};
        // Older traces record the arguments only on the op that launched the kernel.
        for (EventIndex op = call.args.present ? model::kNone : launches.op_of(e); op != model::kNone;
             op = p.events.parent[op])
          if (args.named(op)) {
            call.args = args.of(op);
            break;
          }
        call.kind = collective_kind(call.args.present ? call.args.collective : p.name(e));
        if (call.kind.empty()) call.kind = collective_kind(p.name(e));
        if (call.kind.empty()) call.kind = "other";
        device[plane.host].push_back(std::move(call));
      }
    } else if (plane.kind == model::PlaneKind::kHostThreads) {
      for (EventIndex e = line.first_event; e < end; ++e) {
        if (args.named(e)) {
          Call call{e, {}, args.of(e)};
          call.kind = collective_kind(call.args.collective);
          if (!call.kind.empty()) recorded[plane.host].push_back(std::move(call));  // not "wait"
          continue;
        }
        const std::string_view name = p.name(e);
        if (!is_host_collective_name(name)) continue;
        bool nested = false;  // part of an enclosing call
        for (EventIndex a = p.events.parent[e]; a != model::kNone && !nested; a = p.events.parent[a])
          nested = is_host_collective_name(p.name(a));
        if (nested) continue;
        std::string kind = collective_kind(name.substr(name.find(':') + 1));
        (is_backend_op(name) ? backend : front)[plane.host].push_back({e, kind.empty() ? "other" : kind, {}});
      }
    }
  }

  struct Key {
    std::string kind, group;
    uint32_t host;
    bool operator<(const Key& o) const { return std::tie(kind, group, host) < std::tie(o.kind, o.group, o.host); }
  };
  std::map<Key, CollectiveRow> rows;
  const std::vector<std::string> labels = host_labels(p);
  for (uint32_t h = 0; h < hosts; ++h) {
    std::vector<Call>* calls = !device[h].empty() ? &device[h] : !backend[h].empty() ? &backend[h]
                               : !front[h].empty() ? &front[h] : &recorded[h];
    const bool on_device = calls == &device[h];
    if (calls != &recorded[h] && !on_device) {
      // Host ops of the backend record no sizes: the recorded calls of the same kind give them,
      // the n-th to the n-th, where both count the same calls.
      auto by_start = [&](const Call& a, const Call& b) { return p.start_ps(a.event) < p.start_ps(b.event); };
      std::sort(calls->begin(), calls->end(), by_start);
      std::sort(recorded[h].begin(), recorded[h].end(), by_start);
      std::map<std::string, std::pair<std::vector<Call*>, std::vector<const Call*>>> kinds;
      for (Call& c : *calls) kinds[c.kind].first.push_back(&c);
      for (const Call& c : recorded[h]) kinds[c.kind].second.push_back(&c);
      for (auto& [kind, pair] : kinds)
        if (pair.first.size() == pair.second.size())
          for (size_t i = 0; i < pair.first.size(); ++i) pair.first[i]->args = pair.second[i]->args;
    }
    for (const Call& c : *calls) {
      CollectiveRow& row = rows[{c.kind, std::string(c.args.group), h}];
      if (row.count == 0) {
        row.host = labels[h];
        row.file = p.strings.view(p.hosts[h].name);
        row.kind = c.kind;
        row.process_group = c.args.group;
        row.group_ranks = c.args.ranks;
        row.on_device = on_device;
      }
      row.group_size = std::max(row.group_size, group_ranks(c.args));
      ++row.count;
      const int64_t ps = p.duration_ps(c.event);
      row.total_ps += ps;
      const int64_t nelems = std::max(c.args.in_nelems, c.args.out_nelems), size = dtype_bytes(c.args.dtype);
      if (nelems >= 0 && size > 0) {
        ++row.sized_count;
        row.bytes += nelems * size;
        row.sized_ps += ps;
      }
    }
  }
  CollectivesTable table;
  for (auto& [key, row] : rows) table.rows.push_back(std::move(row));
  return table;
}

std::vector<CollectiveRankWait> collective_waits(const StragglerAnalysis& s) {
  std::vector<CollectiveRankWait> out;
  if (s.ranks.size() < 2) return out;
  for (const StragglerRank& r : s.ranks) out.push_back({r.host, r.file, r.steps, r.communication_ms, r.wait_ms});
  return out;
}

nlohmann::json to_json(const CollectivesTable& t) {
  nlohmann::json rows = nlohmann::json::array(), ranks = nlohmann::json::array();
  for (const CollectiveRankWait& r : t.ranks)
    ranks.push_back({{"host", r.host},
                     {"file", r.file},
                     {"steps", r.steps},
                     {"collectives_ms", r.collectives_ms},
                     {"wait_ms", r.wait_ms},
                     {"wait_share_pct", r.wait_share_pct()}});
  auto or_null = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (const CollectiveRow& r : t.rows)
    rows.push_back({{"host", r.host},
                    {"file", r.file},
                    {"collective", r.kind},
                    {"process_group", r.process_group},
                    {"group_ranks", r.group_ranks},
                    {"group_size", r.group_size >= 0 ? nlohmann::json(r.group_size) : nlohmann::json(nullptr)},
                    {"timed_on", r.on_device ? "device" : "host"},
                    {"count", r.count},
                    {"total_ms", double(r.total_ps) / 1e9},
                    {"mean_ms", r.mean_ms()},
                    {"sized_count", r.sized_count},
                    {"bytes", r.bytes},
                    {"mean_message_bytes", r.mean_bytes()},
                    {"algbw_gbps", or_null(r.algbw_gbps())},
                    {"busbw_gbps", or_null(r.busbw_gbps())}});
  return {{"window", "the whole profile"},
          {"bandwidth",
           "NCCL tests' definitions: algbw = message bytes / time (GB/s, 1e9 bytes/s, over the calls whose size is "
           "recorded); busbw = algbw x 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and "
           "all_to_all, 1 for broadcast, reduce, send and recv; a message is the larger of the call's input and "
           "output (In/Out msg nelems x dtype size)"},
          {"ranks_window", "the analysed steps that two or more ranks ran; means per step"},
          {"wait", "a rank's wait in a step: its time in collectives less the least of any rank that step; "
                   "wait_share_pct: its wait over its time in collectives"},
          {"ranks", ranks},
          {"rows", rows}};
}

std::string to_csv(const CollectivesTable& t) {
  std::string out;
  append_csv_row(out, {"host", "collective", "process_group", "group_ranks", "group_size", "timed_on", "count",
                       "total_ms", "mean_ms", "sized_count", "bytes", "mean_message_bytes", "algbw_gbps",
                       "busbw_gbps"});
  auto number = [](double v) { return v >= 0 ? csv_number(v) : std::string(); };
  for (const CollectiveRow& r : t.rows)
    append_csv_row(out, {r.host, r.kind, r.process_group, r.group_ranks,
                         r.group_size >= 0 ? std::to_string(r.group_size) : "", r.on_device ? "device" : "host",
                         std::to_string(r.count), csv_number(double(r.total_ps) / 1e9), csv_number(r.mean_ms()),
                         std::to_string(r.sized_count), std::to_string(r.bytes), csv_number(r.mean_bytes()),
                         number(r.algbw_gbps()), number(r.busbw_gbps())});
  return out;
}

}  // namespace mlprof::analysis
