#include "analysis/event_kinds.h"

#include <array>

#include "analysis/by_name_string.h"
#include "format/xspace_schema.h"
#include "model/string_contains.h"

namespace mlprof::analysis {
namespace {

using model::contains;

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return !(s[0] >= '0' && s[0] <= '9');
}

template <size_t N>
bool any_of(std::string_view s, const std::array<std::string_view, N>& options) {
  for (auto o : options)
    if (s == o) return true;
  return false;
}

constexpr std::string_view kIteratorPrefix = "Iterator::";

}  // namespace

bool is_tf_op_name(std::string_view name) {
  if (contains(name, "::") || contains(name, " ") || contains(name, "(")) return false;
  const size_t colon = name.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || !is_identifier(name.substr(colon + 1))) return false;
  // Op types are registered CamelCase ("MatMul", "_Send"): PyTorch's "nccl:all_reduce" and
  // "nccl:_all_gather_base" are no TF ops.
  std::string_view type = name.substr(colon + 1);
  if (type.starts_with("_")) type.remove_prefix(1);
  return !type.empty() && type[0] >= 'A' && type[0] <= 'Z';
}

bool is_jax_op_name(std::string_view name) {
  return name.size() > 1 && name.back() == ':' && (name.starts_with("jit(") || name.starts_with("pjit(")) &&
         contains(name, "/");
}

std::string_view jax_op_type(std::string_view name) {
  name.remove_suffix(1);  // the ':'
  // The last component of the path, '/' inside brackets or parentheses not counting.
  size_t begin = 0;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '[' || c == '(') ++depth;
    else if ((c == ']' || c == ')') && depth > 0) --depth;
    else if (c == '/' && depth == 0) begin = i + 1;
  }
  std::string_view last = name.substr(begin);
  return last.substr(0, last.find('['));
}

std::string_view op_type_of(std::string_view name) {
  if (is_jax_op_name(name)) return jax_op_type(name);
  if (is_iterator_name(name)) return iterator_type(name);
  if (is_tf_op_name(name)) return name.substr(name.rfind(':') + 1);
  return name;
}

bool is_iterator_name(std::string_view name) { return name.starts_with(kIteratorPrefix) && name.size() > kIteratorPrefix.size(); }

std::string_view iterator_type(std::string_view long_name) {
  const size_t sep = long_name.rfind("::");
  return sep == std::string_view::npos ? long_name : long_name.substr(sep + 2);
}

std::string_view iterator_parent(std::string_view long_name) {
  const size_t sep = long_name.rfind("::");
  if (sep == std::string_view::npos || sep + 2 == kIteratorPrefix.size()) return {};
  return long_name.substr(0, sep);
}

bool is_root_iterator(std::string_view long_name) {
  return is_iterator_name(long_name) && !contains(long_name.substr(kIteratorPrefix.size()), "::");
}

std::string_view root_iterator_of(std::string_view long_name) {
  if (!is_iterator_name(long_name)) return {};
  const size_t sep = long_name.find("::", kIteratorPrefix.size());
  return sep == std::string_view::npos ? long_name : long_name.substr(0, sep);
}

bool is_async_iterator_type(std::string_view type) {
  static constexpr std::array<std::string_view, 10> kAsync = {
      "Prefetch", "ParallelMap", "ParallelMapV2", "ParallelInterleave", "ParallelInterleaveV2",
      "ParallelInterleaveV3", "ParallelInterleaveV4", "MapAndBatch", "ParallelBatch", "LegacyParallelInterleave"};
  return any_of(type, kAsync);
}

bool is_source_iterator_type(std::string_view type) {
  static constexpr std::array<std::string_view, 10> kSources = {
      "TFRecord", "TextLine", "FixedLengthRecord", "FileRead", "ReadFile", "SSTable", "MemoryReader",
      "Generator", "TensorSlice", "FromTensor"};
  return any_of(type, kSources) || contains(type, "Read") || contains(type, "File");
}

bool is_file_source_iterator_type(std::string_view type) {
  static constexpr std::array<std::string_view, 4> kInMemory = {"Generator", "TensorSlice", "FromTensor", "MemoryReader"};
  return is_source_iterator_type(type) && !any_of(type, kInMemory);
}

bool is_input_request_name(std::string_view name) {
  return is_root_iterator(name) || name.starts_with("IteratorGetNext") ||
         (is_tf_op_name(name) && op_type_of(name).starts_with("IteratorGetNext")) ||
         name.starts_with("enumerate(DataLoader)");
}

int implicit_root_rank(std::string_view name) {
  if (name == "SessionRun") return 0;
  if (name.starts_with(format::xspace::kProfilerStepPrefix)) return 0;
  if (name == "FunctionRun") return 1;
  if (name == "RunGraph") return 2;
  if (name == "ExecutorState::Process") return 3;
  return -1;
}

MemcpyKind memcpy_kind(std::string_view name) {
  using format::xspace::CopyDirection;
  switch (format::xspace::copy_direction(name)) {
    case CopyDirection::kHostToDevice: return MemcpyKind::kHostToDevice;
    case CopyDirection::kDeviceToHost: return MemcpyKind::kDeviceToHost;
    case CopyDirection::kDeviceToDevice:
    case CopyDirection::kPeerToPeer: return MemcpyKind::kDeviceToDevice;
    case CopyDirection::kHostToHost: return MemcpyKind::kHostToHost;
    default: return MemcpyKind::kNone;  // not a copy, or one whose direction the name does not say
  }
}

std::vector<MemcpyKind> memcpy_kinds_by_name(const model::Profile& p) {
  return by_name_string<MemcpyKind>(p, [&](model::NameIndex n) { return memcpy_kind(p.strings.view(p.names[n].name)); });
}

bool is_compile_name(std::string_view name) {
  // PyTorch runs what torch.compile built as "CompiledFunction(Backward)": that is not compiling.
  if (contains(name, "CompiledFunction") || name.starts_with("Torch-Compiled Region")) return false;
  return contains(name, "Compile") || contains(name, "compile") || name.starts_with("jit_");
}

bool is_launch_name(std::string_view name) {
  return contains(name, "LaunchKernel") || name.starts_with("cudaLaunch") || name.starts_with("cuLaunch") ||
         name.starts_with("hipLaunch") || name.starts_with("hipExtLaunch") || name.starts_with("cudaGraphLaunch");
}

bool is_runtime_api_name(std::string_view name) {
  return (name.starts_with("cuda") || name.starts_with("hip")) && name.size() > 4 && name[4] >= 'A' &&
         name[4] <= 'Z';
}

bool is_mtia_launch_name(std::string_view name) {
  return name.starts_with("runFunction") || name.starts_with("enqueueCommand ");
}

bool is_mtia_sync_name(std::string_view name) { return name == "synchronize" || name == "synchronizeStream"; }

bool is_mtia_runtime_name(std::string_view name) {
  return is_mtia_launch_name(name) || is_mtia_sync_name(name) || name == "recordEvent";
}

bool is_memory_event_name(std::string_view name) {
  return name == format::xspace::kMemoryAllocationEventName || name == format::xspace::kMemoryDeallocationEventName ||
         name == "[memory]";
}

}  // namespace mlprof::analysis
