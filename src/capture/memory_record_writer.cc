#include "capture/memory_record_writer.h"

#include <cstring>

#include "capture/recorder.h"
#include "capture/session_events.h"

namespace mlprof::capture {
namespace {

constexpr size_t kMaxText = 1024;  // per string; longer ones are cut

size_t text_size(std::string_view s) { return s.empty() ? 0 : 3 + std::min(s.size(), kMaxText); }

char* put_text(char* out, MemoryTextField field, std::string_view s) {
  if (s.empty()) return out;
  const uint16_t n = uint16_t(std::min(s.size(), kMaxText));
  *out++ = char(field);
  std::memcpy(out, &n, 2);
  std::memcpy(out + 2, s.data(), n);
  return out + 2 + n;
}

char* put_number(char* out, MemoryNumberField field, int64_t v) {
  if (v < 0) return out;
  *out++ = char(field);
  std::memcpy(out, &v, 8);
  return out + 8;
}

size_t extras_size(const MemoryExtras& x) {
  size_t n = text_size(x.allocator_name) + text_size(x.op_name) + text_size(x.region_type) +
             text_size(x.data_type) + text_size(x.shape);
  for (int64_t v : {x.requested_bytes, x.bytes_available, x.peak_bytes_in_use, x.largest_free_chunk, x.stack_reserved})
    n += v >= 0 ? 9 : 0;
  return n;
}

void put_extras(char* out, const MemoryExtras& x) {
  out = put_text(out, kAllocatorName, x.allocator_name);
  out = put_text(out, kOpName, x.op_name);
  out = put_text(out, kRegionType, x.region_type);
  out = put_text(out, kDataType, x.data_type);
  out = put_text(out, kShape, x.shape);
  out = put_number(out, kRequestedBytes, x.requested_bytes);
  out = put_number(out, kBytesAvailable, x.bytes_available);
  out = put_number(out, kPeakBytesInUse, x.peak_bytes_in_use);
  out = put_number(out, kLargestFreeChunk, x.largest_free_chunk);
  put_number(out, kStackReserved, x.stack_reserved);
}

}  // namespace

void write_memory_record(const internal::AllocatorReport& event, const MemoryExtras* extras) noexcept {
  ThreadState& t = t_state;
  const size_t text = extras != nullptr ? extras_size(*extras) : 0;
  const size_t bytes = sizeof(MemoryRecord) + round_up8(text);
  if (!reserve(t, bytes)) return;
  auto* r = reinterpret_cast<MemoryRecord*>(t.pos);
  const OpContext ops = open_op_context();
  r->kind = kMemoryRecord;
  r->time = now_ticks();
  r->address = reinterpret_cast<uintptr_t>(event.address);
  r->bytes = event.bytes;
  r->bytes_allocated = event.bytes_allocated;
  r->bytes_reserved = event.bytes_reserved;
  r->op = ops.op;
  r->owner = ops.owner;
  r->step = extras != nullptr && extras->step >= 0 ? extras->step : g_current_step.load(std::memory_order_relaxed);
  r->device_type = event.device_type;
  r->device_index = event.device_index;
  r->text_bytes = uint32_t(text);
  if (text > 0) put_extras(reinterpret_cast<char*>(r + 1), *extras);
  publish(t, t.pos + bytes);
}

}  // namespace mlprof::capture
