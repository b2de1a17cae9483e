#include "capture/cupti/occupancy.h"

#include <algorithm>
#include <cstdint>

namespace mlprof::capture::gpu {
namespace {

uint64_t round_up(uint64_t value, uint64_t granularity) { return (value + granularity - 1) / granularity * granularity; }

// Allocation granularities of the GPUs CUDA 12 and later support (Volta onwards): registers
// are given to warps in units of 256, shared memory to blocks in units of 128 bytes, and
// from compute capability 8.0 the runtime reserves 1 KiB of shared memory per block.
constexpr uint64_t kRegisterUnit = 256;
constexpr uint64_t kSharedMemoryUnit = 128;
constexpr uint64_t kReservedSharedPerBlock = 1024;

}  // namespace

double theoretical_occupancy_pct(const KernelActivity& k, const DeviceProperties& d) {
  const uint64_t threads = uint64_t(std::max(k.block[0], 0)) * uint64_t(std::max(k.block[1], 0)) *
                           uint64_t(std::max(k.block[2], 0));
  const uint64_t warp = d.threads_per_warp > 0 ? d.threads_per_warp : 32;
  if (threads == 0 || d.max_warps_per_multiprocessor == 0 || d.max_blocks_per_multiprocessor == 0) return -1;

  const uint64_t warps_per_block = (threads + warp - 1) / warp;
  uint64_t blocks = std::min<uint64_t>(d.max_blocks_per_multiprocessor, d.max_warps_per_multiprocessor / warps_per_block);
  if (k.registers_per_thread > 0 && d.max_registers_per_multiprocessor > 0) {
    const uint64_t registers_per_warp = round_up(uint64_t(k.registers_per_thread) * warp, kRegisterUnit);
    const uint64_t warps_by_registers = d.max_registers_per_multiprocessor / registers_per_warp;
    blocks = std::min(blocks, warps_by_registers / warps_per_block);
  }
  uint64_t shared = uint64_t(k.static_shared_bytes) + k.dynamic_shared_bytes;
  if (d.compute_capability_major >= 8) shared += kReservedSharedPerBlock;
  if (shared > 0 && d.max_shared_memory_per_multiprocessor > 0) {
    blocks = std::min(blocks, d.max_shared_memory_per_multiprocessor / round_up(shared, kSharedMemoryUnit));
  }
  return 100.0 * double(blocks * warps_per_block) / double(d.max_warps_per_multiprocessor);
}

}  // namespace mlprof::capture::gpu
