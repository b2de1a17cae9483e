// An event of a PyTorch trace as its JSON says it, before the reader decides what it is, and
// which of its keys mean what: the one place both event parsers (pytorch/trace_parser.cc's On-Demand
// one and pytorch/event_scan.h's) take that from.
#pragma once

#include <cstdint>
#include <vector>
#include <string_view>

#include "model/intern_cache.h"
#include "model/pytorch/number.h"
#include "model/pytorch/trace_parser.h"
#include "model/op_arg_names.h"

namespace mlprof::model::kineto {

// A pid or tid: a number, or a label such as "Spans" that we map to a negative id (once the
// label is interned, on the thread that builds the trace).
struct ThreadId {
  int64_t value = 0;
  bool present = false;
  std::string_view label;

  // A number token inside a batch (simdjson's padding follows it); ignored when it is not one.
  void set_number(std::string_view token) {
    if (parse_fixed_padded(token, 0, &value)) present = true;
  }
  // A string: 2021 traces quote thread ids ("1234"); labels ("Spans", "stream 7") get ids far
  // from any real pid or tid.
  void set_string(std::string_view text) {
    if (!parse_fixed(text, 0, &value)) label = text;
    present = true;
  }
};

// An OpArgs (pytorch/trace_parser.h) as written: strings' text, arrays' JSON; interned by the trace
// builder.
struct RawOpArgs {
  std::string_view input_types, input_dims, collective, dtype, in_split, out_split, group_name, group_ranks;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
};

// The parts few events have (kernels', memory events', ops'), kept beside a batch's events
// rather than in each: a RawEvent holds their index.
struct RawParts {
  std::vector<KernelLaunch> kernels;
  std::vector<MemoryRecord> memory;
  std::vector<RawOpArgs> op_args;
  void clear() {
    kernels.clear();
    memory.clear();
    op_args.clear();
  }
};

inline constexpr uint32_t kNoPart = UINT32_MAX;

// A part of a RawEvent, set up (as its defaults) when first written.
template <typename Part>
Part& part(std::vector<Part>& parts, uint32_t* index) {
  if (*index == kNoPart) {
    *index = uint32_t(parts.size());
    parts.emplace_back();
  }
  return parts[*index];
}

// Everything an event may carry; which parts count depends on its phase and category.
struct RawEvent {
  // Written, not zeroed: a parser appends one per event (emplace_back() would zero all of it
  // first without a constructor of its own), and only the fields below with an initializer
  // are set then. The arguments few events have are kept in the batch's RawParts, so that an
  // event is a few cache lines, written by the thread that parses it and read by the one that
  // builds the trace.
  RawEvent() {}

  char ph = 0;
  bool has_cat = false;
  bool has_cbid = false;
  bool global_scope = false;  // "s": "g", a global instant
  // Worked out on the thread that parsed the event (settle()), while its text is in that
  // core's cache, so that the thread that builds the trace reads no more of the text than
  // the names it interns:
  bool ts_ok = false, dur_ok = false, flow_ok = false;
  Category category = Category::kOther;  // what the event is, were it work (X, i or I)
  bool launch_flow = false;     // an arrow from a launch to its GPU work (s and f)
  bool profiler_span = false;   // in the category "trace": the profiler's own span
  bool mtia = false;            // in MTIA's category of device work
  bool unknown_device = false;  // device work in a category not known here
  uint16_t name_slot = 0;       // the name's slot in the InternCache
  std::string_view cat, name;
  ThreadId pid, tid;
  std::string_view ts, dur, flow_id;  // number tokens as written (settle() parses them below)
  // args
  int64_t correlation = kNoId, external_id = kNoId, device = kNoId, stream = kNoId;
  int64_t wait_on_stream = kNoId, wait_on_record = kNoId;  // cuda_sync: the CUDA event waited for
  int64_t bytes = -1;
  std::string_view arg_name;  // "M" events: the process or thread name
  // settle()'s too:
  int64_t ts_value = 0;        // ts × 1000, when ts_ok
  int64_t dur_value = 0;       // dur × 10^6, when dur_ok
  int64_t flow_value = 0;      // the flow's id, when flow_ok
  RawParts* parts = nullptr;   // where its parts are, set by the parser that appends it
  uint32_t kernel = kNoPart;   // a kernel's launch arguments, when it has any
  uint32_t memory = kNoPart;   // a "[memory]" event's
  uint32_t op_args = kNoPart;  // an op's or a collective's (OpArgs), when it has any

