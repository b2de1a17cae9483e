#include "capture/xspace_export.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include "capture/cupti/device_tracer.h"
#include "capture/plane_names.h"
#include "capture/record_format.h"
#include "capture/typed_record_export.h"
#include "format/xspace_encoder.h"
#include "format/xspace_schema.h"

namespace mlprof::capture {
namespace {

// TensorFlow's ids for these planes; readers go by name.
constexpr int64_t kHostPlaneId = 49;
constexpr int64_t kTaskEnvironmentPlaneId = 80;

struct ThreadLine {
  uint32_t tid = 0;
  uint32_t serial = 0;  // the thread among those the OS gave this id (ThreadSegmentRecord::thread_serial)
  // Until convert_times(), offset_ps and duration_ps hold the start and end ticks.
  std::vector<format::WireEvent> events;
  const char* name = nullptr;  // set_thread_name(), from the thread's latest segment
  char os_name[17] = {};
  uint64_t record_bytes = 0;
};

// Walks every chunk in the arena and files its complete records under their owners' lines.
class RecordCollector {
 public:
  // Events that began before `first_tick` (in an earlier session, ended in this one) are
  // left out: a session holds what began within it.
  RecordCollector(PlaneNames* names, TypedRecordExport* typed, uint64_t first_tick)
      : names_(names), typed_(typed), first_tick_(first_tick) {}

  void collect(const Arena& arena) {
    tick_base_ = arena.tick_base();
    const uint32_t chunks = arena.chunks_taken();
    dropped_ = arena.dropped_without_chunk();
    // First pass over the headers only: size every line's event array once.
    published_.resize(chunks);
    for (uint32_t i = 0; i < chunks; ++i) {
      const ChunkHeader* c = arena.chunk(i);
      published_[i] = c->published.load(std::memory_order_acquire);
      dropped_ += c->dropped.load(std::memory_order_acquire);
      // Sized by the chunk's first owner: most chunks have one.
      if (published_[i] >= sizeof(ChunkHeader) + sizeof(ThreadSegmentRecord)) {
        const auto* first = reinterpret_cast<const ThreadSegmentRecord*>(c + 1);
        if (first->kind == kThreadSegment) line_for(first->tid, first->thread_serial).record_bytes += published_[i];
      }
    }
    for (ThreadLine& line : lines_) line.events.reserve(line.record_bytes / sizeof(LiteralRecord));
    for (uint32_t i = 0; i < chunks; ++i) {
      if (published_[i] > sizeof(ChunkHeader)) collect_chunk(*arena.chunk(i), published_[i]);
    }
  }

  // Events made from typed records, once every chunk was read. They go by thread id alone:
  // to the line of the latest thread with that id.
  void add_event(uint32_t tid, const format::WireEvent& event) {
    const auto latest = latest_line_of_tid_.find(tid);
    ThreadLine& line = latest != latest_line_of_tid_.end() ? lines_[latest->second] : line_for(tid, 0);
    line.events.push_back(event);
  }

  std::vector<ThreadLine>& lines() { return lines_; }
  uint64_t dropped() const { return dropped_; }

 private:
  // One line per thread: threads the OS gave the same id one after the other get a line
  // each, so every event stays under the name of the thread that wrote it.
  ThreadLine& line_for(uint32_t tid, uint32_t serial) {
    auto [it, added] = line_index_.try_emplace(uint64_t(serial) << 32 | tid, lines_.size());
    if (added) {
      ThreadLine& line = lines_.emplace_back();
      line.tid = tid;
      line.serial = serial;
      auto [latest, first] = latest_line_of_tid_.try_emplace(tid, it->second);
      if (!first && lines_[latest->second].serial < serial) latest->second = it->second;
    }
    return lines_[it->second];
  }

