#include "capture/torch/op_names.h"

#include <pthread.h>

#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mlprof::libtorch {
namespace {

// What the integration needs to know of a name, computed once when it is interned.
OpName describe(const char* text) {
  const std::string_view name(text);
  OpName n{text, 0, -1};
  if (name.starts_with("autograd::engine::evaluate_function")) n.flags |= kAutogradEntry;
  // The factory ops that allocate a tensor, with their dtype argument's position.
  if (name == "aten::empty" || name == "aten::empty_like") n.dtype_argument = 1;
  if (name == "aten::empty_strided") n.dtype_argument = 2;
  if (n.dtype_argument >= 0) n.flags |= kFactoryOp;
  if (name.starts_with("enumerate(DataLoader)")) n.flags |= kInputRequest;
  return n;
}

// Every name seen, for the process: records point at their text until they are written.
class NameTable {
 public:
  const OpName* intern(const char* name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = names_.find(std::string_view(name));
    if (it != names_.end()) return it->second;
    const size_t length = std::strlen(name);
    char* text = new char[length + 1];
    std::memcpy(text, name, length + 1);
    const OpName* interned = new OpName(describe(text));
    names_.emplace(std::string_view(text, length), interned);
    return interned;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string_view, const OpName*> names_;
};

NameTable& table() {
  static NameTable* t = new NameTable;  // immortal: ops may run during static destruction
  return *t;
}

constexpr size_t kCacheSlots = 512;

struct CacheSlot {
  const char* address;
  const OpName* name;
};

// Two levels: by address (names of dispatched ops live as long as their operator), then by
// text (backward nodes' names are built anew for each call), before the shared table's lock.
struct ThreadCache {
  CacheSlot by_address[kCacheSlots] = {};
  const OpName* by_text[kCacheSlots] = {};
};

// FNV-1a over the text.
uint64_t text_hash(const char* s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s != '\0'; ++s) h = (h ^ uint8_t(*s)) * 0x100000001b3ull;
  return h;
}

thread_local ThreadCache* t_cache __attribute__((tls_model("initial-exec"))) = nullptr;

void free_cache(void* cache) {
  delete static_cast<ThreadCache*>(cache);
  t_cache = nullptr;
}

__attribute__((noinline)) ThreadCache* new_cache() noexcept {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, free_cache);
    return k;
  }();
  auto* cache = new (std::nothrow) ThreadCache;
  if (cache == nullptr) return nullptr;
  pthread_setspecific(key, cache);
  t_cache = cache;
  return cache;
}

__attribute__((noinline)) const OpName* intern_slow(const char* name, ThreadCache* cache, CacheSlot* slot) noexcept {
  const OpName** by_text = nullptr;
  if (cache != nullptr) {
    by_text = &cache->by_text[text_hash(name) & (kCacheSlots - 1)];
    if (*by_text != nullptr && std::strcmp((*by_text)->text, name) == 0) {
      *slot = CacheSlot{name, *by_text};
      return *by_text;
    }
  }
  try {
    const OpName* interned = table().intern(name);
    if (cache != nullptr) {
      *by_text = interned;
      *slot = CacheSlot{name, interned};
    }
    return interned;
  } catch (...) {  // out of memory: the op goes unnamed rather than the program down
    static const OpName unnamed{"(name unavailable)", 0, -1};
    return &unnamed;
  }
}

}  // namespace

const OpName* intern_op_name(const char* name) noexcept {
  if (__builtin_expect(name == nullptr, 0)) name = "(unnamed)";
  ThreadCache* cache = t_cache;
  if (__builtin_expect(cache == nullptr, 0) && (cache = new_cache()) == nullptr) return intern_slow(name, nullptr, nullptr);
  const size_t index = size_t((reinterpret_cast<uintptr_t>(name) >> 3) * 0x9e3779b97f4a7c15ull >> 55) & (kCacheSlots - 1);
  CacheSlot& slot = cache->by_address[index];
  if (__builtin_expect(slot.address == name && std::strcmp(name, slot.name->text) == 0, 1)) return slot.name;
  return intern_slow(name, cache, &slot);
}

}  // namespace mlprof::libtorch
