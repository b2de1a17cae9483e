// Kineto trace → Profile. The reader (pytorch/trace_parser.h) keeps the file's order; here events
// are placed on lines, each line is sorted and nested straight into the columns (two lines at
// once on two cores), and then each event's name is written with the stats that the analysis
// reads for XSpace files too.
#include "model/pytorch/importer.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <cstdio>
#include <deque>
#include <future>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "format/xspace_schema.h"
#include "model/event_time_limits.h"
#include "model/pytorch/ops_by_external_id.h"
#include "model/pytorch/trace_file.h"
#include "model/pytorch/trace_parser.h"
#include "model/op_arg_names.h"
#include "model/plane_naming.h"

namespace mlprof::model {
namespace {

using kineto::Category;
namespace xs = format::xspace;

// The producer/consumer context "the step running in this process". TensorFlow's context
// types are small integers; this one is ours.
constexpr uint64_t kStepContextType = 0x5079546f72636800;  // "PyTorch"

enum class LineRole : uint8_t { kThread, kPython, kStream, kNameScope, kSync };

// How many events ahead a walk over a line's events asks for the one it will read: enough to
// cover a miss to memory at a few ns an event.
constexpr uint32_t kPrefetchAhead = 16;


// The torch device of a memory record: "cuda:0", "cpu", ... (c10::DeviceType numbering).
std::string allocator_name(const kineto::MemoryRecord& m) {
  const char* type;
  switch (m.device_type) {
    case 0: return "cpu";
    case 1: type = "cuda"; break;
    case 6: type = "hip"; break;
    case 12: type = "xpu"; break;
    case 13: type = "mps"; break;
    case -1: return "unknown";
    default: return "device" + std::to_string(m.device_type) + (m.device_id >= 0 ? ":" + std::to_string(m.device_id) : "");
  }
  return m.device_id >= 0 ? std::string(type) + ":" + std::to_string(m.device_id) : std::string(type);
}

std::string kernel_details(const kineto::KernelLaunch& k) {
  // PyTorch records static and dynamic shared memory only as their sum: TensorFlow's older
  // "shm" key says exactly that.
  char text[256];
  int n = 0;
  auto put = [&](const char* format, auto... values) {
    if (n >= 0 && size_t(n) < sizeof text) n += std::snprintf(text + n, sizeof text - size_t(n), format, values...);
  };
  if (k.registers >= 0) put("regs:%lld ", (long long)k.registers);
  if (k.shared_memory >= 0) put("shm:%lld ", (long long)k.shared_memory);
  put("grid:%lld,%lld,%lld block:%lld,%lld,%lld", (long long)k.grid[0], (long long)k.grid[1], (long long)k.grid[2],
      (long long)k.block[0], (long long)k.block[1], (long long)k.block[2]);
  if (k.occupancy_pct >= 0) put(" occ_pct:%g", k.occupancy_pct);
  return std::string(text, size_t(std::clamp(n, 0, int(sizeof text) - 1)));
}

// "Memcpy HtoD (Pageable -> Device)", 4096 → "kind:HtoD kind_src:pageable kind_dst:device size:4096".
std::string memcpy_details(std::string_view name, int64_t bytes) {
  std::string out;
  const size_t space = name.find(' ');
  if (space != std::string_view::npos) {
    const std::string_view kind = name.substr(space + 1, name.find(' ', space + 1) - space - 1);
    if (!kind.empty() && kind.front() != '(') out += "kind:" + std::string(kind);
  }
  const size_t open = name.find('('), arrow = name.find(" -> "), close = name.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
      open < arrow && arrow < close) {
    auto lower = [](std::string_view s) {
      std::string r(s);
      for (char& c : r) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      return r;
    };
    out += (out.empty() ? "" : " ") + ("kind_src:" + lower(name.substr(open + 1, arrow - open - 1)));
    out += " kind_dst:" + lower(name.substr(arrow + 4, close - arrow - 4));
  }
  if (bytes >= 0) out += (out.empty() ? "" : " ") + ("size:" + std::to_string(bytes));
  return out;
}

// Hands `from`'s buffer, emptied, to `to` (whose own goes): for a column that needs no more room
// than a temporary already written, whose pages are then touched already.
void reuse_for(std::vector<uint32_t>* from, std::vector<uint32_t>* to) {
  from->clear();
  to->swap(*from);
}

struct StagedLine {
  LineRole role = LineRole::kThread;
  uint32_t track = 0;       // kThread, kPython, kStream
  uint32_t device = 0;      // index into devices_ for device lines
  uint8_t stream_kinds = 0;
  uint32_t first = 0;       // its events: order_[first, first + count)
  uint32_t count = 0;
};

// An event name together with the stats every event of that name shares.
struct NameKey {
  StringId name;
  uint32_t variant;  // what the stats below mean
  uint64_t a, b;
  bool operator==(const NameKey&) const = default;
};
struct NameKeyHash {
  size_t operator()(const NameKey& k) const {
    uint64_t h = (uint64_t(k.name) << 32 | k.variant) * 0x9E3779B97F4A7C15ull;
    h ^= k.a + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= k.b + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return size_t(h);
  }
};

// How often the trace names a memory record, and the name that then carries its stats.
struct RepeatedMemoryRecord {
  uint32_t count = 0;      // the events that name it
  NameIndex name = kNone;  // the name that carries its stats, once made
};

enum NameVariant : uint32_t { kStepName, kConsumerName, kKernelName, kDeviceOpName, kMemoryName, kOpArgsName };

// Whether the trace is ROCm's: PyTorch built for ROCm writes HIP's device properties under
// CUDA's keys (the GFX version as computeMajor/Minor, compute units as numSms), so only the
// names tell: HIP's runtime calls are hip* (hipLaunchKernel), and the device names say AMD.
bool is_rocm_trace(const kineto::Trace& t, const StringTable& strings) {
  for (const kineto::DeviceProperties& d : t.devices)
    if (strings.view(d.name).starts_with("AMD")) return true;
  for (const kineto::Event& e : t.events)
    if (e.category == Category::kRuntime) return strings.view(e.name).starts_with("hip");
  return false;
}

class PyTorchImport {
 public:
  // `parallel`: the work is shared with a second thread (else all on the caller's); the
  // model is the same either way.
  PyTorchImport(Profile* profile, kineto::Trace& trace, std::string_view host, IngestStages* stages, bool parallel)
      : p_(*profile), t_(trace), host_(host), stages_(stages), parallel_(parallel) {}

