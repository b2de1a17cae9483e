// A best-fit pooling allocator over one block reserved up front, instrumented for mlprof's
// memory profile: every allocation and free is reported with the pool's counters (in use,
// free, largest free chunk, peak), the way TensorFlow's BFC allocator reports its own.
//
// Best fit hands out the smallest free chunk that is large enough and merges neighbouring
// free chunks when a block comes back. It still fragments: blocks that outlive their
// neighbours leave holes between them, and a request larger than every hole fails although
// the free bytes add up to more than it asked for. The memory profile shows how much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

namespace pool_example {

// What a block holds, for the profile's breakdown; reported again when the block is freed.
struct BlockInfo {
  std::string op;           // the op that asked
  std::string region_type;  // "output", "temp", "persist"
  std::string data_type;    // "float", "half"
  std::string shape;        // "[8,256,1024]"
};

struct PoolCounters {
  int64_t reserved = 0;            // the pool's size: in_use + free
  int64_t in_use = 0;              // bytes of the blocks handed out
  int64_t free = 0;
  int64_t largest_free_chunk = 0;
  int64_t peak_in_use = 0;
  uint64_t allocations = 0;
  uint64_t deallocations = 0;

  // (free − largest free chunk) / free: the share of free memory no single request can use.
  double fragmentation_pct() const { return free > 0 ? 100.0 * double(free - largest_free_chunk) / double(free) : 0.0; }
};

class BestFitPool {
 public:
  BestFitPool(std::string name, size_t reserved_bytes, size_t alignment = 256);
  BestFitPool(const BestFitPool&) = delete;
  BestFitPool& operator=(const BestFitPool&) = delete;

  // nullptr when no free chunk is large enough.
  void* allocate(size_t bytes, const BlockInfo& info);
  void deallocate(void* block);

  const PoolCounters& counters() const { return counters_; }
  const std::string& name() const { return name_; }

 private:
  struct Block {
    size_t size;       // rounded up to the alignment
    size_t requested;
    BlockInfo info;
  };
  void take_free(size_t offset, size_t size);
  void add_free(size_t offset, size_t size);  // merges with free neighbours
  void report(bool allocation, size_t offset, const Block& block) const;

  std::string name_;
  size_t alignment_;
  std::unique_ptr<std::byte[]> memory_;
  std::map<size_t, size_t> free_by_offset_;          // offset -> size
  std::set<std::pair<size_t, size_t>> free_by_size_;  // (size, offset): best fit is lower_bound
  std::map<size_t, Block> used_;                      // offset -> block
  PoolCounters counters_;
};

}  // namespace pool_example
