#include "capture/typed_record_export.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "capture/input_description.h"
#include "capture/session_events.h"
#include "format/xspace_schema.h"

namespace mlprof::capture {
namespace {

namespace xs = format::xspace;
constexpr const char* kAllocationName = xs::kMemoryAllocationEventName.data();  // literals: NUL-terminated
constexpr const char* kDeallocationName = xs::kMemoryDeallocationEventName.data();
constexpr const char* kInferredStepName = "inferred step";

// LibTorch's device naming ("cpu", "cuda:0"), as the PyTorch importer names allocators.
std::string device_allocator_name(int16_t type, int16_t index) {
  std::string name;
  switch (type) {
    case 0: return "cpu";
    case 1: name = "cuda"; break;
    case 6: name = "hip"; break;
    default: name = "device" + std::to_string(type); break;
  }
  return index >= 0 ? name + ":" + std::to_string(index) : name;
}

// The optional strings and numbers after a MemoryRecord.
struct MemoryText {
  std::string_view allocator_name, op_name, region_type, data_type, shape;
  int64_t requested_bytes = -1, bytes_available = -1, peak_bytes_in_use = -1, largest_free_chunk = -1,
          stack_reserved = -1;
};

MemoryText read_memory_text(const MemoryRecord& r) {
  MemoryText t;
  const char* p = reinterpret_cast<const char*>(&r + 1);
  const char* end = p + r.text_bytes;
  while (p < end) {
    const uint8_t field = uint8_t(*p++);
    if (field >= kRequestedBytes) {
      if (end - p < 8) break;
      int64_t v;
      std::memcpy(&v, p, 8);
      p += 8;
      switch (field) {
        case kRequestedBytes: t.requested_bytes = v; break;
        case kBytesAvailable: t.bytes_available = v; break;
        case kPeakBytesInUse: t.peak_bytes_in_use = v; break;
        case kLargestFreeChunk: t.largest_free_chunk = v; break;
        case kStackReserved: t.stack_reserved = v; break;
        default: break;
      }
      continue;
    }
    if (end - p < 2) break;
    uint16_t n;
    std::memcpy(&n, p, 2);
    p += 2;
    if (end - p < n) break;
    const std::string_view s(p, n);
    p += n;
    switch (field) {
      case kAllocatorName: t.allocator_name = s; break;
      case kOpName: t.op_name = s; break;
      case kRegionType: t.region_type = s; break;
      case kDataType: t.data_type = s; break;
      case kShape: t.shape = s; break;
      default: break;
    }
  }
  return t;
}

}  // namespace

TypedRecordExport::TypedRecordExport(format::WirePlane* host, PlaneNames* names, const Arena* arena,
                                     uint64_t first_tick, uint64_t stop_tick)
    : host_(host),
      names_(names),
      arena_(arena),
      tick_base_(arena != nullptr ? arena->tick_base() : 0),
      first_tick_(first_tick),
      stop_tick_(stop_tick) {}

void TypedRecordExport::begin_segment() {
  op_time_high_ = kNoOpTimeHigh;
  last_inputs_.clear();
}

std::string_view TypedRecordExport::inputs_of(const OpRecord* r) const {
  // ops_ is in the order the chunks were read, which is the order of their addresses.
  const auto it = std::lower_bound(ops_.begin(), ops_.end(), r,
                                   [](const PendingOp& op, const OpRecord* record) { return op.record < record; });
  if (it != ops_.end() && it->record == r) return it->inputs;
  return op_has_same_inputs(*r) ? std::string_view() : std::string_view(op_inputs(*r), op_input_bytes(*r));
}

size_t TypedRecordExport::collect(uint32_t tid, const char* p, const char* end) {
  uint64_t first_word;
  std::memcpy(&first_word, p, sizeof first_word);
  const size_t room = size_t(end - p);
  switch (typed_record_kind(first_word)) {
    case kOpTimeRecord:
      op_time_high_ = op_time_high(first_word);
      return sizeof first_word;
    case kOpRecord:
    case kOpRecordSameInputs: {
      if (room < sizeof(OpRecord) || op_time_high_ == kNoOpTimeHigh) return 0;
      const auto* r = reinterpret_cast<const OpRecord*>(p);
      const uint16_t flags = op_flags(*r);
      if (sizeof(OpRecord) + op_fixed_tail_bytes(flags) + ((flags & kOpInputs) != 0 ? sizeof(uint16_t) : 0) > room)
        return 0;
      const size_t bytes = op_record_bytes(*r);
      if (bytes > room || op_name(*r) == nullptr) return 0;
      std::string_view inputs;
      if (op_has_same_inputs(*r)) {
        const auto it = last_inputs_.find(op_name_id(*r));
        if (it == last_inputs_.end() || (flags & (kOpInputs | kOpExtended)) != 0) return 0;  // not ours
        inputs = it->second;
      } else if ((flags & kOpInputs) != 0) {
        inputs = std::string_view(op_inputs(*r), op_input_bytes(*r));
        if (op_name_id(*r) != 0) last_inputs_[op_name_id(*r)] = inputs;
      }
      const uint64_t start = tick_base_ + (op_time_high_ << 32 | r->start_low);
      if (start >= first_tick_) ops_.push_back({tid, r, start, inputs});
      return bytes;
    }
    case kMemoryRecord: {
      if (room < sizeof(MemoryRecord)) return 0;
      const auto* r = reinterpret_cast<const MemoryRecord*>(p);
      const size_t bytes = sizeof(MemoryRecord) + round_up8(r->text_bytes);
      if (bytes > room) return 0;
      if (r->time >= first_tick_) memory_.push_back({tid, r});
      return bytes;
    }
    case kInferredStepRecord: {
      if (room < sizeof(InferredStepRecord)) return 0;
      PendingStep step{tid, {}};
      std::memcpy(&step.record, p, sizeof step.record);
      if (step.record.start >= first_tick_) steps_.push_back(step);
      return sizeof(InferredStepRecord);
    }
    case kOpEndRecord: {
      if (room < sizeof(OpEndRecord)) return 0;
      const auto* r = reinterpret_cast<const OpEndRecord*>(p);
      long_op_ends_[r->op] = r->end;
      return sizeof(OpEndRecord);
    }
    case kLogicalThreadRecord: {
      if (room < sizeof(LogicalThreadRecord)) return 0;
      const auto* r = reinterpret_cast<const LogicalThreadRecord*>(p);
      tid_of_logical_[r->logical_id] = tid;
      return sizeof(LogicalThreadRecord);
    }
    default:
      return 0;
  }
}

const std::string& TypedRecordExport::keep(std::string s) { return strings_.emplace_back(std::move(s)); }

format::WireStat TypedRecordExport::ref_stat(uint32_t key, std::string_view value) {
  auto it = string_ids_.find(value);
  if (it == string_ids_.end()) {
    const std::string& kept = keep(std::string(value));
    it = string_ids_.emplace(kept, names_->stat_id(kept)).first;
  }
  return format::WireStat::of_ref(key, it->second);
}

uint32_t TypedRecordExport::finish_stats(uint32_t first) {
  const uint32_t count = uint32_t(host_->stat_pool.size()) - first;
  if (count == 0) return 0;
  host_->stat_lists.push_back({first, count});
  return uint32_t(host_->stat_lists.size());
}

bool TypedRecordExport::is_op_record(const OpRecord* r) const {
  if (r == nullptr || arena_ == nullptr) return false;
  const char* base = reinterpret_cast<const char*>(arena_->chunk(0));
  const char* p = reinterpret_cast<const char*>(r);
  const uint64_t taken = uint64_t(arena_->chunks_taken()) * kChunkBytes;
  return p >= base && p + sizeof(OpRecord) <= base + taken && is_op_head(r->head);
}

void TypedRecordExport::emit_op(const PendingOp& op, const std::function<void(uint32_t, const format::WireEvent&)>& add) {
  const OpRecord& r = *op.record;
  const uint64_t start = op.start;
  // The owner may be ending the op right now; one still open ends with the capture.
  const uint32_t end_word = __atomic_load_n(&r.end, __ATOMIC_ACQUIRE);
  uint64_t end = 0;
  if (end_word == kLongOp) {
    if (auto it = long_op_ends_.find(&r); it != long_op_ends_.end()) end = it->second;
  } else if (end_word != 0) {
    end = start + end_word - 1;
  }
  if (end == 0 || end < start) end = std::max(start, stop_tick_);
  const EventName name = names_->literal(op_name(r));
  const uint32_t first = uint32_t(host_->stat_pool.size());
  for (uint32_t s = 0; name.stats != 0 && s < host_->stat_lists[name.stats - 1].count; ++s)
    host_->stat_pool.push_back(host_->stat_pool[host_->stat_lists[name.stats - 1].first + s]);
  const int64_t sequence_nr = op_sequence_nr(r);
  if (sequence_nr >= 0) host_->stat_pool.push_back(format::WireStat::of_int64(names_->stat_id("sequence_number"), sequence_nr));
  const uint16_t flags = op_flags(r);
  if ((flags & kOpForwardThreadIsOwn) != 0) {
    host_->stat_pool.push_back(format::WireStat::of_uint64(names_->stat_id("fwd_thread_id"), op.tid));
  } else if (const uint32_t fwd_thread = op_fwd_thread(r); fwd_thread != 0) {
    auto it = tid_of_logical_.find(fwd_thread);
    host_->stat_pool.push_back(format::WireStat::of_uint64(names_->stat_id("fwd_thread_id"),
                                                           it != tid_of_logical_.end() ? it->second : fwd_thread));
  }
  if (!op.inputs.empty() || (flags & kOpInputsTruncated) != 0) {
    host_->stat_pool.push_back(
        ref_stat(names_->stat_id(xs::kStatShape), format_inputs(op.inputs, flags & kOpInputsTruncated)));
  }
  add(op.tid, {int64_t(start), int64_t(end), name.metadata_id, finish_stats(first)});
}

void TypedRecordExport::emit_memory(const std::function<void(uint32_t, const format::WireEvent&)>& add) {
  std::stable_sort(memory_.begin(), memory_.end(),
                   [](const PendingMemory& a, const PendingMemory& b) { return a.record->time < b.record->time; });
  const uint32_t k_allocator = names_->stat_id(xs::kStatAllocatorName), k_addr = names_->stat_id(xs::kStatAddr),
                 k_allocation = names_->stat_id(xs::kStatAllocationBytes),
                 k_requested = names_->stat_id(xs::kStatRequestedBytes),
                 k_allocated = names_->stat_id(xs::kStatBytesAllocated),
                 k_available = names_->stat_id(xs::kStatBytesAvailable),
                 k_reserved = names_->stat_id(xs::kStatBytesReserved), k_peak = names_->stat_id(xs::kStatPeakBytesInUse),
                 k_fragmentation = names_->stat_id(xs::kStatFragmentation), k_op = names_->stat_id(xs::kStatTfOp),
                 k_step = names_->stat_id(xs::kStatId), k_region = names_->stat_id(xs::kStatRegionType),
                 k_data_type = names_->stat_id(xs::kStatDataType), k_shape = names_->stat_id(xs::kStatShape);
  const EventName allocation = names_->literal(kAllocationName), deallocation = names_->literal(kDeallocationName);
  std::map<std::string, int64_t> peak_of;  // per allocator, within the capture
  for (const PendingMemory& m : memory_) {
    const MemoryRecord& r = *m.record;
    const MemoryText text = read_memory_text(r);
    const std::string allocator =
        !text.allocator_name.empty() ? std::string(text.allocator_name) : device_allocator_name(r.device_type, r.device_index);
    const uint64_t bytes = r.bytes < 0 ? uint64_t(0) - uint64_t(r.bytes) : uint64_t(r.bytes);
    int64_t& peak = peak_of[allocator];
    peak = std::max({peak, r.bytes_allocated, text.peak_bytes_in_use});

    const uint32_t first = uint32_t(host_->stat_pool.size());
    auto& pool = host_->stat_pool;
    pool.push_back(ref_stat(k_allocator, allocator));
    pool.push_back(format::WireStat::of_uint64(k_addr, r.address));
    pool.push_back(format::WireStat::of_uint64(k_allocation, bytes));
    pool.push_back(format::WireStat::of_uint64(k_requested, text.requested_bytes >= 0 ? uint64_t(text.requested_bytes) : bytes));
    if (r.bytes_allocated >= 0) pool.push_back(format::WireStat::of_int64(k_allocated, r.bytes_allocated));
    // LibTorch's pool holds "reserved" bytes, of which "allocated" are in use: the rest is
    // free to it, what TensorFlow's allocators call available.
    int64_t available = text.bytes_available;
    if (available < 0 && r.bytes_reserved >= 0 && r.bytes_allocated >= 0 && r.bytes_reserved >= r.bytes_allocated)
      available = r.bytes_reserved - r.bytes_allocated;
    if (available >= 0) pool.push_back(format::WireStat::of_int64(k_available, available));
    if (text.stack_reserved >= 0) pool.push_back(format::WireStat::of_int64(k_reserved, text.stack_reserved));
    if (peak > 0) pool.push_back(format::WireStat::of_int64(k_peak, peak));
    if (available > 0 && text.largest_free_chunk >= 0)
      pool.push_back(format::WireStat::of_double(
          k_fragmentation, double(available - std::min(available, text.largest_free_chunk)) / double(available)));

    const bool known_ops = is_op_record(r.op) && (r.owner == nullptr || is_op_record(r.owner));
    if (!text.op_name.empty()) pool.push_back(ref_stat(k_op, text.op_name));
    else if (known_ops && r.owner != nullptr) pool.push_back(ref_stat(k_op, op_name(*r.owner)));
    else if (known_ops) pool.push_back(ref_stat(k_op, op_name(*r.op)));
    if (r.step >= 0) pool.push_back(format::WireStat::of_int64(k_step, r.step));
    if (!text.region_type.empty()) pool.push_back(ref_stat(k_region, text.region_type));
    std::string data_type(text.data_type), shape(text.shape);
    if (data_type.empty() && shape.empty() && r.bytes > 0 && known_ops && (op_flags(*r.op) & kOpFactory) != 0) {
      factory_result(inputs_of(r.op), &data_type, &shape);
    }
    if (!data_type.empty()) pool.push_back(ref_stat(k_data_type, data_type));
    if (!shape.empty()) pool.push_back(ref_stat(k_shape, shape));
    const EventName& name = r.bytes >= 0 ? allocation : deallocation;
    add(m.tid, {int64_t(r.time), int64_t(r.time), name.metadata_id, finish_stats(first)});
  }
}

void TypedRecordExport::emit(const std::function<void(uint32_t, const format::WireEvent&)>& add) {
  for (const PendingOp& op : ops_) emit_op(op, add);
  emit_memory(add);
  // A program that marks steps itself (StepTrace) keeps only its own.
  if (!g_program_marks_steps.load(std::memory_order_relaxed)) {
    const EventName step_name = names_->literal(kInferredStepName);
    const uint32_t k_step_num = names_->stat_id(xs::kStatStepNum), k_root = names_->stat_id(xs::kStatIsRoot),
                   k_source = names_->stat_id("step_source");
    for (const PendingStep& s : steps_) {
      const uint32_t first = uint32_t(host_->stat_pool.size());
      host_->stat_pool.push_back(format::WireStat::of_int64(k_step_num, s.record.step));
      host_->stat_pool.push_back(format::WireStat::of_int64(k_root, 1));
      if (s.record.source != nullptr) host_->stat_pool.push_back(ref_stat(k_source, s.record.source));
      add(s.tid, {int64_t(s.record.start), int64_t(s.record.end), step_name.metadata_id, finish_stats(first)});
    }
  }
}

}  // namespace mlprof::capture
