#include "format/perfetto_writer.h"

#include <cstring>

namespace mlprof::format {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2 };

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += char(uint8_t(v) | 0x80);
    v >>= 7;
  }
  out += char(uint8_t(v));
}
void put_tag(std::string& out, uint32_t field, WireType type) { put_varint(out, (uint64_t(field) << 3) | type); }
void put_uint(std::string& out, uint32_t field, uint64_t v) {
  put_tag(out, field, kVarint);
  put_varint(out, v);
}
void put_fixed64(std::string& out, uint32_t field, uint64_t v) {
  put_tag(out, field, kFixed64);
  char bytes[8];
  std::memcpy(bytes, &v, 8);  // little-endian, as the wire format wants (x86, ARM)
  out.append(bytes, 8);
}
void put_bytes(std::string& out, uint32_t field, std::string_view bytes) {
  put_tag(out, field, kBytes);
  put_varint(out, bytes.size());
  out.append(bytes);
}

// Field numbers (docs/ARCHITECTURE.md §3.7 and Perfetto's protos).
namespace packet {
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kSequenceFlags = 13, kTrackDescriptor = 60;
}
namespace descriptor {
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5;
constexpr uint32_t kPid = 1, kTid = 2, kThreadName = 5, kProcessName = 6;
}
namespace track_event {
constexpr uint32_t kDebugAnnotations = 4, kType = 9, kTrackUuid = 11, kName = 23, kFlowIds = 47,
                   kTerminatingFlowIds = 48;
constexpr uint64_t kBegin = 1, kEnd = 2;
}
namespace annotation {
constexpr uint32_t kUint = 3, kInt = 4, kDouble = 5, kString = 6, kName = 10;
}

constexpr uint32_t kSequence = 1;
constexpr uint64_t kIncrementalStateCleared = 1;

}  // namespace

PerfettoWriter::PerfettoWriter(TraceOutputFile& out, int64_t origin_ns) : out_(out), origin_ns_(origin_ns) {}

uint64_t PerfettoWriter::timestamp_ns(int64_t ps) const {
  const int64_t ns = origin_ns_ + (ps >= 0 ? ps / 1000 : -((-ps + 999) / 1000));
  return ns < 0 ? 0 : uint64_t(ns);  // the field is unsigned
}

// Frames body_ (a TracePacket's fields after the timestamp) as one packet of the Trace.
void PerfettoWriter::write_packet(uint64_t ts, bool with_timestamp) {
  packet_.clear();
  if (with_timestamp) put_uint(packet_, packet::kTimestamp, ts);
  put_uint(packet_, packet::kSequenceId, kSequence);
  if (first_packet_) put_uint(packet_, packet::kSequenceFlags, kIncrementalStateCleared);
  first_packet_ = false;
  packet_.append(body_);
  frame_.clear();
  put_bytes(frame_, 1, packet_);
  out_.write(frame_);
}

void PerfettoWriter::begin_track(const TraceTrack& track) {
  end_events_until(0, /*all=*/true);
  auto [it, added] = process_uuid_.try_emplace(track.pid, 0);
  if (added) {
    it->second = next_uuid_++;
    std::string process;
    put_uint(process, descriptor::kPid, uint32_t(track.pid));
    put_bytes(process, descriptor::kProcessName, track.process_name);
    std::string d;
    put_uint(d, descriptor::kUuid, it->second);
    put_bytes(d, descriptor::kProcess, process);
    body_.clear();
    put_bytes(body_, packet::kTrackDescriptor, d);
    write_packet(0, false);
  }
  track_uuid_ = next_uuid_++;
  std::string thread;
  put_uint(thread, descriptor::kPid, uint32_t(track.pid));
  put_uint(thread, descriptor::kTid, uint32_t(track.tid));
  put_bytes(thread, descriptor::kThreadName, track.thread_name);
  std::string d;
  put_uint(d, descriptor::kUuid, track_uuid_);
  put_bytes(d, descriptor::kName, track.thread_name);
  put_bytes(d, descriptor::kThread, thread);
  put_uint(d, descriptor::kParentUuid, it->second);
  body_.clear();
  put_bytes(body_, packet::kTrackDescriptor, d);
  write_packet(0, false);
}

// Writes the end of every open event that ends by `ps` (innermost first), or of all of them.
void PerfettoWriter::end_events_until(int64_t ps, bool all) {
  while (!open_ends_ps_.empty() && (all || open_ends_ps_.back() <= ps)) {
    std::string ev;
    put_uint(ev, track_event::kType, track_event::kEnd);
    put_uint(ev, track_event::kTrackUuid, track_uuid_);
    body_.clear();
    put_bytes(body_, packet::kTrackEvent, ev);
    write_packet(timestamp_ns(open_ends_ps_.back()), true);
    open_ends_ps_.pop_back();
  }
}

void PerfettoWriter::event(const TraceEvent& e) {
  end_events_until(e.start_ps, false);
  std::string ev;
  put_uint(ev, track_event::kType, track_event::kBegin);
  put_uint(ev, track_event::kTrackUuid, track_uuid_);
  put_bytes(ev, track_event::kName, e.name);
  for (const TraceArg& a : e.args) {
    std::string da;
    put_bytes(da, annotation::kName, a.key);
    switch (a.type) {
      case TraceArg::Type::kInt: put_uint(da, annotation::kInt, uint64_t(a.int_value)); break;
      case TraceArg::Type::kUint: put_uint(da, annotation::kUint, a.uint_value); break;
      case TraceArg::Type::kDouble: {
        uint64_t bits;
        std::memcpy(&bits, &a.double_value, 8);
        put_fixed64(da, annotation::kDouble, bits);
        break;
      }
      case TraceArg::Type::kString: put_bytes(da, annotation::kString, a.string_value); break;
    }
    put_bytes(ev, track_event::kDebugAnnotations, da);
  }
  for (uint64_t id : e.flows_out) put_fixed64(ev, track_event::kFlowIds, id);
  for (uint64_t id : e.flows_in) put_fixed64(ev, track_event::kTerminatingFlowIds, id);
  body_.clear();
  put_bytes(body_, packet::kTrackEvent, ev);
  write_packet(timestamp_ns(e.start_ps), true);
  open_ends_ps_.push_back(e.start_ps + (e.duration_ps > 0 ? e.duration_ps : 0));
}

bool PerfettoWriter::finish(std::string* error) {
  end_events_until(0, /*all=*/true);
  if (!out_.close()) {
    *error = out_.error();
    return false;
  }
  return true;
}

}  // namespace mlprof::format
