// mlprof::record_allocation / record_deallocation (include/mlprof/memory.h).
#include "mlprof/memory.h"

#include "capture/memory_record_writer.h"

namespace mlprof {
namespace {

void record(const MemoryEvent& e, bool allocation) noexcept {
  if (!internal::recording_memory()) return;
  internal::AllocatorReport event;
  event.address = e.address;
  event.bytes = allocation ? int64_t(e.bytes) : -int64_t(e.bytes);
  event.bytes_allocated = e.bytes_in_use;
  capture::MemoryExtras extras;
  extras.allocator_name = e.allocator;
  extras.op_name = e.op;
  extras.region_type = e.region_type;
  extras.data_type = e.data_type;
  extras.shape = e.shape;
  extras.requested_bytes = e.requested_bytes > 0 ? int64_t(e.requested_bytes) : -1;
  extras.bytes_available = e.bytes_available;
  extras.peak_bytes_in_use = e.peak_bytes_in_use;
  extras.largest_free_chunk = e.largest_free_chunk;
  extras.stack_reserved = e.bytes_reserved;
  extras.step = e.step;
  capture::write_memory_record(event, &extras);
}

}  // namespace

void record_allocation(const MemoryEvent& event) noexcept { record(event, true); }
void record_deallocation(const MemoryEvent& event) noexcept { record(event, false); }

}  // namespace mlprof