  void collect_chunk(const ChunkHeader& chunk, uint32_t published) {
    ThreadLine* line = nullptr;
    uint32_t tid = 0;
    const char* p = reinterpret_cast<const char*>(&chunk) + sizeof(ChunkHeader);
    const char* end = reinterpret_cast<const char*>(&chunk) + published;
    while (p < end) {
      uint64_t first_word;
      std::memcpy(&first_word, p, sizeof first_word);
      if (first_word == kThreadSegment) {
        const auto* segment = reinterpret_cast<const ThreadSegmentRecord*>(p);
        if (sizeof *segment > size_t(end - p)) return;
        tid = segment->tid;
        typed_->begin_segment();
        line = &line_for(tid, segment->thread_serial);
        if (const char* name = segment->thread_name.load(std::memory_order_acquire)) line->name = name;
        std::memcpy(line->os_name, segment->os_thread_name, sizeof segment->os_thread_name);
        p += sizeof *segment;
        continue;
      }
      if (line == nullptr) return;  // records before any segment: never written by this library
      if (is_typed_record(first_word)) {  // first: some pack fields into the word's top byte
        const size_t bytes = typed_->collect(tid, p, end);
        if (bytes == 0) return;
        p += bytes;
      } else if (first_word >= kFirstPointer) {
        const UnpackedLiteral r = unpack_literal_record(*reinterpret_cast<const LiteralRecord*>(p), tick_base_);
        if (r.start >= first_tick_) add(*line, names_->literal(r.name), r.start, r.end);
        p += sizeof(LiteralRecord);
      } else if (first_word == kLongLiteral) {
        const auto* r = reinterpret_cast<const LongLiteralRecord*>(p);
        if (r->start >= first_tick_) add(*line, names_->literal(r->name), r->start, r->end);
        p += sizeof(LongLiteralRecord);
      } else if (first_word == kCopiedName) {
        const auto* r = reinterpret_cast<const CopiedNameRecord*>(p);
        const size_t bytes = copied_record_bytes(r->length);
        if (r->length > kMaxCopiedName || bytes > size_t(end - p)) return;  // not ours: stop
        // The owner writes `end` when the Trace closes, maybe right now.
        const uint64_t stop = __atomic_load_n(&r->end, __ATOMIC_ACQUIRE);
        if (stop != 0 && r->start >= first_tick_) {  // 0: still open when the session stopped
          add(*line, names_->copied({reinterpret_cast<const char*>(r + 1), r->length}), r->start, stop);
        }
        p += bytes;
      } else if (first_word == kStep) {
        const auto* r = reinterpret_cast<const StepRecord*>(p);
        if (r->start >= first_tick_) add(*line, names_->step(r->name, r->step), r->start, r->end);
        p += sizeof(StepRecord);
      } else {
        return;  // unknown record: never written by this library
      }
    }
  }

  static void add(ThreadLine& line, EventName name, uint64_t start, uint64_t end) {
    line.events.push_back({int64_t(start), int64_t(end), name.metadata_id, name.stats});
  }

