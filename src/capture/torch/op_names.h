// Op names outlive their ops: LibTorch's RecordFunction::name() of backward nodes and
// autograd entries points into the RecordFunction, which dies with the op (docs/ARCHITECTURE.md §8).
// Every name is interned once per process; a per-thread cache keyed by the name's address
// (checked against the text, since a dead name's address is reused) makes the common case
// a hash, a load and a compare of a few words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlprof::libtorch {

enum OpNameFlags : uint32_t {
  kAutogradEntry = 1,   // "autograd::engine::evaluate_function: ...": the engine runs a node
  kFactoryOp = 2,       // aten::empty and the like: allocates its result
  kInputRequest = 4,    // "enumerate(DataLoader)#...": a Python training loop asks for its next batch
  kNoNameId = 8,        // op_name_ids.h gave it no id: its records carry its pointer
};

struct OpName {
  const char* text;           // immortal, 8-aligned and zero-padded to whole words
  uint32_t flags;             // OpNameFlags
  uint32_t words;             // 8-byte words the text spans, its terminating NUL included
  int8_t dtype_argument;      // factory ops: the position of their dtype= argument, else -1
  uint64_t last_mask;         // the bytes of the last word that belong to the text and its NUL
  uint64_t first_mask;        // the same for the first word
  size_t length;
  uint16_t id;                // its id in op records (op_name_ids.h), 0 for none
  uint32_t record_head;       // OpRecord::head of a dispatched op of this name (typed_records.h)
};

namespace op_name_cache {

constexpr size_t kSlots = 512;

struct Slot {
  const char* address;
  const OpName* name;
};

// A registered operator's name, by its schema's address (record_function_name.h).
struct OperatorSlot {
  const void* schema;
  const OpName* name;
};

// Two levels: by address (names of dispatched ops live as long as their operator), then by
// text (backward nodes' names are built anew for each call), before the shared table's lock.
// And by operator, for ops whose name is known to be their operator's.
struct ThreadCache {
  Slot by_address[kSlots] = {};
  const OpName* by_text[kSlots] = {};
  OperatorSlot by_operator[kSlots] = {};
};

// initial-exec: no call to find it.
extern constinit thread_local ThreadCache* t_cache __attribute__((tls_model("initial-exec")));

// A name's slot, from its address and first 8 bytes: backward nodes' names are built anew for
// each call, often at the address of the one before (a RecordFunction on the same stack
// frame), and their first bytes tell most of them apart ("AddmmBac", "ReluBack"...). The
// aligned word holding the first byte is read, as same_text() does.
__attribute__((no_sanitize_address)) inline size_t slot_of(const char* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const uint64_t first = *reinterpret_cast<const uint64_t*>(a & ~uintptr_t{7});
  return size_t(((a >> 3) ^ first) * 0x9e3779b97f4a7c15ull >> 55) & (kSlots - 1);
}

// Whether `s` is the interned text. LibTorch's names are std::string data, so 8-aligned: the
// aligned words are read up to the one holding the first difference or `s`'s NUL (an aligned
// word never crosses a page), the last one up to the interned text's NUL.
__attribute__((no_sanitize_address)) inline bool same_text(const char* s, const OpName& n) noexcept {
  if (__builtin_expect((reinterpret_cast<uintptr_t>(s) & 7) != 0, 0)) return __builtin_strcmp(s, n.text) == 0;
  const auto* a = reinterpret_cast<const uint64_t*>(s);
  const auto* b = reinterpret_cast<const uint64_t*>(n.text);
  const uint32_t last = n.words - 1;
  for (uint32_t i = 0; i < last; ++i)
    if (a[i] != b[i]) return false;
  return ((a[last] ^ b[last]) & n.last_mask) == 0;
}

// A name's slot from its address, length and last word, for a name whose length is known (a
// std::string's): LibTorch builds long names anew for each call at one address, and those
// that differ only after their first word ("autograd::engine::evaluate_function: X") differ
// in their length or last word. A std::string's buffer holds at least 16 bytes.
__attribute__((no_sanitize_address)) inline size_t slot_of_sized(const char* address, size_t length) {
  uint64_t last;
  __builtin_memcpy(&last, address + (length >= 8 ? length - 8 : 0), sizeof last);
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  return size_t(((a >> 3) ^ last ^ (length * 0xff51afd7ed558ccdull)) * 0x9e3779b97f4a7c15ull >> 55) & (kSlots - 1);
}

// A miss of the address cache (or no cache yet, or a null name), whose address slot is
// `slot`.
const OpName* intern_slow(const char* name, size_t slot) noexcept;

// The slot of a registered operator's name, by its schema's address.
inline OperatorSlot& operator_slot(ThreadCache& cache, const void* schema) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(schema);
  return cache.by_operator[size_t((a >> 4) * 0x9e3779b97f4a7c15ull >> 55) & (kSlots - 1)];
}

