#include "best_fit_pool.h"

#include <mlprof/memory.h>

#include <algorithm>
#include <iterator>

namespace pool_example {

BestFitPool::BestFitPool(std::string name, size_t reserved_bytes, size_t alignment)
    : name_(std::move(name)), alignment_(alignment), memory_(new std::byte[reserved_bytes]) {
  counters_.reserved = counters_.free = int64_t(reserved_bytes);
  add_free(0, reserved_bytes);
}

void* BestFitPool::allocate(size_t bytes, const BlockInfo& info) {
  const size_t size = (std::max<size_t>(bytes, 1) + alignment_ - 1) / alignment_ * alignment_;
  auto fit = free_by_size_.lower_bound({size, 0});
  if (fit == free_by_size_.end()) return nullptr;
  const auto [chunk_size, offset] = *fit;
  take_free(offset, chunk_size);
  if (chunk_size > size) add_free(offset + size, chunk_size - size);  // the rest stays free
  const Block& block = used_.emplace(offset, Block{size, bytes, info}).first->second;
  counters_.in_use += int64_t(size);
  counters_.free -= int64_t(size);
  counters_.peak_in_use = std::max(counters_.peak_in_use, counters_.in_use);
  ++counters_.allocations;
  report(true, offset, block);
  return memory_.get() + offset;
}

void BestFitPool::deallocate(void* p) {
  auto it = used_.find(size_t(static_cast<std::byte*>(p) - memory_.get()));
  if (it == used_.end()) return;
  const auto [offset, block] = *it;
  used_.erase(it);
  counters_.in_use -= int64_t(block.size);
  counters_.free += int64_t(block.size);
  add_free(offset, block.size);
  ++counters_.deallocations;
  report(false, offset, block);
}

void BestFitPool::take_free(size_t offset, size_t size) {
  free_by_offset_.erase(offset);
  free_by_size_.erase({size, offset});
  counters_.largest_free_chunk = free_by_size_.empty() ? 0 : int64_t(free_by_size_.rbegin()->first);
}

void BestFitPool::add_free(size_t offset, size_t size) {
  auto next = free_by_offset_.lower_bound(offset);
  if (next != free_by_offset_.end() && offset + size == next->first) {
    size += next->second;
    free_by_size_.erase({next->second, next->first});
    next = free_by_offset_.erase(next);
  }
  if (next != free_by_offset_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      free_by_size_.erase({prev->second, prev->first});
      free_by_offset_.erase(prev);
    }
  }
  free_by_offset_.emplace(offset, size);
  free_by_size_.emplace(size, offset);
  counters_.largest_free_chunk = int64_t(free_by_size_.rbegin()->first);
}

// The counters after the event go with it: the profile rebuilds the pool's state from them.
void BestFitPool::report(bool allocation, size_t offset, const Block& block) const {
  mlprof::MemoryEvent e;
  e.allocator = name_;
  e.address = memory_.get() + offset;
  e.bytes = block.size;
  e.requested_bytes = block.requested;
  e.bytes_in_use = counters_.in_use;
  e.bytes_available = counters_.free;
  e.largest_free_chunk = counters_.largest_free_chunk;
  e.peak_bytes_in_use = counters_.peak_in_use;
  e.bytes_reserved = 0;  // TensorFlow's stack reservation; this pool has none (its size is in_use + free)
  e.op = block.info.op;
  e.region_type = block.info.region_type;
  e.data_type = block.info.data_type;
  e.shape = block.info.shape;
  if (allocation) mlprof::record_allocation(e);
  else mlprof::record_deallocation(e);
}

}  // namespace pool_example
