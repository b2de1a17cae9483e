#include "capture/cupti/device_trace_builder.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "capture/cupti/occupancy.h"
#include "format/xspace_schema.h"

namespace mlprof::capture::gpu {
namespace {

namespace xs = format::xspace;

constexpr int64_t kFirstDevicePlaneId = 1000;  // the host plane is 49, Task Environment 80

// What a copy adds to its stream's name ("Stream #7(Compute,MemcpyH2D)"), also its event name.
xs::StreamActivity stream_activity(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice: return xs::kStreamMemcpyH2D;
    case CopyKind::kDeviceToHost: return xs::kStreamMemcpyD2H;
    case CopyKind::kDeviceToDevice: return xs::kStreamMemcpyD2D;
    case CopyKind::kPeerToPeer: return xs::kStreamMemcpyP2P;
    case CopyKind::kHostToHost: return xs::kStreamMemcpyH2H;
    default: return xs::kStreamMemcpyOther;
  }
}

const char* memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kArray: return "array";
    case MemoryKind::kManaged: return "managed";
    default: return "unknown";
  }
}

const char* sync_name(SyncKind kind) {
  switch (kind) {
    case SyncKind::kEventSynchronize: return "Event Sync";
    case SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case SyncKind::kStreamSynchronize: return "Stream Sync";
    case SyncKind::kContextSynchronize: return "Context Sync";
    default: return "Synchronization";
  }
}

// Calls a program makes all the time that start no device work and only clutter its threads'
// lines (queries and getters); kept when they did start work.
bool is_query_call(std::string_view name) {
  static constexpr std::array<std::string_view, 24> kQueries = {
      "cudaGetDevice", "cudaSetDevice", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetDeviceCount",
      "cudaDeviceGetAttribute", "cudaPointerGetAttributes", "cudaStreamIsCapturing", "cudaStreamGetCaptureInfo",
      "cudaFuncGetAttributes", "cudaEventQuery", "cudaStreamQuery", "cudaGetDriverEntryPoint",
      "cudaGetDriverEntryPointByVersion", "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxGetDevice", "cuDeviceGet",
      "cuDeviceGetAttribute", "cuPointerGetAttribute", "cuPointerGetAttributes", "cuGetProcAddress",
      "cuStreamIsCapturing", "cuEventQuery"};
  if (name.starts_with("cudaOccupancy") || name.starts_with("cuOccupancy")) return true;
  return std::find(kQueries.begin(), kQueries.end(), name) != kQueries.end();
}

std::string demangle(std::string_view name) {
  const std::string mangled(name);
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return mangled;
  std::string out(text);
  std::free(text);
  return out;
}

// Interns one plane's names and stat values while its events are added.
class PlaneWriter {
 public:
  PlaneWriter(format::WirePlane* plane, DeviceTrace* storage) : plane_(plane), storage_(storage) {}

  uint32_t event_name(std::string_view name) {
    auto [it, added] = event_ids_.try_emplace(std::string(name), 0);
    if (added) {
      it->second = uint32_t(plane_->event_metadata.size() + 1);
      plane_->event_metadata.push_back({int64_t(it->second), format::make_valid_utf8(name), {}});
    }
    return it->second;
  }

  int64_t stat_key(std::string_view name) {
    auto [it, added] = stat_ids_.try_emplace(std::string(name), 0);
    if (added) {
      it->second = int64_t(plane_->stat_metadata.size() + 1);
      plane_->stat_metadata.push_back({it->second, format::make_valid_utf8(name), {}});
    }
    return it->second;
  }

  // A string value shared by many events, stored once (XStat.ref_value).
  format::WireStat ref(std::string_view key, std::string_view value) {
    return format::WireStat::of_ref(stat_key(key), uint64_t(stat_key(value)));
  }
  format::WireStat text(std::string_view key, std::string value) {
    return format::WireStat::of_string(stat_key(key), storage_->string_storage.emplace_back(format::make_valid_utf8(value)));
  }
  format::WireStat number(std::string_view key, uint64_t value) { return format::WireStat::of_uint64(stat_key(key), value); }

