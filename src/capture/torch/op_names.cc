#include "capture/torch/op_names.h"

#include <pthread.h>

#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>

#include "capture/typed_records.h"

namespace mlprof::libtorch {
namespace {

// What the integration needs to know of a name, computed once when it is interned.
OpName describe(const char* text, size_t length) {
  const std::string_view name(text, length);
  // The last word's bytes up to the NUL (little-endian: the low bytes come first).
  const size_t last_bytes = length % 8 + 1;
  const uint64_t last_mask = last_bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * last_bytes)) - 1;
  const uint64_t first_mask = length >= 8 ? ~uint64_t{0} : last_mask;
  OpName n{text, 0, uint32_t(length / 8 + 1), -1, last_mask, first_mask, length, 0, 0};
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
    // Whole words, zeroed past the NUL: the cache compares them word by word.
    auto* words = new uint64_t[length / 8 + 1]();
    char* text = reinterpret_cast<char*>(words);
    std::memcpy(text, name, length);
    OpName described = describe(text, length);
    described.id = capture::register_op_name(text);
    if (described.id == 0) described.flags |= kNoNameId;
    described.record_head = capture::op_head((described.flags & kFactoryOp) != 0 ? capture::kOpFactory : 0, described.id);
    const OpName* interned = new OpName(described);
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

// FNV-1a over the text, a byte at a time.
uint64_t text_hash_bytes(const char* s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s != '\0'; ++s) h = (h ^ uint8_t(*s)) * 0x100000001b3ull;
  return h;
}

// The same idea a word at a time, for 8-aligned text (LibTorch's names): aligned words up to
// the one holding the NUL, that one masked after it. Backward nodes' names, built anew for
// each call, are hashed here whenever their address held another name before.
__attribute__((no_sanitize_address)) uint64_t text_hash(const char* s) {
  if ((reinterpret_cast<uintptr_t>(s) & 7) != 0) return text_hash_bytes(s);
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto* w = reinterpret_cast<const uint64_t*>(s);; ++w) {
    uint64_t v = *w;
    // The lowest flagged byte is the first NUL (flags above it may be false).
    const uint64_t zero = (v - kOnes) & ~v & kHighs;
    if (zero != 0) {
      const int nul_bit = __builtin_ctzll(zero) - 7;  // the NUL byte's first bit
      v &= nul_bit == 0 ? 0 : ~uint64_t{0} >> (64 - nul_bit);
      return (h ^ v) * 0x9e3779b97f4a7c15ull;
    }
    h = ((h ^ v) * 0x9e3779b97f4a7c15ull) ^ (h >> 29);
  }
}

}  // namespace

namespace op_name_cache {

thread_local ThreadCache* t_cache __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

void free_cache(void* cache) {
  delete static_cast<ThreadCache*>(cache);
  t_cache = nullptr;
}

ThreadCache* new_cache() noexcept {
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

}  // namespace

const OpName* intern_slow(const char* name, size_t slot_index) noexcept {
  if (name == nullptr) name = "(unnamed)";
  ThreadCache* cache = t_cache;
  if (cache == nullptr) cache = new_cache();
  const OpName** by_text = nullptr;
  Slot* slot = nullptr;
  if (cache != nullptr) {
    slot = &cache->by_address[slot_index];
    by_text = &cache->by_text[(text_hash(name) >> 32) & (kSlots - 1)];
    if (*by_text != nullptr && same_text(name, **by_text)) {
      *slot = Slot{name, *by_text};
      return *by_text;
    }
  }
  try {
    const OpName* interned = table().intern(name);
    if (cache != nullptr) {
      *by_text = interned;
      *slot = Slot{name, interned};
    }
    return interned;
  } catch (...) {  // out of memory: the op goes unnamed rather than the program down
    alignas(8) static const char unnamed_text[24] = "(name unavailable)";
    static const OpName unnamed = [] {
      OpName n = describe(unnamed_text, 18);
      n.flags |= kNoNameId;  // no id: none may be left
      return n;
    }();
    return &unnamed;
  }
}

const OpName* intern_operator(const void* schema, const char* name) noexcept {
  const OpName* interned = intern_slow(name, slot_of(name));
  if (ThreadCache* cache = t_cache; cache != nullptr) operator_slot(*cache, schema) = OperatorSlot{schema, interned};
  return interned;
}

}  // namespace op_name_cache
}  // namespace mlprof::libtorch