// A miss of the operator cache.
const OpName* intern_operator(const void* schema, const char* name) noexcept;

// Whether the interned `n` still is the text at `s` of `length` bytes, judged by its length
// and first word: what tells apart an operator's name from that of one registered later at
// the same address. A std::string's text has room for 8 bytes (its inline buffer is 16).
__attribute__((no_sanitize_address)) inline bool same_operator_text(const char* s, size_t length,
                                                                     const OpName& n) noexcept {
  uint64_t first;
  __builtin_memcpy(&first, s, sizeof first);
  return length == n.length && ((first ^ *reinterpret_cast<const uint64_t*>(n.text)) & n.first_mask) == 0;
}

}  // namespace op_name_cache

// The interned name for `name` (any string that is valid during the call). Inline: it runs
// for every op.
inline const OpName* intern_op_name(const char* name) noexcept {
  op_name_cache::ThreadCache* cache = op_name_cache::t_cache;
  if (__builtin_expect(cache != nullptr && name != nullptr, 1)) {
    const op_name_cache::Slot& slot = cache->by_address[op_name_cache::slot_of(name)];
    if (__builtin_expect(slot.address == name && op_name_cache::same_text(name, *slot.name), 1)) return slot.name;
  }
  return op_name_cache::intern_slow(name, name != nullptr ? op_name_cache::slot_of(name) : 0);
}

// The same for a std::string's text.
inline const OpName* intern_op_name(const std::string& name) noexcept {
  const size_t slot = op_name_cache::slot_of_sized(name.data(), name.size());
  op_name_cache::ThreadCache* cache = op_name_cache::t_cache;
  if (__builtin_expect(cache != nullptr, 1)) {
    const op_name_cache::Slot& s = cache->by_address[slot];
    if (__builtin_expect(s.address == name.data() && op_name_cache::same_text(name.data(), *s.name), 1)) return s.name;
  }
  return op_name_cache::intern_slow(name.c_str(), slot);
}

// The interned name of the registered operator `schema` (record_function_name.h), whose name
// is `name`, when the thread's cache holds it; else null. Inline, with no call: it runs for
// most ops.
inline const OpName* cached_operator_op_name(const void* schema, const std::string& name) noexcept {
  op_name_cache::ThreadCache* cache = op_name_cache::t_cache;
  if (__builtin_expect(cache != nullptr, 1)) {
    const op_name_cache::OperatorSlot& slot = op_name_cache::operator_slot(*cache, schema);
    if (__builtin_expect(slot.schema == schema && op_name_cache::same_operator_text(name.data(), name.size(), *slot.name), 1))
      return slot.name;
  }
  return nullptr;
}

// The same, interned on a miss.
inline const OpName* operator_op_name(const void* schema, const std::string& name) noexcept {
  const OpName* cached = cached_operator_op_name(schema, name);
  return __builtin_expect(cached != nullptr, 1) ? cached : op_name_cache::intern_operator(schema, name.c_str());
}

}  // namespace mlprof::libtorch