  // The stats of one event; returns WireEvent::stats.
  uint32_t stat_list(const std::vector<format::WireStat>& stats) {
    if (stats.empty()) return 0;
    plane_->stat_lists.push_back({uint32_t(plane_->stat_pool.size()), uint32_t(stats.size())});
    plane_->stat_pool.insert(plane_->stat_pool.end(), stats.begin(), stats.end());
    return uint32_t(plane_->stat_lists.size());
  }

 private:
  format::WirePlane* plane_;
  DeviceTrace* storage_;
  std::unordered_map<std::string, uint32_t> event_ids_;
  std::unordered_map<std::string, int64_t> stat_ids_;
};

// One event of a stream line before it is written.
struct PendingEvent {
  uint64_t start_ns, end_ns;
  uint32_t metadata_id;
  uint32_t stats;
};

struct PendingLine {
  uint8_t kinds = 0;
  std::vector<PendingEvent> events;
};

struct PendingPlane {
  format::WirePlane plane;
  std::unique_ptr<PlaneWriter> writer;
  std::map<uint32_t, PendingLine> streams;  // by stream id
  std::vector<PendingEvent> syncs;
  std::unordered_map<uint32_t, uint32_t> kernel_names;  // NameTable index -> event metadata id
};

// Host calls after folding nested driver calls and dropping idle queries.
struct HostCalls {
  std::vector<const ApiActivity*> kept;
  std::unordered_map<uint32_t, uint32_t> alias;  // driver call's correlation id -> its runtime call's
};

class Builder {
 public:
  Builder(const GpuActivityLog& log, const GpuClock& clock, DeviceTrace* out) : log_(log), clock_(clock), out_(out) {}

  void build() {
    map_threads();
    fold_driver_calls();
    for (const LaunchOp& l : log_.launch_ops) op_of_.try_emplace(canonical(l.correlation_id), l.op);
    for (const ExternalCorrelation& x : log_.external_correlations) external_of_.try_emplace(canonical(x.correlation_id), x.external_id);
    for (const KernelActivity& k : log_.kernels) add_kernel(k);
    for (const MemcpyActivity& m : log_.memcpys) add_memcpy(m);
    for (const MemsetActivity& m : log_.memsets) add_memset(m);
    for (const SyncActivity& s : log_.syncs) add_sync(s);
    write_planes();
    write_host_calls();
    if (log_.dropped_records > 0) {
      out_->warnings.push_back("mlprof dropped " + std::to_string(log_.dropped_records) +
                               " GPU activity records: CUPTI's buffers were full; capture fewer steps or raise "
                               "max_buffer_bytes");
    }
  }

 private:
  // CUPTI's thread ids -> OS thread ids, from the calls the callbacks saw.
  void map_threads() {
    std::unordered_map<uint32_t, uint32_t> os_thread_of_call;
    for (const ThreadOfCall& t : log_.threads_of_calls) os_thread_of_call.emplace(t.correlation_id, t.os_thread);
    for (const ApiActivity& a : log_.api_calls) {
      auto it = os_thread_of_call.find(a.correlation_id);
      if (it != os_thread_of_call.end()) os_thread_.try_emplace(a.thread, it->second);
    }
  }

  uint32_t os_thread(uint32_t cupti_thread) const {
    auto it = os_thread_.find(cupti_thread);
    return it == os_thread_.end() ? cupti_thread : it->second;
  }

  uint32_t canonical(uint32_t correlation_id) const {
    auto it = calls_.alias.find(correlation_id);
    return it == calls_.alias.end() ? correlation_id : it->second;
  }