  PlaneNames* names_;
  TypedRecordExport* typed_;
  const uint64_t first_tick_;
  uint64_t tick_base_ = 0;  // of the arena collected
  std::vector<ThreadLine> lines_;
  std::unordered_map<uint64_t, size_t> line_index_;        // by serial << 32 | tid
  std::unordered_map<uint32_t, size_t> latest_line_of_tid_;
  std::vector<uint32_t> published_;
  uint64_t dropped_ = 0;
};

// Whether an event metadata id names a Python frame ("$file.py:12 function", the Python
// tracer's), by id.
std::vector<bool> python_frame_ids(const format::WirePlane& plane) {
  std::vector<bool> python;
  for (const format::WireEventMetadata& m : plane.event_metadata) {
    if (m.name.empty() || m.name[0] != '$' || m.id < 0) continue;
    if (size_t(m.id) >= python.size()) python.resize(size_t(m.id) + 1);
    python[size_t(m.id)] = true;
  }
  return python;
}

// Sorts a line's events (start ascending, enclosing events first), turns ticks into ps and
// makes nesting exact. An event that outlives the event enclosing it (clock jitter between
// cores, or ticks given by a caller) is cut at its parent's end, except where the parent is a
// Python frame: a scope that begins in one Python call and ends in another (a
// record_function entered in its __enter__, a step that a generator's yield leaves open)
// keeps its real span, and the Python frames it crosses are cut where it begins (or, for a
// frame that begins inside it, where it ends): they lose microseconds, the scope none.
int64_t convert_times(ThreadLine& line, const TickConverter& clock, const std::vector<bool>& python_ids) {
  auto& events = line.events;
  std::sort(events.begin(), events.end(), [](const format::WireEvent& a, const format::WireEvent& b) {
    return a.offset_ps != b.offset_ps ? a.offset_ps < b.offset_ps : a.duration_ps > b.duration_ps;
  });
  auto is_python = [&](const format::WireEvent& e) {
    return size_t(e.metadata_id) < python_ids.size() && python_ids[size_t(e.metadata_id)];
  };
  std::vector<int64_t> ends(events.size());
  std::vector<size_t> open;  // indices of the events enclosing the current one, innermost last
  for (size_t i = 0; i < events.size(); ++i) {
    const int64_t start = clock.ps_since_origin(uint64_t(events[i].offset_ps));
    int64_t end = std::max(start, clock.ps_since_origin(uint64_t(events[i].duration_ps)));
    events[i].offset_ps = start;
    while (!open.empty() && ends[open.back()] <= start) open.pop_back();
    if (is_python(events[i])) {
      if (!open.empty()) end = std::min(end, ends[open.back()]);
    } else {
      for (auto it = open.rbegin(); it != open.rend(); ++it) {  // the innermost enclosing scope
        if (!is_python(events[*it])) {
          end = std::min(end, ends[*it]);
          break;
        }
      }
      // Python frames it would partly overlap end where it begins.
      while (!open.empty() && is_python(events[open.back()]) && ends[open.back()] < end) {
        ends[open.back()] = start;
        open.pop_back();
      }
    }
    ends[i] = end;
    open.push_back(i);
  }
  int64_t line_end = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].duration_ps = ends[i] - events[i].offset_ps;
    line_end = std::max(line_end, ends[i]);
  }
  return line_end;
}

std::string process_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

// set_thread_name() first; then the OS name, when the thread was given one (unnamed
// threads inherit the process's) or is the main thread; else the thread id.
std::string line_name(const ThreadLine& line, const std::string& main_name) {
  if (line.name != nullptr) return line.name;
  const std::string os_name = line.os_name;
  if (!os_name.empty() && (pid_t(line.tid) == getpid() || os_name != main_name)) return os_name;
  return std::to_string(line.tid);
}

// A generous bound on the encoded size, to skip the exact count when far below the limit.
uint64_t size_upper_bound(const format::WirePlane& host, uint64_t events) {
  uint64_t bytes = (uint64_t{1} << 20) + events * 32;
  for (const format::WireStat& s : host.stat_pool) bytes += 32 + s.str_value.size();
  for (const auto& m : host.event_metadata) bytes += 32 + m.name.size();
  return bytes;
}