  bool run(std::string* error);

 private:
  bool fail(std::string reason) {
    error_ = std::move(reason);
    return false;
  }
  bool place_in_time();
  bool times_fit() const;
  void index_ops_and_steps();
  void assign_lines();
  void group_by_line();
  void plan_planes(EventIndex first_event);
  void sort_lines(std::atomic<size_t>& next);
  void add_host(EventIndex first_event);
  void add_plane(const std::string& name, const std::vector<uint32_t>& lines, int64_t device);
  void add_line(const StagedLine& line);
  void add_event(uint32_t i, const StagedLine& staged, bool top_level);
  NameIndex memory_event(uint32_t record, StatTable& stats);
  void add_memory_stats(const kineto::MemoryRecord& m, StatTable& stats);

  NameIndex plain_name(StringId name);
  // `text` interned, once an import: the stat keys and values that every event of a kind
  // repeats. Interned where first needed, as before, so that ids come in the same order.
  StringId interned(StringId& slot, std::string_view text) {
    if (slot == kNoString) slot = p_.strings.intern(text);
    return slot;
  }
  StringId allocator_of(const kineto::MemoryRecord& m);
  StringId memcpy_details_of(StringId name, int64_t bytes);
  template <typename AddStats>
  NameIndex variant_name(const NameKey& key, AddStats add_stats);
  NameIndex step_name(StringId name, int64_t step, int64_t pid);
  NameIndex consumer_name(StringId name, int64_t pid, uint32_t op_args);
  void add_op_args_stats(const kineto::OpArgs& a);
  StringId op_of(const kineto::Event& e) const;
  int64_t step_of(StringId name);
  std::string thread_line_name(const kineto::Track& track) const;

  Profile& p_;
  kineto::Trace& t_;  // its events' correlations are rewritten in place (from flow arrows)
  std::string host_;
  IngestStages* stages_;
  bool parallel_;
  std::string error_;

  // An event's start in ps since the profile's origin is (ts_ns + base_ns_ - origin_ns_) × 1000:
  // worked out where it is written (sort_lines), once place_in_time() has found that all fit.
  int64_t base_ns_ = 0;
  int64_t origin_ns_ = 0;
  std::vector<uint32_t> line_of_;          // per trace event: index into lines_
  std::vector<StagedLine> lines_;
  std::vector<uint32_t> order_;            // trace events grouped by line, in the file's order
  // The lines to sort: on two threads the longest first; on one in the columns' order, each
  // line's columns grown as it is sorted, so that no line's are held before they are needed.
  std::vector<uint32_t> sort_queue_;
  // The planes in order, each with its lines in order; and where each line's events go in the
  // event columns, known before they are sorted.
  struct PlaneLines {
    std::string name;
    std::vector<uint32_t> lines;
    int64_t device;
  };
  std::vector<PlaneLines> planes_;
  std::vector<EventIndex> line_first_event_;  // by index into lines_
  std::vector<int64_t> devices_;           // device ordinals, by first appearance
  kineto::OpsByExternalId op_by_external_id_;
  std::vector<int64_t> step_by_name_;      // by StringId: step_of(), once worked out
  static constexpr int64_t kOutOfRange = INT64_MIN;
  int64_t earliest_ns_ = 0;                // as written, with the base time; kOutOfRange when one overflows
  int64_t latest_ns_ = 0;                  // the same for the latest start
  int64_t shortest_ps_ = 0, longest_ps_ = 0;
  std::vector<uint8_t> consumer_track_;    // host threads whose work joins the process's step

