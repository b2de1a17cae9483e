#include "capture/op_name_ids.h"

#include <atomic>

namespace mlprof::capture {
namespace {

// Written once per id, before the id is handed out; read by the exporter on another thread.
// Zero-initialised: only the pages of ids given are ever touched.
std::atomic<const char*> g_names[kMaxOpNameIds];
std::atomic<uint64_t> g_next_id{1};

}  // namespace

uint16_t register_op_name(const char* name) noexcept {
  // No lock (a forked child may register names): each call takes the next id; ids past the
  // table are not given. Records that carry an id are published after this store.
  const uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  if (id >= kMaxOpNameIds) return 0;
  g_names[id].store(name, std::memory_order_release);
  return uint16_t(id);
}

const char* op_name_of_id(uint16_t id) noexcept { return g_names[id].load(std::memory_order_acquire); }

}  // namespace mlprof::capture