  KernelLaunch& kernel_part() { return part(parts->kernels, &kernel); }
  MemoryRecord& memory_part() { return part(parts->memory, &memory); }
  RawOpArgs& op_args_part() { return part(parts->op_args, &op_args); }
  const KernelLaunch* kernel_if() const { return kernel == kNoPart ? nullptr : &parts->kernels[kernel]; }
  const MemoryRecord* memory_if() const { return memory == kNoPart ? nullptr : &parts->memory[memory]; }
  const RawOpArgs* op_args_if() const { return op_args == kNoPart ? nullptr : &parts->op_args[op_args]; }
};

// A key as written from just after its opening quote (our keys have no escapes, so a key with
// one simply matches none); the text always holds the closing quote.
inline std::string_view key_at(const char* begin) {
  const char* end = begin;
  while (*end != '"' && *end != '\\') ++end;
  return {begin, size_t(end - begin)};
}

// The keys of an event that are read.
enum class EventKey : uint8_t { kPh, kTs, kId, kCat, kPid, kTid, kDur, kName, kArgs, kScope, kOther };

inline EventKey event_key(std::string_view key) {
  switch (key.size()) {
    case 1: return key == "s" ? EventKey::kScope : EventKey::kOther;
    case 2:
      if (key == "ph") return EventKey::kPh;
      if (key == "ts") return EventKey::kTs;
      if (key == "id") return EventKey::kId;
      return EventKey::kOther;
    case 3:
      if (key == "cat") return EventKey::kCat;
      if (key == "pid") return EventKey::kPid;
      if (key == "tid") return EventKey::kTid;
      if (key == "dur") return EventKey::kDur;
      return EventKey::kOther;
    case 4:
      if (key == "name") return EventKey::kName;
      if (key == "args") return EventKey::kArgs;
      return EventKey::kOther;
    default: return EventKey::kOther;
  }
}

// The keys of an event's args that are read: most are integers into a field of RawEvent.
enum class ArgKey : uint8_t {
  kInteger,                // *target, from the number token
  kCbid,                   // present or not
  kOccupancy,              // a double: est. achieved occupancy %
  kTheoreticalOccupancy,   // a double, in 2021 traces, when the achieved one is not there
  kGrid,                   // [x, y, z]
  kBlock,
  kName,                   // a string: "M" events' process or thread name
  kText,                   // *text: a string's text, or another value's JSON (an op argument)
  kOther,
};

// What `key` is, and for kInteger and kText the field it fills (kernel and op arguments also
// mark the event as having them, whatever their value).
inline ArgKey arg_key(std::string_view key, RawEvent* raw, int64_t** target, std::string_view** text) {
  *text = nullptr;
  // The commonest key first, before the switch below saves the registers its calls need.
  if (key == "External id") return *target = &raw->external_id, ArgKey::kInteger;
  *target = nullptr;
  if (key.empty()) return ArgKey::kOther;
  auto op_text = [&](std::string_view RawOpArgs::*field) {
    *text = &(raw->op_args_part().*field);
    return ArgKey::kText;
  };
  auto op_integer = [&](int64_t RawOpArgs::*field) {
    *target = &(raw->op_args_part().*field);
    return ArgKey::kInteger;
  };
  switch (key[0]) {
    case 'I':
      if (key == kArgInputType) return op_text(&RawOpArgs::input_types);
      if (key == kArgInputDims) return op_text(&RawOpArgs::input_dims);
      if (key == kArgInMsgNelems) return op_integer(&RawOpArgs::in_nelems);
      if (key == kArgInSplitSize) return op_text(&RawOpArgs::in_split);
      break;
    case 'O':
      if (key == kArgOutMsgNelems) return op_integer(&RawOpArgs::out_nelems);
      if (key == kArgOutSplitSize) return op_text(&RawOpArgs::out_split);
      break;
    case 'C':
      if (key == kArgCollectiveName) return op_text(&RawOpArgs::collective);
      break;
    case 'G':
      if (key == kArgGroupSize) return op_integer(&RawOpArgs::group_size);
      break;
    case 'P':
      if (key == kArgProcessGroupName) return op_text(&RawOpArgs::group_name);
      if (key == kArgProcessGroupRanks) return op_text(&RawOpArgs::group_ranks);
      break;
    case 'c':
      if (key == "correlation") *target = &raw->correlation;
      else if (key == "cbid") return ArgKey::kCbid;
      break;
    case 'E':
    case 'e':
      if (key == "External id" || key == "external id") *target = &raw->external_id;
      else if (key == "est. achieved occupancy %") return ArgKey::kOccupancy;
      break;
    case 't':
      if (key == "theoretical occupancy %") return ArgKey::kTheoreticalOccupancy;
      break;
    case 'd':
      if (key == "device") *target = &raw->device;
      else if (key == kArgDtype) return op_text(&RawOpArgs::dtype);
      break;
    case 's':
      if (key == "stream") *target = &raw->stream;
      else if (key == "shared memory") *target = &raw->kernel_part().shared_memory;
      break;
    case 'r':
      if (key == "registers per thread") *target = &raw->kernel_part().registers;
      break;
    case 'g':
      if (key == "grid") return ArgKey::kGrid;
      break;
    case 'b':
      if (key == "block") return ArgKey::kBlock;
      if (key == "bytes") *target = &raw->bytes;
      break;
    case 'A':
      if (key == "Addr") *target = &raw->memory_part().addr;
      break;
    case 'B':
      if (key == "Bytes") *target = &raw->memory_part().bytes;
      break;
    case 'T':
      if (key == "Total Allocated") *target = &raw->memory_part().total_allocated;
      else if (key == "Total Reserved") *target = &raw->memory_part().total_reserved;
      break;
    case 'D':
      if (key == "Device Type") *target = &raw->memory_part().device_type;
      else if (key == "Device Id") *target = &raw->memory_part().device_id;
      break;
    case 'n':
      if (key == "name") return ArgKey::kName;
      break;
    case 'w':
      if (key == kArgWaitOnStream) *target = &raw->wait_on_stream;
      else if (key == kArgWaitOnEventRecord) *target = &raw->wait_on_record;
      break;
    default:
      break;
  }
  return *target != nullptr ? ArgKey::kInteger : ArgKey::kOther;
}

// Whether `text` is `lower` in any case.
inline bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// The categories and names of the arrows from a launch to its GPU work.
inline bool is_launch_flow(std::string_view s) { return s == "ac2g" || s == "async_cpu_to_gpu" || s == "launch"; }

// The category of work as Kineto writes it (in lower case), which most events have: true and
// *category then, as category_of() finds it the longer way.
inline bool category_as_written(std::string_view c, Category* category) {
  switch (c.size()) {
    case 6:
      if (c == "cpu_op") return *category = Category::kCpuOp, true;
      if (c == "kernel") return *category = Category::kKernel, true;
      return false;
    case 10:
      if (c == "gpu_memcpy") return *category = Category::kMemcpy, true;
      if (c == "gpu_memset") return *category = Category::kMemset, true;
      return false;
    case 12:
      if (c == "cuda_runtime") return *category = Category::kRuntime, true;
      return false;
    case 15:
      if (c == "user_annotation") return *category = Category::kUserAnnotation, true;
      if (c == "python_function") return *category = Category::kPythonFunction, true;
      return false;
    default:
      return false;
  }
}

// What an event is, from its phase, category, name and arguments.
inline Category category_of(const RawEvent& raw) {
  if (raw.ph != 'X') return raw.name == "[memory]" ? Category::kMemory : Category::kInstant;
  if (raw.has_cat) {
    const std::string_view c = raw.cat;
    if (equals_lower(c, "cpu_op") || equals_lower(c, "operator")) return Category::kCpuOp;
    if (equals_lower(c, "user_annotation")) return Category::kUserAnnotation;
    if (equals_lower(c, "kernel")) return Category::kKernel;
    if (equals_lower(c, "cuda_runtime") || equals_lower(c, "runtime") || equals_lower(c, "xpu_runtime") ||
        equals_lower(c, "mtia_runtime") || equals_lower(c, "privateuse1_runtime"))
      return Category::kRuntime;
    if (equals_lower(c, "cuda_driver") || equals_lower(c, "driver") || equals_lower(c, "xpu_driver") ||
        equals_lower(c, "privateuse1_driver"))
      return Category::kDriver;
    if (equals_lower(c, "gpu_memcpy") || equals_lower(c, "memcpy")) return Category::kMemcpy;
    if (equals_lower(c, "gpu_memset") || equals_lower(c, "memset")) return Category::kMemset;
    if (equals_lower(c, "gpu_user_annotation")) return Category::kGpuUserAnnotation;
    if (equals_lower(c, "python_function") || equals_lower(c, "python")) return Category::kPythonFunction;
    if (equals_lower(c, "cuda_sync")) return Category::kSync;
    if (equals_lower(c, "cpu_instant_event")) return raw.name == "[memory]" ? Category::kMemory : Category::kInstant;
    // MTIA's device work; and work on a device stream in a category not known here: device work
    // all the same (the importer warns about the latter).
    if (equals_lower(c, "mtia_ccp_events") || (raw.device != kNoId && raw.stream != kNoId)) return Category::kKernel;
    return Category::kOther;
  }
  // No category (some writers drop it): the name and arguments tell.
  if (raw.name == "[memory]") return Category::kMemory;
  if (raw.device != kNoId && raw.stream != kNoId) {
    if (raw.name.starts_with("Memcpy")) return Category::kMemcpy;
    if (raw.name.starts_with("Memset")) return Category::kMemset;
    return Category::kKernel;
  }
  if (raw.has_cbid || raw.correlation != kNoId) return Category::kRuntime;
  return Category::kCpuOp;
}

// The parts of a parsed event that need no state of the trace, worked out as soon as the
// event is read, while its text is in this core's cache: those TraceReader::add_event reads
// for the event's phase, and no more (a third of a trace's events are flow arrows).
inline void settle(RawEvent& raw) {
  // All point into the batch, which simdjson's padding follows.
  switch (raw.ph) {
    case 'X':
    case 'i':
    case 'I':
      break;
    case 's':
    case 'f':  // only a launch's arrow is kept, with its time and id
      raw.launch_flow = is_launch_flow(raw.cat) || is_launch_flow(raw.name);
      if (raw.launch_flow) {
        raw.ts_ok = parse_fixed_padded(raw.ts, 3, &raw.ts_value);
        raw.flow_ok = parse_fixed_padded(raw.flow_id, 0, &raw.flow_value);
      }
      return;
    default:  // metadata (its names are read as they are), and phases that carry no work
      return;
  }
  raw.ts_ok = parse_fixed_padded(raw.ts, 3, &raw.ts_value);
  raw.dur_ok = raw.ph == 'X' && !raw.dur.empty() && parse_fixed_padded(raw.dur, 6, &raw.dur_value);
  raw.name_slot = uint16_t(InternCache::slot_of(raw.name));
  // A category as Kineto writes it is neither the profiler's span, nor MTIA's, nor device work
  // in a category not known here: the flags below keep their defaults.
  if (raw.ph == 'X' && raw.has_cat && category_as_written(raw.cat, &raw.category)) return;
  raw.category = category_of(raw);
  if (raw.has_cat) {
    raw.profiler_span = equals_lower(raw.cat, "trace");
    raw.mtia = equals_lower(raw.cat, "mtia_ccp_events");
    raw.unknown_device = raw.category == Category::kKernel && !raw.mtia && !equals_lower(raw.cat, "kernel");
  }
}

}  // namespace mlprof::model::kineto