  std::vector<NameIndex> plain_names_;     // by StringId
  std::unordered_map<NameKey, NameIndex, NameKeyHash> variant_names_;
  std::vector<StringId> kernel_details_;                // by Trace::kernels index, once made
  std::vector<RepeatedMemoryRecord> memory_records_;   // by Trace::memory index
  // Strings interned() keeps, each kNoString until first needed.
  struct Keys {
    StringId addr = kNoString, allocation_bytes = kNoString, bytes_allocated = kNoString,
             bytes_available = kNoString, pool_bytes = kNoString, allocator_name = kNoString,
             allocation = kNoString, deallocation = kNoString, wait_on_event_record = kNoString,
             wait_on_stream = kNoString, waiting_stream = kNoString;
  } keys_;
  struct Allocator {
    int64_t device_type, device_id;
    StringId name;
  };
  std::vector<Allocator> allocators_;  // allocator_name() of each device seen, interned
  // memcpy_details() interned, by the copy's name and size: copies repeat a few of each.
  struct CopyKey {
    StringId name;
    int64_t bytes;
    bool operator==(const CopyKey&) const = default;
  };
  struct CopyKeyHash {
    size_t operator()(const CopyKey& k) const {
      return size_t((uint64_t(k.name) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(k.bytes) * 0xC2B2AE3D27D4EB4Full));
    }
  };
  std::unordered_map<CopyKey, StringId, CopyKeyHash> memcpy_details_;
  uint32_t host_index_ = 0;
  EventIndex next_event_ = 0;              // where add_event writes
};

bool PyTorchImport::run(std::string* error) {
  if (t_.events.empty()) {
    *error = "no events in traceEvents";
    return false;
  }
  // The op index and the times read and write no part of an event that placing it on a line
  // reads: they are made on a second core while the events are grouped by line here. Then both
  // cores sort lines, each taking the longest left, and write each sorted line's times and
  // nesting into the event columns; last, the names and stats, whose ids come in order.
  const size_t first_event = p_.num_events();
  std::promise<bool> placed;
  std::shared_future<bool> times_known = placed.get_future().share();
  std::promise<void> grouped;
  std::shared_future<void> lines_ready = grouped.get_future().share();
  std::atomic<size_t> next_line{0};
  const size_t end = first_event + t_.events.size();
  EventColumns& ev = p_.events;
  auto index_then_sort = [this, &placed, lines_ready, &next_line, &ev, end] {
    bool ok;
    try {
      StageTimer timer(stages_, IngestStages::kIndex);
      index_ops_and_steps();  // reads ts as written, to match flow arrows
      ok = place_in_time();
      if (ok) {  // the columns sorting writes: these two here, the third on the other thread
        ev.start_ps.reserve(end);
        ev.parent.reserve(end);
        if (parallel_) {
          ev.start_ps.resize(end);
          ev.parent.resize(end);
        }
      }
    } catch (...) {
      placed.set_exception(std::current_exception());
      throw;
    }
    placed.set_value(ok);
    lines_ready.get();
    if (ok) {
      StageTimer timer(stages_, IngestStages::kSort);
      sort_lines(next_line);
    }
    return ok;
  };
  std::future<bool> helper;
  if (parallel_) {
    try {
      helper = std::async(std::launch::async, index_then_sort);
    } catch (const std::system_error&) {
      parallel_ = false;  // no thread to be had: all on this one
    }
  }
  if (!parallel_) helper = std::async(std::launch::deferred, index_then_sort);
  try {
    StageTimer timer(stages_, IngestStages::kLines);
    kernel_details_.assign(t_.kernels.size(), kNoString);
    assign_lines();
    group_by_line();
    plan_planes(first_event);
    // The first host's name column takes the pages of each event's line, read no more and
    // already touched: a fresh page costs a fault, a reused one nothing.
    if (first_event == 0 && ev.name.empty()) reuse_for(&line_of_, &ev.name);
    std::vector<uint32_t>().swap(line_of_);
    ev.duration_ps.reserve(end);
    ev.name.reserve(end);
    if (parallel_) {
      ev.duration_ps.resize(end);
      ev.name.resize(end);
    }
  } catch (...) {
    sort_queue_.clear();  // the other thread then sorts nothing and ends
    grouped.set_value();
    throw;
  }
  grouped.set_value();
  if (parallel_ && times_known.get()) {
    StageTimer timer(stages_, IngestStages::kSort);
    sort_lines(next_line);
  }
  const bool ok = helper.get();
  // The sorted order is in the name column now; the first host's first_stat takes its pages.
  if (first_event == 0 && ev.first_stat.empty()) reuse_for(&order_, &ev.first_stat);
  std::vector<uint32_t>().swap(order_);
  ev.first_stat.reserve(end + 1);
  if (!ok) {
    ev.start_ps.resize(first_event);  // the profile as it was
    ev.duration_ps.resize(first_event);
    ev.parent.resize(first_event);
    ev.name.resize(first_event);
    *error = error_;
    return false;
  }
  StageTimer timer(stages_, IngestStages::kModel);
  add_host(EventIndex(first_event));
  return true;
}

// Absolute time is ts × 1000 + baseTimeNanoseconds (0 when absent: ts is then since the
// epoch); the model measures from the earliest event of the first host.
bool PyTorchImport::place_in_time() {
  base_ns_ = t_.base_time_ns.value_or(0);
  if (earliest_ns_ == kOutOfRange) return fail("a timestamp is out of range");
  origin_ns_ = p_.hosts.empty() ? earliest_ns_ : p_.origin_ns;
  if (times_fit()) return true;
  // Some event may not fit: the first that does not, in the file's order, is the one named.
  for (size_t i = 0; i < t_.events.size(); ++i) {
    const kineto::Event& e = t_.events[i];
    if (e.dur_ps > kMaxEventDurationPs)
      return fail("an event at ts " + std::to_string(e.ts_ns / 1000) + " us lasts " +
                  std::to_string(e.dur_ps / 1'000'000'000'000) + " s, longer than the " + kMaxEventDurationText +
                  " an event may last");
    int64_t ps, end;
    if (__builtin_sub_overflow(e.ts_ns + base_ns_, origin_ns_, &ps) || __builtin_mul_overflow(ps, int64_t(1000), &ps) ||
        __builtin_add_overflow(ps, e.dur_ps, &end))
      return fail("timestamps span more than the model can hold (about 106 days): an event at ts " +
                  std::to_string(e.ts_ns / 1000) + " us is out of range");
  }
  return true;
}

// Whether every event's start and end in ps fit, from the extremes alone: the start grows
// with ts, so the earliest and latest bound them all.
bool PyTorchImport::times_fit() const {
  if (longest_ps_ > kMaxEventDurationPs) return false;
  int64_t first, last, end;
  return !__builtin_sub_overflow(earliest_ns_, origin_ns_, &first) && !__builtin_mul_overflow(first, int64_t(1000), &first) &&
         !__builtin_sub_overflow(latest_ns_, origin_ns_, &last) && !__builtin_mul_overflow(last, int64_t(1000), &last) &&
         !__builtin_add_overflow(first, shortest_ps_, &end) && !__builtin_add_overflow(last, longest_ps_, &end);
}

// External ids of ops (to name the op behind GPU work), the steps, the threads that run
// beside them, and correlation ids that only flow arrows give; and the earliest time, in
// the same pass over the events.
void PyTorchImport::index_ops_and_steps() {
  std::unordered_set<int64_t> step_pids;
  std::vector<uint8_t> step_track(t_.tracks.size(), 0);
  std::vector<std::pair<int64_t, StringId>> ops;  // by external id, in the file's order
  ops.reserve(t_.count_by_category[size_t(Category::kCpuOp)] + t_.count_by_category[size_t(Category::kUserAnnotation)]);
  const int64_t base = t_.base_time_ns.value_or(0);
  int64_t earliest = INT64_MAX, latest = INT64_MIN, shortest = INT64_MAX, longest = INT64_MIN;
  bool missing = false, out_of_range = false;
  for (const kineto::Event& e : t_.events) {
    int64_t ns;
    out_of_range |= __builtin_add_overflow(e.ts_ns, base, &ns);
    earliest = std::min(earliest, ns);
    latest = std::max(latest, ns);
    shortest = std::min(shortest, e.dur_ps);
    longest = std::max(longest, e.dur_ps);
    switch (e.category) {
      case Category::kCpuOp:
      case Category::kUserAnnotation:
        if (e.external_id != kineto::kNoId) ops.emplace_back(e.external_id, e.name);
        if (step_of(e.name) >= 0) {
          step_track[e.track] = 1;
          step_pids.insert(t_.tracks[e.track].pid);
        }
        break;
      case Category::kRuntime:
      case Category::kDriver:
      case Category::kKernel:
      case Category::kMemcpy:
      case Category::kMemset:
        missing |= e.correlation == kineto::kNoId;
        break;
      default:
        break;
    }
  }
  op_by_external_id_.assign(ops);
  earliest_ns_ = out_of_range ? kOutOfRange : earliest;
  latest_ns_ = latest;
  shortest_ps_ = shortest;
  longest_ps_ = longest;
  consumer_track_.assign(t_.tracks.size(), 0);
  for (size_t k = 0; k < t_.tracks.size(); ++k)
    consumer_track_[k] = !t_.tracks[k].device && !step_track[k] && step_pids.count(t_.tracks[k].pid) > 0;

  // The flows are read once, here: their memory goes before the model grows.
  std::deque<kineto::FlowPoint> starts = std::move(t_.flow_starts), ends = std::move(t_.flow_ends);
  if (!missing || (starts.empty() && ends.empty())) return;
  // Older traces may link a launch and its kernel only by a flow arrow: it starts at the
  // launch's timestamp on its thread and ends at the kernel's on its device (whose stream
  // the arrow may name by a label, "stream 7", rather than by number).
  struct PointKey {
    int64_t pid, tid, ts;
    bool operator==(const PointKey&) const = default;
  };
  struct PointHash {
    size_t operator()(const PointKey& k) const {
      return std::hash<int64_t>()(k.pid * 31 + k.tid * 0x9E3779B97F4A7C15ll + k.ts);
    }
  };
  std::unordered_map<PointKey, int64_t, PointHash> flow_at;
  for (const kineto::FlowPoint& f : starts) flow_at.emplace(PointKey{f.pid, f.tid, f.ts_ns}, f.id);
  for (const kineto::FlowPoint& f : ends) flow_at.emplace(PointKey{f.pid, INT64_MIN, f.ts_ns}, f.id);
  for (kineto::Event& e : t_.events) {
    const bool launch = e.category == Category::kRuntime || e.category == Category::kDriver;
    const bool gpu_work = e.category == Category::kKernel || e.category == Category::kMemcpy ||
                          e.category == Category::kMemset;
    if (e.correlation != kineto::kNoId || (!launch && !gpu_work)) continue;
    const kineto::Track& track = t_.tracks[e.track];
    auto it = flow_at.find({track.pid, launch ? track.tid : INT64_MIN, e.ts_ns});
    if (it != flow_at.end()) e.correlation = it->second;
  }
}

// Each event's line (and how often each memory record is named, in the same pass).
void PyTorchImport::assign_lines() {
  std::vector<uint32_t> thread_line(t_.tracks.size(), UINT32_MAX), python_line(t_.tracks.size(), UINT32_MAX);
  std::unordered_map<int64_t, uint32_t> device_slot;
  std::vector<uint32_t> scope_line, sync_line;  // by device slot
  auto device_of = [&](int64_t ordinal) {
    auto [it, added] = device_slot.try_emplace(ordinal, uint32_t(devices_.size()));
    if (added) {
      devices_.push_back(ordinal);
      scope_line.push_back(UINT32_MAX);
      sync_line.push_back(UINT32_MAX);
    }
    return it->second;
  };
  auto new_line = [&](LineRole role, uint32_t track, uint32_t device) {
    StagedLine line;
    line.role = role;
    line.track = track;
    line.device = device;
    lines_.push_back(line);
    return uint32_t(lines_.size() - 1);
  };
  // A copy's stream activity by its name: a trace names its copies a few ways, each read once
  // (the first few kept).
  std::vector<std::pair<StringId, xs::StreamActivity>> copy_activity;
  auto copy_activity_of = [&](StringId name) {
    for (const auto& [n, activity] : copy_activity)
      if (n == name) return activity;
    const xs::StreamActivity activity = xs::stream_activity_of(xs::copy_direction(p_.strings.view(name)));
    if (copy_activity.size() < 16) copy_activity.emplace_back(name, activity);
    return activity;
  };
  line_of_.resize(t_.events.size());
  memory_records_.resize(t_.memory.size());
  for (size_t i = 0; i < t_.events.size(); ++i) {
    const kineto::Event& e = t_.events[i];
    const kineto::Track& track = t_.tracks[e.track];
    uint32_t line;
    if (e.category == Category::kMemory) ++memory_records_[e.detail].count;
    switch (e.category) {
      case Category::kKernel:
      case Category::kMemcpy:
      case Category::kMemset: {
        uint32_t& slot = thread_line[e.track];  // a device track's stream line
        if (slot == UINT32_MAX) slot = new_line(LineRole::kStream, e.track, device_of(track.pid));
        line = slot;
        lines_[line].stream_kinds |=
            e.category == Category::kKernel   ? xs::kStreamCompute
            : e.category == Category::kMemset ? xs::kStreamMemset
                                              : copy_activity_of(e.name);
        break;
      }
      case Category::kGpuUserAnnotation:
      case Category::kSync: {
        const uint32_t device = device_of(track.pid);
        const bool scope = e.category == Category::kGpuUserAnnotation;
        uint32_t& slot = scope ? scope_line[device] : sync_line[device];
        if (slot == UINT32_MAX) slot = new_line(scope ? LineRole::kNameScope : LineRole::kSync, e.track, device);
        line = slot;
        break;
      }
      case Category::kPythonFunction: {
        uint32_t& slot = python_line[e.track];
        if (slot == UINT32_MAX) slot = new_line(LineRole::kPython, e.track, 0);
        line = slot;
        break;
      }
      default: {
        uint32_t& slot = thread_line[e.track];
        if (slot == UINT32_MAX) slot = new_line(LineRole::kThread, e.track, 0);
        line = slot;
        break;
      }
    }
    line_of_[i] = line;
    ++lines_[line].count;
  }
}

// An event's place on its line: by start, an enclosing event (the longer) before what it
// encloses, then in the file's order.
struct LinePlace {
  int64_t start_ps;
  int64_t minus_duration_ps;
  uint32_t event;
  bool operator<(const LinePlace& o) const {
    if (start_ps != o.start_ps) return start_ps < o.start_ps;
    if (minus_duration_ps != o.minus_duration_ps) return minus_duration_ps < o.minus_duration_ps;
    return event < o.event;
  }
};

// Sorts by merging the runs already in order: a trace writes each kind of event in order, so
// a thread's line is a few sorted runs (ops, runtime calls, instants). The runs are merged in
// one pass (a heap of their heads), each place handed to `out` in order, read from the events
// where they are (`line.at(j)`, the line's j-th event in the file's order): no copy of the
// line is made. The order is total: the result is the one any sort gives.
template <typename Line, typename Sink>
void merge_runs(const Line& line, uint32_t count, Sink&& out) {
  struct Head {
    LinePlace place;
    uint32_t next, end;  // the rest of its run
  };
  std::vector<Head> heap;
  if (count == 0) return;
  LinePlace previous = line.at(0);
  for (uint32_t begin = 0, j = 1; j <= count; ++j) {
    line.prefetch(j + kPrefetchAhead);
    const LinePlace place = j < count ? line.at(j) : previous;
    if (j == count || place < previous) {
      heap.push_back({line.at(begin), begin + 1, j});
      begin = j;
    }
    previous = place;
  }
  if (heap.size() == 1) {
    for (uint32_t j = 0; j < count; ++j) {
      line.prefetch(j + kPrefetchAhead);
      out(line.at(j));
    }
    return;
  }
  // A min-heap of the runs' heads: the children of k are 2k + 1 and 2k + 2.
  auto sift_down = [&heap](size_t k) {
    const size_t n = heap.size();
    const Head moving = heap[k];
    for (size_t child; (child = 2 * k + 1) < n; k = child) {
      if (child + 1 < n && heap[child + 1].place < heap[child].place) ++child;
      if (!(heap[child].place < moving.place)) break;
      heap[k] = heap[child];
    }
    heap[k] = moving;
  };
  for (size_t k = heap.size() / 2; k-- > 0;) sift_down(k);
  while (heap.size() > 1) {
    Head& top = heap.front();
    out(top.place);
    if (top.next < top.end) {
      line.prefetch(top.next + kPrefetchAhead / 2);  // each run is read in order
      top.place = line.at(top.next++);
    } else {
      top = heap.back();
      heap.pop_back();
    }
    sift_down(0);
  }
  const Head& last = heap.front();
  out(last.place);
  for (uint32_t j = last.next; j < last.end; ++j) out(line.at(j));
}

// Groups the events by line (a counting sort), in the file's order.
void PyTorchImport::group_by_line() {
  uint32_t next = 0;
  for (StagedLine& line : lines_) {
    line.first = next;
    next += line.count;
  }
  std::vector<uint32_t> fill(lines_.size());
  for (size_t l = 0; l < lines_.size(); ++l) fill[l] = lines_[l].first;
  order_.reserve(t_.events.size() + 1);  // one more: first_stat's room, once sorted (run())
  order_.resize(t_.events.size());
  for (uint32_t i = 0; i < t_.events.size(); ++i) order_[fill[line_of_[i]]++] = i;
}

// Sorts lines by start, an enclosing event (the longer) before what it encloses, taking the
// next line of sort_queue_ until none is left, and writes each event's start, duration and
// enclosing event (the innermost earlier one on its line still open, as for XSpace) in the
// columns as it comes out sorted. Each line's part of the columns is its own, so two threads
// may sort at once. The start as written orders as the start in ps does.
void PyTorchImport::sort_lines(std::atomic<size_t>& next) {
  EventColumns& ev = p_.events;
  // The j-th event of a line in the file's order, as sorting reads it.
  struct FileOrder {
    const kineto::Event* events;
    const uint32_t* order;
    uint32_t count;
    LinePlace at(uint32_t j) const {
      const kineto::Event& e = events[order[j]];
      return {e.ts_ns, -e.dur_ps, order[j]};
    }
    void prefetch(uint32_t j) const {
      if (j < count) __builtin_prefetch(&events[order[j]]);
    }
  };
  struct Open {
    EventIndex event;
    int64_t end_ps;
  };
  std::vector<Open> open;
  for (size_t q; (q = next.fetch_add(1, std::memory_order_relaxed)) < sort_queue_.size();) {
    const StagedLine& line = lines_[sort_queue_[q]];
    EventIndex at = line_first_event_[sort_queue_[q]];
    if (!parallel_) {  // this line's part of the columns, after the lines sorted before it
      ev.start_ps.resize(at + line.count);
      ev.duration_ps.resize(at + line.count);
      ev.parent.resize(at + line.count);
      ev.name.resize(at + line.count);
    }
    open.clear();
    merge_runs(FileOrder{t_.events.data(), order_.data() + line.first, line.count}, line.count,
               [&](const LinePlace& place) {
                 // The name column holds the event's index in the trace until its name is made.
                 ev.name[at] = place.event;
                 const int64_t start = (place.start_ps + base_ns_ - origin_ns_) * 1000,
                               stop = start - place.minus_duration_ps;
                 while (!open.empty() && !(open.back().end_ps > start && open.back().end_ps >= stop)) open.pop_back();
                 ev.start_ps[at] = start;
                 ev.duration_ps[at] = -place.minus_duration_ps;
                 ev.parent[at] = open.empty() ? kNone : open.back().event;
                 open.push_back({at++, stop});
               });
  }
}

std::string PyTorchImport::thread_line_name(const kineto::Track& track) const {
  if (track.name != kEmptyString) return std::string(p_.strings.view(track.name));
  if (track.tid < INT64_MIN / 4) return std::string(p_.strings.view(StringId(track.tid - INT64_MIN / 2)));
  return "thread " + std::to_string(track.tid);
}

// The order of the planes and of their lines, and so where each line's events go in the
// columns (from `first_event` on, after the events already there).
void PyTorchImport::plan_planes(EventIndex first_event) {
  auto by_thread = [&](LineRole role) {
    std::vector<uint32_t> lines;
    for (uint32_t l = 0; l < lines_.size(); ++l)
      if (lines_[l].role == role) lines.push_back(l);
    std::sort(lines.begin(), lines.end(), [&](uint32_t a, uint32_t b) {
      const kineto::Track &ta = t_.tracks[lines_[a].track], &tb = t_.tracks[lines_[b].track];
      return ta.pid != tb.pid ? ta.pid < tb.pid : ta.tid < tb.tid;
    });
    return lines;
  };
  if (auto threads = by_thread(LineRole::kThread); !threads.empty())
    planes_.push_back({std::string(xs::kHostPlaneName), std::move(threads), -1});

  std::vector<uint32_t> device_order(devices_.size());
  std::iota(device_order.begin(), device_order.end(), 0u);
  std::sort(device_order.begin(), device_order.end(), [&](uint32_t a, uint32_t b) { return devices_[a] < devices_[b]; });
  for (uint32_t d : device_order) {
    std::vector<uint32_t> lines;
    for (uint32_t l = 0; l < lines_.size(); ++l)
      if (lines_[l].role != LineRole::kThread && lines_[l].role != LineRole::kPython && lines_[l].device == d)
        lines.push_back(l);
    // Streams by id, then the name scope and synchronisation lines.
    std::sort(lines.begin(), lines.end(), [&](uint32_t a, uint32_t b) {
      if (lines_[a].role != lines_[b].role) return lines_[a].role < lines_[b].role;
      return t_.tracks[lines_[a].track].tid < t_.tracks[lines_[b].track].tid;
    });
    // Kineto writes every accelerator's work alike; MTIA's comes in a category of its own.
    bool mtia = false;
    for (uint32_t l : lines) mtia |= t_.tracks[lines_[l].track].mtia;
    planes_.push_back({xs::device_plane_name(mtia ? "MTIA" : "GPU", devices_[d]), std::move(lines), devices_[d]});
  }
  if (auto python = by_thread(LineRole::kPython); !python.empty())
    planes_.push_back({"/host:python", std::move(python), -1});

  line_first_event_.assign(lines_.size(), 0);
  EventIndex at = first_event;
  for (const PlaneLines& plane : planes_) {
    for (uint32_t l : plane.lines) {
      line_first_event_[l] = at;
      at += lines_[l].count;
      sort_queue_.push_back(l);
    }
  }
  if (parallel_) {
    std::stable_sort(sort_queue_.begin(), sort_queue_.end(),
                     [&](uint32_t a, uint32_t b) { return lines_[a].count > lines_[b].count; });
  }
}

// The host, its planes and lines, and each event's name and stats (the times and nesting are
// in the columns already, from sort_lines, and the name column holds each event's index in the
// trace), from event `first_event` on.
void PyTorchImport::add_host(EventIndex first_event) {
  host_index_ = uint32_t(p_.hosts.size());
  Host host;
  host.name = p_.strings.intern(host_);
  if (t_.rank) host.rank = *t_.rank;
  if (t_.rank) host.hostname = p_.strings.intern("rank" + std::to_string(*t_.rank));
  else host.hostname = t_.host_name;
  host.trace_clock_base_ns = t_.base_time_ns.value_or(0);
  host.first_plane = uint32_t(p_.planes.size());
  p_.hosts.push_back(host);
  p_.origin_ns = origin_ns_;

  next_event_ = first_event;
  p_.events.first_stat.resize(p_.num_events() + 1);
  for (const PlaneLines& plane : planes_) add_plane(plane.name, plane.lines, plane.device);

  Host& h = p_.hosts[host_index_];
  h.num_planes = uint32_t(p_.planes.size()) - h.first_plane;
  if (t_.unknown_device_events > 0)
    p_.warnings.push_back(host_ + ": " + std::to_string(t_.unknown_device_events) +
                          " events on device streams in categories mlprof does not know (first: \"" +
                          t_.unknown_device_category.substr(0, 40) + "\") were read as device work (kernels)");
  if (t_.skipped_events > 0)
    p_.warnings.push_back(host_ + ": " + std::to_string(t_.skipped_events) +
                          " events of phases other than X, i, s, f and M were skipped");
}

void PyTorchImport::add_plane(const std::string& name, const std::vector<uint32_t>& lines, int64_t device) {
  Plane plane;
  plane.name = p_.strings.intern(name);
  plane.id = int64_t(p_.planes.size() - p_.hosts[host_index_].first_plane);
  const PlaneIdentity identity = identify_plane(name);
  plane.kind = identity.kind;
  plane.device_type = p_.strings.intern(identity.device_type);
  plane.device_ordinal = identity.device_ordinal;
  plane.host = host_index_;
  plane.stats.first = uint32_t(p_.metadata_stats.size());
  if (device >= 0) {
    for (const kineto::DeviceProperties& d : t_.devices) {
      if (d.id != device) continue;
      if (d.num_sms >= 0) p_.metadata_stats.add(kCoreCount, StatValue::of_uint(uint64_t(d.num_sms)));
      if (d.total_global_mem >= 0) p_.metadata_stats.add(kMemorySize, StatValue::of_uint(uint64_t(d.total_global_mem)));
      if (d.compute_major >= 0) p_.metadata_stats.add(kComputeCapMajor, StatValue::of_int(d.compute_major));
      if (d.compute_minor >= 0) p_.metadata_stats.add(kComputeCapMinor, StatValue::of_int(d.compute_minor));
      if (d.name != kEmptyString) p_.metadata_stats.add(p_.strings.intern("device_name"), StatValue::of_string(d.name));
      break;
    }
    if (is_rocm_trace(t_, p_.strings)) {
      p_.metadata_stats.add(p_.strings.intern(xs::kStatDeviceVendor),
                            StatValue::of_string(p_.strings.intern(xs::kDeviceVendorAmd)));
    }
  }
  plane.stats.count = uint32_t(p_.metadata_stats.size()) - plane.stats.first;
  plane.first_line = uint32_t(p_.lines.size());
  const uint32_t plane_index = uint32_t(p_.planes.size());
  p_.planes.push_back(plane);
  for (uint32_t l : lines) add_line(lines_[l]);
  p_.planes[plane_index].num_lines = uint32_t(p_.lines.size()) - p_.planes[plane_index].first_line;
}

void PyTorchImport::add_line(const StagedLine& staged) {
  Line line;
  line.plane = uint32_t(p_.planes.size() - 1);
  const kineto::Track& track = t_.tracks[staged.track];
  switch (staged.role) {
    case LineRole::kThread:
    case LineRole::kPython:
      line.id = track.tid;
      line.name = p_.strings.intern(thread_line_name(track));
      break;
    case LineRole::kStream: {
      line.id = track.tid;
      line.name = p_.strings.intern(xs::stream_line_name(track.tid, staged.stream_kinds));
      break;
    }
    case LineRole::kNameScope:
      line.id = xs::derived_line_id(xs::DerivedLine::kNameScope);
      line.name = p_.strings.intern(xs::kNameScopeLineName);
      break;
    case LineRole::kSync:
      line.id = xs::kSyncLineId;
      line.name = p_.strings.intern(xs::kSyncLineName);
      break;
  }
  line.kind = identify_line(p_.planes[line.plane].kind, p_.strings.view(line.name), line.id);
  line.first_event = next_event_;
  line.num_events = staged.count;
  p_.lines.push_back(line);

  // The columns hold the line sorted (sort_lines), each event's index in the trace where its
  // name goes, and the nesting: whether an event is top-level names a consumer's work.
  const EventColumns& ev = p_.events;
  const EventIndex end = next_event_ + staged.count;
  while (next_event_ < end) {
    // A line in time order visits the file's events out of order: each is asked for ahead.
    if (next_event_ + kPrefetchAhead < end) __builtin_prefetch(&t_.events[ev.name[next_event_ + kPrefetchAhead]]);
    add_event(ev.name[next_event_], staged, ev.parent[next_event_] == kNone);
  }
}

// The step number of a ProfilerStep#N name, or -1: read once per name.
int64_t PyTorchImport::step_of(StringId name) {
  constexpr int64_t kNotRead = -2;
  if (name >= step_by_name_.size()) step_by_name_.resize(std::max<size_t>(name + 1, p_.strings.size()), kNotRead);
  int64_t& step = step_by_name_[name];
  if (step == kNotRead && !xs::profiler_step_number(p_.strings.view(name), &step)) step = -1;
  return step;
}

StringId PyTorchImport::op_of(const kineto::Event& e) const {
  // Older traces copy the correlation id into "External id": then it names no op.
  if (e.external_id == kineto::kNoId || e.external_id == e.correlation) return kEmptyString;
  return op_by_external_id_.find(e.external_id);
}

void PyTorchImport::add_event(uint32_t i, const StagedLine& staged, bool top_level) {
  const kineto::Event& e = t_.events[i];
  const kineto::Track& track = t_.tracks[e.track];
  const int64_t correlation = e.correlation;
  StatTable& stats = p_.event_stats;
  auto add_correlation = [&] {
    if (correlation != kineto::kNoId) stats.add(kCorrelationId, StatValue::of_uint(uint64_t(correlation)));
  };
  NameIndex name;
  switch (e.category) {
    case Category::kKernel: {
      const kineto::KernelLaunch& k = t_.kernels[e.detail];
      StringId& interned = kernel_details_[e.detail];
      if (interned == kNoString) interned = p_.strings.intern(kernel_details(k));
      const StringId details = interned, op = op_of(e);
      // A collective kernel's arguments differ from call to call where its launch does not.
      const uint64_t details_and_args = uint64_t(details) | uint64_t(k.op_args + 1) << 32;
      name = variant_name({e.name, kKernelName, details_and_args, op}, [&] {
        p_.metadata_stats.add(kKernelDetails, StatValue::of_string(details));
        if (op != kEmptyString) p_.metadata_stats.add(kTfOp, StatValue::of_string(op));
        if (k.op_args >= 0) add_op_args_stats(t_.op_args[size_t(k.op_args)]);
      });
      add_correlation();
      break;
    }
    case Category::kMemcpy:
    case Category::kMemset: {
      const StringId op = op_of(e);
      name = op == kEmptyString ? plain_name(e.name) : variant_name({e.name, kDeviceOpName, op, 0}, [&] {
        p_.metadata_stats.add(kTfOp, StatValue::of_string(op));
      });
      add_correlation();
      const int64_t bytes = t_.copies[e.detail].bytes;
      if (e.category == Category::kMemcpy) {
        stats.add(kMemcpyDetails, StatValue::of_string(memcpy_details_of(e.name, bytes)));
      } else if (bytes >= 0) {
        stats.add(p_.strings.intern("memset_details"),
                  StatValue::of_string(p_.strings.intern("size:" + std::to_string(bytes))));
      }
      break;
    }
    case Category::kMemory: {
      name = memory_event(e.detail, stats);
      break;
    }
    case Category::kSync: {
      name = plain_name(e.name);
      add_correlation();
      if (e.detail != UINT32_MAX) {  // a wait on a recorded CUDA event (the critical path links it)
        const kineto::EventWait& w = t_.event_waits[e.detail];
        stats.add(interned(keys_.wait_on_event_record, kArgWaitOnEventRecord), StatValue::of_int(w.record_correlation));
        stats.add(interned(keys_.wait_on_stream, kArgWaitOnStream), StatValue::of_int(w.recorded_stream));
        if (track.tid >= 0) stats.add(interned(keys_.waiting_stream, kArgWaitingStream), StatValue::of_int(track.tid));
      }
      break;
    }
    default: {
      int64_t step;
      // 2021 traces file ProfilerStep#N as an op, later ones as a user annotation.
      if (staged.role == LineRole::kThread &&
          (e.category == Category::kUserAnnotation || e.category == Category::kCpuOp) &&
          (step = step_of(e.name)) >= 0) {
        name = step_name(e.name, step, track.pid);
      } else if (top_level && staged.role == LineRole::kThread && consumer_track_[e.track]) {
        name = consumer_name(e.name, track.pid, e.detail);
      } else if (e.detail != UINT32_MAX) {
        name = variant_name({e.name, kOpArgsName, e.detail, 0}, [&] { add_op_args_stats(t_.op_args[e.detail]); });
      } else {
        name = plain_name(e.name);
      }
      if (e.category == Category::kRuntime || e.category == Category::kDriver || e.category == Category::kSync)
        add_correlation();
      break;
    }
  }
  p_.events.name[next_event_] = name;
  p_.events.first_stat[++next_event_] = uint32_t(stats.size());
}

// A record the trace repeats shares a name that carries all its stats (as an XEventMetadata
// carries stats for all its events); one seen once carries its own.
NameIndex PyTorchImport::memory_event(uint32_t record, StatTable& stats) {
  const kineto::MemoryRecord& m = t_.memory[record];
  RepeatedMemoryRecord& repeated = memory_records_[record];
  if (repeated.name != kNone) return repeated.name;
  const StringId allocator = allocator_of(m);
  const StringId kind = m.bytes < 0 ? interned(keys_.deallocation, xs::kMemoryDeallocationEventName)
                                    : interned(keys_.allocation, xs::kMemoryAllocationEventName);
  const StringId allocator_key = interned(keys_.allocator_name, xs::kStatAllocatorName);
  if (repeated.count < 2) {
    const NameIndex name = variant_name({kind, kMemoryName, allocator, 0}, [&] {
      p_.metadata_stats.add(allocator_key, StatValue::of_string(allocator));
    });
    add_memory_stats(m, stats);
    return name;
  }
  EventName n;
  n.name = kind;
  n.stats.first = uint32_t(p_.metadata_stats.size());
  p_.metadata_stats.add(allocator_key, StatValue::of_string(allocator));
  add_memory_stats(m, p_.metadata_stats);
  n.stats.count = uint32_t(p_.metadata_stats.size()) - n.stats.first;
  repeated.name = NameIndex(p_.names.size());
  p_.names.push_back(n);
  return repeated.name;
}

void PyTorchImport::add_memory_stats(const kineto::MemoryRecord& m, StatTable& stats) {
  stats.add(interned(keys_.addr, xs::kStatAddr), StatValue::of_uint(uint64_t(m.addr)));
  stats.add(interned(keys_.allocation_bytes, xs::kStatAllocationBytes),
            StatValue::of_uint(m.bytes < 0 ? uint64_t(0) - uint64_t(m.bytes) : uint64_t(m.bytes)));
  if (m.total_allocated >= 0) {
    stats.add(interned(keys_.bytes_allocated, xs::kStatBytesAllocated), StatValue::of_int(m.total_allocated));
    // PyTorch's caching allocator holds "reserved" bytes, of which "allocated" are in use:
    // the rest is free to it, what TensorFlow's allocators call available.
    if (m.total_reserved >= m.total_allocated)
      stats.add(interned(keys_.bytes_available, xs::kStatBytesAvailable),
                StatValue::of_int(m.total_reserved - m.total_allocated));
  }
  // The pool itself, its own figure: not the memory's capacity (that is the device's).
  if (m.total_reserved >= 0) stats.add(interned(keys_.pool_bytes, xs::kStatPoolBytes), StatValue::of_int(m.total_reserved));
}

StringId PyTorchImport::allocator_of(const kineto::MemoryRecord& m) {
  for (const Allocator& a : allocators_)
    if (a.device_type == m.device_type && a.device_id == m.device_id) return a.name;
  allocators_.push_back({m.device_type, m.device_id, p_.strings.intern(allocator_name(m))});
  return allocators_.back().name;
}

StringId PyTorchImport::memcpy_details_of(StringId name, int64_t bytes) {
  auto [it, added] = memcpy_details_.try_emplace({name, bytes}, kNoString);
  if (added) it->second = p_.strings.intern(memcpy_details(p_.strings.view(name), bytes));
  return it->second;
}

NameIndex PyTorchImport::plain_name(StringId name) {
  if (name >= plain_names_.size()) plain_names_.resize(std::max<size_t>(name + 1, p_.strings.size()), kNone);
  NameIndex& index = plain_names_[name];
  if (index == kNone) {
    EventName n;
    n.name = name;
    n.stats.first = uint32_t(p_.metadata_stats.size());
    index = NameIndex(p_.names.size());
    p_.names.push_back(n);
  }
  return index;
}

template <typename AddStats>
NameIndex PyTorchImport::variant_name(const NameKey& key, AddStats add_stats) {
  auto [it, added] = variant_names_.try_emplace(key, NameIndex(p_.names.size()));
  if (!added) return it->second;
  EventName n;
  n.name = key.name;
  n.stats.first = uint32_t(p_.metadata_stats.size());
  add_stats();
  n.stats.count = uint32_t(p_.metadata_stats.size()) - n.stats.first;
  p_.names.push_back(n);
  return it->second;
}

// ProfilerStep#N in the model's words: a root (_r) with its step number, producing the
// context that the process's other threads consume.
NameIndex PyTorchImport::step_name(StringId name, int64_t step, int64_t pid) {
  return variant_name({name, kStepName, uint64_t(pid), 0}, [&] {
    p_.metadata_stats.add(kStepNum, StatValue::of_int(step));
    p_.metadata_stats.add(kIsRoot, StatValue::of_int(1));
    p_.metadata_stats.add(kProducerType, StatValue::of_uint(kStepContextType));
    p_.metadata_stats.add(kProducerId, StatValue::of_uint(uint64_t(pid)));
  });
}

// A top-level event on a thread beside the step's (the autograd engine's backward pass, a
// pin-memory thread): it belongs to the step that started last before it.
NameIndex PyTorchImport::consumer_name(StringId name, int64_t pid, uint32_t op_args) {
  return variant_name({name, kConsumerName, uint64_t(pid), uint64_t(op_args)}, [&] {
    p_.metadata_stats.add(kConsumerType, StatValue::of_uint(kStepContextType));
    p_.metadata_stats.add(kConsumerId, StatValue::of_uint(uint64_t(pid)));
    if (op_args != UINT32_MAX) add_op_args_stats(t_.op_args[op_args]);
  });
}

// An op's recorded arguments, as stats of its name (shared by every event that repeats them).
void PyTorchImport::add_op_args_stats(const kineto::OpArgs& a) {
  auto text = [&](std::string_view key, StringId value) {
    if (value != kEmptyString) p_.metadata_stats.add(p_.strings.intern(key), StatValue::of_string(value));
  };
  auto integer = [&](std::string_view key, int64_t value) {
    if (value >= 0) p_.metadata_stats.add(p_.strings.intern(key), StatValue::of_int(value));
  };
  text(kArgInputType, a.input_types);
  text(kArgInputDims, a.input_dims);
  text(kArgCollectiveName, a.collective);
  integer(kArgInMsgNelems, a.in_nelems);
  integer(kArgOutMsgNelems, a.out_nelems);
  text(kArgInSplitSize, a.in_split);
  text(kArgOutSplitSize, a.out_split);
  text(kArgDtype, a.dtype);
  integer(kArgGroupSize, a.group_size);
  text(kArgProcessGroupName, a.group_name);
  text(kArgProcessGroupRanks, a.group_ranks);
}

bool import_source(kineto::JsonSource& source, std::string_view host, Profile* profile, const LoadProgress& progress,
                   std::string* error, bool parse_ahead = true, IngestStages* stages = nullptr) {
  kineto::Trace trace;
  // Reading is most of the work; placing the events on their lines is the last tenth.
  LoadProgress reading;
  if (progress) reading = [&progress](double f) { progress(0.9 * f); };
  if (!kineto::read_trace(source, &profile->strings, &trace, reading, error, parse_ahead, stages)) return false;
  PyTorchImport import(profile, trace, host, stages, parse_ahead);
  return import.run(error);
}

}  // namespace

bool import_pytorch_trace_file(const std::string& path, std::string_view host, Profile* profile, std::string* error,
                               const LoadProgress& progress, bool parse_ahead, IngestStages* stages) {
  kineto::JsonSource source;
  return source.open_file(path, error, GzipEngine::kFastest, stages) &&
         import_source(source, host, profile, progress, error, parse_ahead, stages);
}

bool import_pytorch_trace_bytes(const void* data, size_t size, std::string_view host, Profile* profile,
                                std::string* error) {
  kineto::JsonSource source;
  source.open_bytes(data, size);
  return import_source(source, host, profile, {}, error);
}

}  // namespace mlprof::model