  // Per thread, in time order: a driver call inside a runtime call is that call's work.
  void fold_driver_calls() {
    std::vector<const ApiActivity*> calls;
    calls.reserve(log_.api_calls.size());
    for (const ApiActivity& a : log_.api_calls) calls.push_back(&a);
    std::sort(calls.begin(), calls.end(), [](const ApiActivity* a, const ApiActivity* b) {
      if (a->thread != b->thread) return a->thread < b->thread;
      if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
      if (a->end_ns != b->end_ns) return a->end_ns > b->end_ns;  // the enclosing call first
      return a->domain < b->domain;                               // runtime before driver
    });
    std::vector<const ApiActivity*> open_runtime;
    for (const ApiActivity* a : calls) {
      if (!open_runtime.empty() && open_runtime.back()->thread != a->thread) open_runtime.clear();
      while (!open_runtime.empty() && open_runtime.back()->end_ns <= a->start_ns) open_runtime.pop_back();
      if (a->domain == ApiDomain::kDriver && !open_runtime.empty() && a->end_ns <= open_runtime.back()->end_ns) {
        calls_.alias.emplace(a->correlation_id, open_runtime.back()->correlation_id);
        continue;
      }
      if (a->domain == ApiDomain::kRuntime) open_runtime.push_back(a);
      calls_.kept.push_back(a);
    }
  }

  PendingPlane& plane(uint32_t device) {
    auto [it, added] = planes_.try_emplace(device);
    if (added) {
      it->second.plane.id = kFirstDevicePlaneId + device;
      it->second.plane.name = xs::device_plane_name("GPU", device);
      it->second.writer = std::make_unique<PlaneWriter>(&it->second.plane, out_);
    }
    return it->second;
  }

  // Stats every piece of device work carries.
  void add_links(PlaneWriter& w, uint32_t correlation_id, uint32_t context, std::vector<format::WireStat>& stats) {
    const uint32_t id = canonical(correlation_id);
    used_correlations_.insert(id);
    stats.push_back(w.number(xs::kStatCorrelationId, id));
    stats.push_back(w.number(xs::kStatContextId, context));
    if (auto op = op_of_.find(id); op != op_of_.end() && op->second != nullptr)
      stats.push_back(w.ref(xs::kStatTfOp, op->second));
    if (auto x = external_of_.find(id); x != external_of_.end()) stats.push_back(w.number("external_id", x->second));
  }

  void add_kernel(const KernelActivity& k) {
    PendingPlane& p = plane(k.device);
    PlaneWriter& w = *p.writer;
    double occupancy = -1;
    for (const DeviceProperties& d : log_.devices)
      if (d.id == k.device) occupancy = theoretical_occupancy_pct(k, d);
    std::vector<format::WireStat> stats;
    add_links(w, k.correlation_id, k.context, stats);
    stats.push_back(w.ref(xs::kStatKernelDetails, kernel_details(k, occupancy)));
    auto [name, added] = p.kernel_names.try_emplace(k.name, 0);
    if (added) name->second = w.event_name(demangled(k.name));
    PendingLine& line = p.streams[k.stream];
    line.kinds |= xs::kStreamCompute;
    line.events.push_back({k.start_ns, k.end_ns, name->second, w.stat_list(stats)});
    context_device_.try_emplace(k.context, k.device);
  }

  void add_memcpy(const MemcpyActivity& m) {
    PendingPlane& p = plane(m.device);
    PlaneWriter& w = *p.writer;
    const xs::StreamActivity kind = stream_activity(m.kind);
    const std::string_view name = xs::stream_activity_name(kind);
    std::vector<format::WireStat> stats;
    add_links(w, m.correlation_id, m.context, stats);
    char details[160];
    std::snprintf(details, sizeof details, "kind_src:%s kind_dst:%s size:%llu dest:%u async:%d",
                  memory_kind_name(m.source), memory_kind_name(m.destination), static_cast<unsigned long long>(m.bytes),
                  m.destination_device, m.async ? 1 : 0);
    stats.push_back(w.text(xs::kStatMemcpyDetails, details));
    PendingLine& line = p.streams[m.stream];
    line.kinds |= kind;
    line.events.push_back({m.start_ns, m.end_ns, w.event_name(name), w.stat_list(stats)});
    context_device_.try_emplace(m.context, m.device);
  }