// protobuf cannot read a message over 2 GiB: keep the events that start before a cutoff
// chosen so that the file fits, and say so in the warnings. Leaving events out only shrinks
// the length prefixes, so the size is exact up to the warning's own bytes.
uint64_t fit_size_limit(format::WireSpace& space, std::vector<ThreadLine>& lines, uint64_t size,
                        uint64_t limit) {
  format::WirePlane& host = space.planes[0];
  constexpr uint64_t kWarningBytes = 512;
  const uint64_t target = limit > kWarningBytes ? limit - kWarningBytes : 0;
  // Event bytes per block of 1024 events, so any cutoff is priced quickly.
  constexpr size_t kBlock = 1024;
  std::vector<std::vector<uint64_t>> block_bytes(lines.size());
  uint64_t event_bytes = 0;
  for (size_t l = 0; l < lines.size(); ++l) {
    const auto& events = lines[l].events;
    for (size_t i = 0; i < events.size(); ++i) {
      if (i % kBlock == 0) block_bytes[l].push_back(0);
      block_bytes[l].back() += format::wire_event_field_size(host, events[i]);
    }
    for (uint64_t b : block_bytes[l]) event_bytes += b;
  }
  auto kept_bytes = [&](size_t l, size_t count) {
    uint64_t bytes = 0;
    for (size_t b = 0; b < count / kBlock; ++b) bytes += block_bytes[l][b];
    for (size_t i = count / kBlock * kBlock; i < count; ++i)
      bytes += format::wire_event_field_size(host, lines[l].events[i]);
    return bytes;
  };
  auto count_before = [&](size_t l, int64_t cutoff) {
    const auto& events = lines[l].events;
    return size_t(std::lower_bound(events.begin(), events.end(), cutoff,
                                   [](const format::WireEvent& e, int64_t t) { return e.offset_ps < t; }) -
                  events.begin());
  };
  auto size_at = [&](int64_t cutoff) {
    uint64_t bytes = size - event_bytes;
    for (size_t l = 0; l < lines.size(); ++l) bytes += kept_bytes(l, count_before(l, cutoff));
    return bytes;
  };
  int64_t low = INT64_MIN / 2, high = 0;  // size_at(low) fits; find the largest such cutoff
  for (const ThreadLine& line : lines)
    if (!line.events.empty()) high = std::max(high, line.events.back().offset_ps + 1);
  while (high - low > 1) {
    const int64_t mid = low + (high - low) / 2;
    (size_at(mid) <= target ? low : high) = mid;
  }
  uint64_t left_out = 0;
  for (size_t l = 0; l < lines.size(); ++l) {
    const size_t kept = count_before(l, low);
    left_out += lines[l].events.size() - kept;
    host.lines[l].events = host.lines[l].events.first(kept);
  }
  char after[64];
  std::snprintf(after, sizeof after, "%.3f ms", double(std::max<int64_t>(low, 0)) / 1e9);
  space.warnings.push_back(
      "mlprof left out the " + std::to_string(left_out) + " events that began after " + after +
      " of the capture: the XSpace would exceed " +
      (limit == format::kMaxXSpaceBytes ? std::string("protobuf's 2 GiB message limit")
                                        : std::to_string(limit) + " bytes") +
      "; capture fewer steps or a shorter duration");
  return left_out;
}

format::WirePlane task_environment_plane(const CaptureToExport& capture) {
  format::WirePlane plane;
  plane.id = kTaskEnvironmentPlaneId;
  plane.name = format::xspace::kTaskEnvironmentPlaneName;
  plane.stat_metadata = {{1, std::string(format::xspace::kStatProfileStartTime), {}},
                         {2, std::string(format::xspace::kStatProfileStopTime), {}}};
  plane.stats = {format::WireStat::of_uint64(1, uint64_t(capture.start.unix_ns)),
                 format::WireStat::of_uint64(2, uint64_t(capture.stop.unix_ns))};
  if (capture.rank >= 0) {
    plane.stat_metadata.push_back({3, std::string(format::xspace::kStatRank), {}});
    plane.stats.push_back(format::WireStat::of_int64(3, capture.rank));
  }
  if (capture.world_size >= 0) {
    plane.stat_metadata.push_back({4, std::string(format::xspace::kStatWorldSize), {}});
    plane.stats.push_back(format::WireStat::of_int64(4, capture.world_size));
  }
  return plane;
}