  void add_memset(const MemsetActivity& m) {
    PendingPlane& p = plane(m.device);
    PlaneWriter& w = *p.writer;
    std::vector<format::WireStat> stats;
    add_links(w, m.correlation_id, m.context, stats);
    char details[96];
    std::snprintf(details, sizeof details, "kind:%s size:%llu async:%d", memory_kind_name(m.memory),
                  static_cast<unsigned long long>(m.bytes), m.async ? 1 : 0);
    stats.push_back(w.text("memset_details", details));
    PendingLine& line = p.streams[m.stream];
    line.kinds |= xs::kStreamMemset;
    line.events.push_back({m.start_ns, m.end_ns, w.event_name("Memset"), w.stat_list(stats)});
    context_device_.try_emplace(m.context, m.device);
  }

  // On the device of its context; a context that ran no work leaves nothing to wait for.
  void add_sync(const SyncActivity& s) {
    auto device = context_device_.find(s.context);
    if (device == context_device_.end()) return;
    PendingPlane& p = plane(device->second);
    PlaneWriter& w = *p.writer;
    std::vector<format::WireStat> stats;
    stats.push_back(w.number(xs::kStatCorrelationId, canonical(s.correlation_id)));
    stats.push_back(w.number(xs::kStatContextId, s.context));
    if (s.stream != UINT32_MAX) stats.push_back(w.number("stream_id", s.stream));
    p.syncs.push_back({s.start_ns, s.end_ns, w.event_name(sync_name(s.kind)), w.stat_list(stats)});
  }

  const std::string& demangled(uint32_t name) {
    auto [it, added] = demangled_.try_emplace(name);
    if (added) it->second = demangle(log_.names[name]);
    return it->second;
  }

  int64_t offset_ps(uint64_t ns) const { return (int64_t(ns) - clock_.session_start_ns) * 1000; }

  // Events in start order, none partly overlapping the one before: work on one stream runs
  // in order, and the clock conversion may leave a few ns of overlap.
  std::span<const format::WireEvent> write_events(std::vector<PendingEvent>& pending, int64_t* line_end) {
    std::sort(pending.begin(), pending.end(),
              [](const PendingEvent& a, const PendingEvent& b) { return a.start_ns < b.start_ns; });
    auto& events = out_->event_storage.emplace_back();
    events.reserve(pending.size());
    int64_t last_end = INT64_MIN;
    for (const PendingEvent& e : pending) {
      if (int64_t(e.start_ns) < clock_.session_start_ns) continue;  // began before the session
      const int64_t start = std::max(offset_ps(e.start_ns), last_end);
      const int64_t end = std::max(start, offset_ps(std::max(e.end_ns, e.start_ns)));
      events.push_back({start, end - start, e.metadata_id, e.stats});
      last_end = end;
    }
    *line_end = events.empty() ? 0 : std::max<int64_t>(0, last_end);
    out_->device_events += events.size();
    return events;
  }

  void write_planes() {
    for (auto& [device, p] : planes_) {
      add_capabilities(device, p);
      for (auto& [stream, pending] : p.streams) {
        format::WireLine& line = p.plane.lines.emplace_back();
        line.id = stream;
        line.name = xs::stream_line_name(stream, pending.kinds);
        line.timestamp_ns = clock_.session_start_unix_ns;
        line.events = write_events(pending.events, &line.duration_ps);
      }
      if (!p.syncs.empty()) {
        format::WireLine& line = p.plane.lines.emplace_back();
        line.id = xs::kSyncLineId;
        line.name = xs::kSyncLineName;
        line.timestamp_ns = clock_.session_start_unix_ns;
        line.events = write_events(p.syncs, &line.duration_ps);
      }
      out_->planes.push_back(std::move(p.plane));
    }
  }

  // TensorFlow's device capability stats and units: kHz, SMs, bytes/s, bytes.
  void add_capabilities(uint32_t device, PendingPlane& p) {
    for (const DeviceProperties& d : log_.devices) {
      if (d.id != device) continue;
      PlaneWriter& w = *p.writer;
      p.plane.stats = {
          format::WireStat::of_int64(w.stat_key(xs::kStatClockRate), d.core_clock_khz),
          format::WireStat::of_int64(w.stat_key(xs::kStatCoreCount), d.multiprocessors),
          format::WireStat::of_uint64(w.stat_key(xs::kStatMemoryBandwidth), d.memory_bandwidth_bytes_per_s),
          format::WireStat::of_uint64(w.stat_key(xs::kStatMemorySize), d.memory_bytes),
          format::WireStat::of_int64(w.stat_key(xs::kStatComputeCapMajor), d.compute_capability_major),
          format::WireStat::of_int64(w.stat_key(xs::kStatComputeCapMinor), d.compute_capability_minor),
      };
      if (!log_.names[d.name].empty())
        p.plane.stats.push_back(format::WireStat::of_string(
            w.stat_key("device_name"), out_->string_storage.emplace_back(format::make_valid_utf8(log_.names[d.name]))));
      return;
    }
  }

  uint64_t ticks(uint64_t ns) const {
    const double delta = (double(int64_t(ns) - clock_.session_start_ns)) * clock_.ticks_per_ns;
    return uint64_t(int64_t(clock_.session_start_ticks) + std::llround(delta));
  }

  void write_host_calls() {
    for (const ApiActivity* a : calls_.kept) {
      if (int64_t(a->start_ns) < clock_.session_start_ns) continue;
      const std::string_view name = log_.names[a->name];
      if (is_query_call(name) && !used_correlations_.contains(a->correlation_id)) continue;
      HostDeviceCall& call = out_->host_calls.emplace_back();
      call.tid = os_thread(a->thread);
      call.start_ticks = ticks(a->start_ns);
      call.end_ticks = std::max(call.start_ticks, ticks(a->end_ns));
      // Only a call that started device work links to it: the analysis counts such calls as
      // launches and follows the id into the step.
      call.encoded_name = std::string(name);
      if (used_correlations_.contains(a->correlation_id))
        call.encoded_name += "#correlation_id=" + std::to_string(a->correlation_id) + "#";
    }
    for (const OverheadActivity& o : log_.overheads) {
      if (!o.on_thread || int64_t(o.start_ns) < clock_.session_start_ns) continue;
      HostDeviceCall& call = out_->host_calls.emplace_back();
      call.tid = os_thread(o.object);
      call.start_ticks = ticks(o.start_ns);
      call.end_ticks = std::max(call.start_ticks, ticks(o.end_ns));
      call.encoded_name = std::string(log_.names[o.name]);
    }
  }

  const GpuActivityLog& log_;
  const GpuClock& clock_;
  DeviceTrace* out_;
  HostCalls calls_;
  std::unordered_map<uint32_t, uint32_t> os_thread_;
  std::unordered_map<uint32_t, const char*> op_of_;
  std::unordered_map<uint32_t, uint64_t> external_of_;
  std::unordered_map<uint32_t, uint32_t> context_device_;
  std::unordered_map<uint32_t, std::string> demangled_;  // by NameTable index
  std::unordered_set<uint32_t> used_correlations_;
  std::map<uint32_t, PendingPlane> planes_;  // by device id
};

}  // namespace

std::string kernel_details(const KernelActivity& k, double occupancy_pct) {
  char text[200];
  int n = std::snprintf(text, sizeof text, "regs:%u static_shared:%u dynamic_shared:%u grid:%d,%d,%d block:%d,%d,%d",
                        k.registers_per_thread, k.static_shared_bytes, k.dynamic_shared_bytes, k.grid[0], k.grid[1],
                        k.grid[2], k.block[0], k.block[1], k.block[2]);
  if (occupancy_pct >= 0 && n > 0 && size_t(n) < sizeof text)
    std::snprintf(text + n, sizeof text - size_t(n), " occ_pct:%.1f", occupancy_pct);
  return text;
}

void build_device_trace(const GpuActivityLog& log, const GpuClock& clock, DeviceTrace* out) {
  Builder(log, clock, out).build();
}

}  // namespace mlprof::capture::gpu