// Under a file size limit (ulimit -f), writing past it raises SIGXFSZ, which ends the
// program unless it ignores the signal: check first, and report instead.
bool fits_file_size_limit(const format::WireSpace& space, const std::string& path, std::string* error) {
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return true;
  const uint64_t size = format::xspace_size(space);
  if (size <= limit.rlim_cur) return true;
  *error = "cannot write " + path + ": the profile (" + std::to_string(size) +
           " bytes) is larger than the file size limit (ulimit -f: " + std::to_string(limit.rlim_cur) +
           " bytes)";
  return false;
}

}  // namespace

bool export_xspace(const CaptureToExport& capture, const std::string& path, ExportCounts* counts,
                   std::string* error) {
  format::WireSpace space;
  // Sized once: `host` and PlaneNames keep a reference into it.
  space.planes.resize(2 + (capture.device != nullptr ? capture.device->planes.size() : 0));
  format::WirePlane& host = space.planes[0];
  host.id = kHostPlaneId;
  host.name = format::xspace::kHostPlaneName;

  PlaneNames names(&host);
  TypedRecordExport typed(&host, &names, capture.arena, capture.start.ticks, capture.stop.ticks);
  RecordCollector collector(&names, &typed, capture.start.ticks);
  if (capture.arena != nullptr) collector.collect(*capture.arena);
  typed.emit([&](uint32_t tid, const format::WireEvent& e) { collector.add_event(tid, e); });
  if (capture.device != nullptr) {
    for (const HostDeviceCall& call : capture.device->host_calls) {
      const EventName name = names.copied(call.encoded_name);
      collector.add_event(call.tid, {int64_t(call.start_ticks), int64_t(call.end_ticks), name.metadata_id, name.stats});
    }
  }
  std::vector<ThreadLine>& lines = collector.lines();
  std::sort(lines.begin(), lines.end(),
            [](const ThreadLine& a, const ThreadLine& b) {
              return a.tid != b.tid ? a.tid < b.tid : a.serial < b.serial;
            });

  // The rate comes from the longest baseline; times count from the start pair.
  const ClockPair& rate_from =
      capture.calibration.ticks != 0 && capture.calibration.ticks < capture.start.ticks
          ? capture.calibration : capture.start;
  const TickConverter clock(capture.start, rate_from, capture.stop);
  const std::string main_name = process_name();
  const std::vector<bool> python_ids = python_frame_ids(host);
  uint64_t events = 0;
  std::erase_if(lines, [](const ThreadLine& line) { return line.events.empty(); });
  for (ThreadLine& line : lines) {
    format::WireLine& out = host.lines.emplace_back();
    out.id = line.tid;
    out.name = format::make_valid_utf8(line_name(line, main_name));
    out.timestamp_ns = capture.start.unix_ns;
    out.duration_ps = convert_times(line, clock, python_ids);
    out.events = line.events;
    events += line.events.size();
  }
  space.planes[1] = task_environment_plane(capture);
  if (capture.device != nullptr) {
    std::copy(capture.device->planes.begin(), capture.device->planes.end(), space.planes.begin() + 2);
    events += capture.device->device_events;
  }
  space.hostnames.push_back(format::make_valid_utf8(capture.host_name));
  space.warnings = capture.warnings;
  if (collector.dropped() > 0) {
    space.warnings.push_back("mlprof dropped " + std::to_string(collector.dropped()) +
                             " events: the capture buffer (max_buffer_bytes = " +
                             std::to_string(capture.max_buffer_bytes) + ") was full");
  }
  if (size_upper_bound(host, events) > capture.max_file_bytes) {
    const uint64_t size = format::xspace_size(space);
    if (size > capture.max_file_bytes) events -= fit_size_limit(space, lines, size, capture.max_file_bytes);
  }
  counts->events = events;
  counts->dropped = collector.dropped();
  if (!fits_file_size_limit(space, path, error)) return false;
  return format::write_xspace_file(space, path, error);
}

}  // namespace mlprof::capture
