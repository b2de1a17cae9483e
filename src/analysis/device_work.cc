#include "analysis/device_work.h"

#include <array>
#include <string>

#include "analysis/device_work_names.h"
#include "analysis/lowered_name.h"
#include "format/xspace_schema.h"
#include "model/string_contains.h"

namespace mlprof::analysis {
namespace {

using model::contains;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

bool has_any(std::string_view s, std::initializer_list<std::string_view> parts) {
  for (auto p : parts)
    if (contains(s, p)) return true;
  return false;
}

// XLA's op names: an instruction's name ("all-reduce.3", "copy-done") or its text
// ("%copy-done.2 = f32[5,1024]{1,0} copy-done(...)"): the opcode, without the ".<n>" suffix.
std::string_view hlo_opcode(std::string_view name) {
  if (const size_t eq = name.find(" = "); eq != std::string_view::npos) {
    // After the result's shape, which ends at the first space outside brackets.
    size_t i = eq + 3;
    for (int depth = 0; i < name.size() && (depth > 0 || name[i] != ' '); ++i) {
      if (name[i] == '(' || name[i] == '[' || name[i] == '{') ++depth;
      if (name[i] == ')' || name[i] == ']' || name[i] == '}') --depth;
    }
    const std::string_view rest = i < name.size() ? name.substr(i + 1) : std::string_view();
    return rest.substr(0, rest.find('('));
  }
  if (name.starts_with("%")) name.remove_prefix(1);
  const size_t dot = name.find('.');
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

// The copy an XLA copy-start/copy-done makes, from the memory spaces of its shapes: S(5) is
// the host's memory space (host offloading), so a copy whose destination is there goes to
// the host and one whose source is there comes back. Without the shapes: another memory space.
DeviceWork xla_copy_kind(std::string_view name, std::string_view opcode) {
  const size_t eq = name.find(" = ");
  if (eq == std::string_view::npos) return DeviceWork::kCopyHostOffload;
  const std::string_view result = name.substr(eq + 3, name.find(std::string(" ") + std::string(opcode) + "(") - eq - 3);
  const std::string_view operands = name.substr(name.find('(', eq + 3 + result.size()) + 1);
  if (opcode == "copy-start") {
    // (source, destination, context)
    const size_t second = result.find("}, ");
    const std::string_view source = result.substr(0, second);
    if (contains(source, "S(5)")) return DeviceWork::kCopyHostToDevice;
    if (contains(result, "S(5)")) return DeviceWork::kCopyDeviceToHost;
  } else {
    if (contains(result, "S(5)")) return DeviceWork::kCopyDeviceToHost;
    if (contains(operands, "S(5)")) return DeviceWork::kCopyHostToDevice;
  }
  return DeviceWork::kCopyHostOffload;
}

bool is_collective(std::string_view name, const LoweredName& text) {
  const std::string_view low = text.low();
  if (name.starts_with("nccl") || name.starts_with("rccl") || name.starts_with("hccl") ||
      text.holds(name, "ncclKernel") || text.holds(name, "ncclDevKernel"))
    return true;
  // Symmetric-memory collectives (PyTorch's symm_mem, vLLM's custom all-reduce).
  if (text.holds_any(low, {"multimem_all_reduce", "multimem_all_gather", "multimem_reduce", "one_shot_all_reduce",
                          "two_shot_all_reduce", "cross_device_reduce"}))
    return true;
  static constexpr std::array<std::string_view, 8> kXla = {
      "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "collective-broadcast",
      "send", "recv"};
  const std::string_view op = hlo_opcode(name);
  for (auto x : kXla)
    if (op == x || (op.starts_with(x) && (op.substr(x.size()) == "-start" || op.substr(x.size()) == "-done")))
      return true;
  return text.holds_any(name, {"AllReduce", "AllGather", "ReduceScatter", "AllToAll", "CollectiveReduce"}) ||
         text.holds_any(low, {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"});
}

// HTA's not-computation names that are none of copy, set, collective (its "other" kind).
bool is_runtime_record(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kPrefixes = {"runFunction", "job_exe", "packet", "pe_exe",
                                                                "cpum_exe_subgraph", "collective_subgraph_execution"};
  for (auto p : kPrefixes)
    if (name.starts_with(p)) return true;
  if (name.starts_with("cuda") && contains(name.substr(4), "LaunchKernel")) return true;
  return name.starts_with("hip") && name.size() > 3 && name[3] >= 'A' && name[3] <= 'Z';
}

}  // namespace

std::string_view device_work_key(DeviceWork kind) {
  static constexpr std::array<std::string_view, kNumDeviceWorks> kKeys = {
      "compute", "collective", "copy_h2d", "copy_d2h", "copy_d2d", "copy_h2h", "copy_host_offload",
      "copy_unknown_direction", "memset", "dma", "sync", "other"};
  return kKeys[size_t(kind)];
}

DeviceWork copy_kind_of_text(std::string_view text) {
  const std::string t = lower(text);
  // memcpy_details: "kind_src:device kind_dst:host ..." (TensorFlow/XLA's GPU tracer).
  if (const size_t src = t.find("kind_src:"), dst = t.find("kind_dst:");
      src != std::string::npos && dst != std::string::npos) {
    const bool from_host = t.compare(src + 9, 4, "host") == 0 || t.compare(src + 9, 6, "pinned") == 0 ||
                           t.compare(src + 9, 8, "pageable") == 0;
    const bool to_host = t.compare(dst + 9, 4, "host") == 0 || t.compare(dst + 9, 6, "pinned") == 0 ||
                         t.compare(dst + 9, 8, "pageable") == 0;
    if (from_host && to_host) return DeviceWork::kCopyHostToHost;
    if (from_host) return DeviceWork::kCopyHostToDevice;
    if (to_host) return DeviceWork::kCopyDeviceToHost;
    return DeviceWork::kCopyDeviceToDevice;
  }
  if (has_any(t, {"h2d", "htod", "hosttodevice", "host_to_device"})) return DeviceWork::kCopyHostToDevice;
  if (has_any(t, {"d2h", "dtoh", "devicetohost", "device_to_host"})) return DeviceWork::kCopyDeviceToHost;
  if (has_any(t, {"d2d", "dtod", "devicetodevice", "device_to_device", "p2p", "ptop", "peer"}))
    return DeviceWork::kCopyDeviceToDevice;
  if (has_any(t, {"h2h", "htoh", "hosttohost", "host_to_host"})) return DeviceWork::kCopyHostToHost;
  return DeviceWork::kCopyUnknown;
}

DeviceWork device_work_of_name(std::string_view name) {
  if (name.empty() || name == "(null)") return DeviceWork::kOther;
  const LoweredName text(name);
  const std::string& low = text.low();
  std::string_view n = name;
  if (n.starts_with("hip")) n.remove_prefix(3);
  // Copies: CUDA's and Kineto's "Memcpy HtoD (...)", HIP's, XLA's "CopyDeviceToDevice".
  if (n.starts_with("Memcpy") || n.starts_with("MEMCPY") || n.starts_with("memcpy") ||
      format::xspace::copy_direction(name) != format::xspace::CopyDirection::kNotACopy ||
      low.starts_with("copyhosttodevice") || low.starts_with("copydevicetohost") ||
      low.starts_with("copydevicetodevice") || low.starts_with("copyhosttohost") || low.starts_with("copypeer"))
    return copy_kind_of_text(name);
  if (n.starts_with("Memset") || n.starts_with("MEMSET") || n.starts_with("memset")) return DeviceWork::kMemset;
  // XLA's asynchronous copies between memory spaces (host offloading on TPUs): the direction
  // is not in the name.
  if (const std::string_view op = hlo_opcode(name); op == "copy-start" || op == "copy-done") {
    const DeviceWork k = xla_copy_kind(name, op);
    // An XLA program's copy to or from the host's memory space is host offloading, not input.
    return k == DeviceWork::kCopyHostToDevice || k == DeviceWork::kCopyDeviceToHost ? DeviceWork::kCopyHostOffload : k;
  }
  if (low.starts_with("dma") || text.holds(low, "dma_request") || text.holds(low, "_dma_")) return DeviceWork::kDma;
  if (is_collective(name, text)) return DeviceWork::kCollective;
  if (name.starts_with("Stream Wait Event") || text.holds(name, "Sync") || low.starts_with("wait") ||
      text.holds(low, "barrier"))
    return DeviceWork::kSync;
  if (is_runtime_record(name)) return DeviceWork::kOther;
  return DeviceWork::kCompute;
}

DeviceFamily plane_device_family(const model::Profile& p, uint32_t plane) {
  const model::Plane& pl = p.planes[plane];
  if (pl.kind != model::PlaneKind::kDevice) return DeviceFamily::kNone;
  const std::string type = lower(p.strings.view(pl.device_type));
  const std::string name = lower(p.strings.view(pl.name));
  if (type == "tpu" || contains(name, ":tpu:")) return DeviceFamily::kTpu;
  if (type == "mtia" || contains(name, "mtia")) return DeviceFamily::kMtia;
  if (type == "gpu" || contains(name, ":gpu:")) {
    const model::StringId key = p.strings.find(format::xspace::kStatDeviceVendor);
    if (key != model::kNoString)
      if (auto v = p.plane_stat(plane, key); v && p.string_of(*v) == format::xspace::kDeviceVendorAmd)
        return DeviceFamily::kAmdGpu;
    return DeviceFamily::kNvidiaGpu;
  }
  return DeviceFamily::kOtherDevice;
}

DeviceWorkClassifier::DeviceWorkClassifier(const model::Profile& p) : DeviceWorkClassifier(p, nullptr) {}

DeviceWorkClassifier::DeviceWorkClassifier(const model::Profile& p, std::shared_ptr<const DeviceWorkNames> names)
    : p_(p),
      names_(DeviceWorkNames::or_own(std::move(names), p)),
      by_name_(p.names.size(), -1),
      stats_matter_(p.names.size(), 0),
      memset_details_(p.strings.find("memset_details")),
      direction_(p.strings.find("direction")) {}

DeviceWork DeviceWorkClassifier::of(model::EventIndex e) {
  const model::NameIndex n = p_.events.name[e];
  if (n >= by_name_.size()) by_name_.resize(p_.names.size(), -1), stats_matter_.resize(p_.names.size(), 0);
  int8_t& known = by_name_[n];
  if (known < 0) {
    const std::string_view name = p_.strings.view(p_.names[n].name);
    const DeviceWork k = names_->work(p_, n);
    known = int8_t(k);
    if (k == DeviceWork::kOther && unknown_names_.size() < 20) unknown_names_.emplace_back(name.empty() ? "(empty)" : name);
    // What only the stats say (the tracer's copy and set details) matters for a name that may
    // be a copy, or one whose first event carries them: tracers name copies apart from kernels,
    // so the other kernels' stats are not searched.
    stats_matter_[n] = k == DeviceWork::kCopyUnknown || k == DeviceWork::kOther || copy_or_set_of(e) != kNotStated;
  }
  const DeviceWork kind = DeviceWork(known);
  if (!stats_matter_[n]) return kind;
  const int8_t stated = copy_or_set_of(e);
  return stated == kNotStated ? kind : DeviceWork(stated);
}

int8_t DeviceWorkClassifier::copy_or_set_of(model::EventIndex e) const {
  if (p_.events.first_stat[e] == p_.events.first_stat[e + 1] && p_.names[p_.events.name[e]].stats.count == 0)
    return kNotStated;
  if (auto d = p_.stat(e, model::kMemcpyDetails)) {
    DeviceWork c;
    if (d->type != model::StatType::kString) {
      c = copy_kind_of_text({});
    } else {
      auto [it, added] = copy_of_details_.try_emplace(d->str, 0);
      if (added) it->second = int8_t(copy_kind_of_text(p_.strings.view(d->str)));
      c = DeviceWork(it->second);
    }
    return int8_t(c == DeviceWork::kCopyUnknown ? copy_kind_of_text(p_.name(e)) : c);
  }
  if (memset_details_ != model::kNoString && p_.stat(e, memset_details_)) return int8_t(DeviceWork::kMemset);
  return kNotStated;
}

DeviceWork DeviceWorkClassifier::dma_direction(model::EventIndex e) const {
  if (direction_ == model::kNoString) return DeviceWork::kCopyUnknown;
  const auto d = p_.stat(e, direction_);
  return d ? copy_kind_of_text(p_.string_of(*d)) : DeviceWork::kCopyUnknown;
}

std::vector<std::string> DeviceWorkClassifier::warnings() const {
  if (unknown_names_.empty()) return {};
  std::string names;
  for (const auto& n : unknown_names_) names += (names.empty() ? "" : ", ") + n;
  return {"device work of unknown kind read as other (not compute): " + names};
}

// ---- Precision --------------------------------------------------------------------------

std::string_view precision_key(Precision p) {
  static constexpr std::array<std::string_view, kNumPrecisions> kKeys = {"unknown", "fp64", "fp32", "tf32",
                                                                         "bits16",  "fp8",  "fp4",  "int"};
  return kKeys[size_t(p)];
}

std::string_view precision_label(Precision p) {
  static constexpr std::array<std::string_view, kNumPrecisions> kLabels = {
      "unknown", "64-bit", "32-bit", "TF32", "16-bit (BF16/FP16)", "8-bit float", "4-bit float", "integer"};
  return kLabels[size_t(p)];
}

Precision precision_of_types(std::string_view types) {
  const std::string t = lower(types);
  // Narrowest first: an op mixing FP8 inputs with float scales is an FP8 op.
  if (has_any(t, {"float4", "e2m1", "fp4"})) return Precision::kFp4;
  if (has_any(t, {"float8", "f8e4m3", "f8e5m2", "e4m3", "e5m2", "fp8"})) return Precision::kFp8;
  if (has_any(t, {"bfloat16", "bf16[", "f16[", "half", "c10::half", "float16"})) return Precision::kBits16;
  if (t == "bf16" || t == "f16" || contains(t, "'bf16'") || contains(t, "\"bf16\"")) return Precision::kBits16;
  if (has_any(t, {"float", "f32[", "fp32"})) return contains(t, "double") && !contains(t, "float") ? Precision::kFp64
                                                                                                   : Precision::kFp32;
  if (has_any(t, {"double", "f64["})) return Precision::kFp64;
  if (has_any(t, {"int8", "uint8", "s8[", "u8[", "c10::qint8"})) return Precision::kInteger;
  return Precision::kUnknown;
}

namespace {

// Tensile's kernels ("Cijk_Alik_Bljk_BBS_BH_Bias_...", "Cijk_Ailk_Bljk_HHS_BH_...",
// "Cijk_..._SB_..."): the token after the B index part starts with the input data type,
// S (float), D (double), H (half), B (bfloat16), X (xfloat32), F8/B8 (8-bit), I8 (int8).
Precision tensile_precision(std::string_view name) {
  if (!name.starts_with("Cijk_")) return Precision::kUnknown;
  size_t pos = 5;
  for (int field = 0; field < 2 && pos != std::string_view::npos; ++field) {  // the A..., B... index parts
    pos = name.find('_', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos || pos >= name.size()) return Precision::kUnknown;
  const std::string_view type = name.substr(pos, name.find('_', pos) - pos);
  if (type.starts_with("F8") || type.starts_with("B8") || type.starts_with("F8B8") || type.starts_with("B8F8"))
    return Precision::kFp8;
  if (type.starts_with("I8")) return Precision::kInteger;
  switch (type.empty() ? '\0' : type[0]) {
    case 'H':
    case 'B': return Precision::kBits16;
    case 'S': return Precision::kFp32;
    case 'X': return Precision::kTf32;
    case 'D': return Precision::kFp64;
    default: return Precision::kUnknown;
  }
}

}  // namespace

Precision precision_of_kernel_name(std::string_view name) {
  if (Precision t = tensile_precision(name); t != Precision::kUnknown) return t;
  const LoweredName text(name);
  const std::string& n = text.low();
  if (text.holds_any(n, {"e2m1", "fp4", "nvfp4", "mxfp4", "float4"})) return Precision::kFp4;
  if (text.holds_any(n, {"e4m3", "e5m2", "fp8", "float8", "f8f6f4"})) return Precision::kFp8;
  if (text.holds_any(n, {"tf32", "xf32"})) return Precision::kTf32;
  if (text.holds_any(n, {"bf16", "bfloat16", "fp16", "half", "f16", "h884", "h1688", "h16816", "hmma", "__hip_bfloat16",
                         "__nv_bfloat16", "float16"}))
    return Precision::kBits16;
  if (text.holds_any(n, {"i8816", "imma", "int8", "_i8_", "s8s8", "u8s8"})) return Precision::kInteger;
  if (text.holds_any(n, {"s1688", "s884"})) return Precision::kTf32;
  if (text.holds_any(n, {"double", "dgemm", "fp64", "f64"})) return Precision::kFp64;
  if (text.holds_any(n, {"float", "fp32", "f32", "sgemm", "scudnn"})) return Precision::kFp32;
  return Precision::kUnknown;
}

std::string_view matrix_unit_label(MatrixUnit unit) {
  switch (unit) {
    case MatrixUnit::kTensorCores: return "Tensor Cores";
    case MatrixUnit::kMatrixCores: return "matrix cores";
    case MatrixUnit::kMxu: return "MXU";
    default: return "matrix units";
  }
}

MatrixUnit matrix_unit_of(DeviceFamily family) {
  switch (family) {
    case DeviceFamily::kNvidiaGpu: return MatrixUnit::kTensorCores;
    case DeviceFamily::kAmdGpu: return MatrixUnit::kMatrixCores;
    case DeviceFamily::kTpu: return MatrixUnit::kMxu;
    default: return MatrixUnit::kNone;
  }
}

namespace {

// Tensile's matrix-instruction tile "_MI16x16x16x1_" / "_MI32x32x8_": "MI" then digits and 'x'.
bool has_mfma_tile(std::string_view name) {
  for (size_t at = name.find("_MI"); at != std::string_view::npos; at = name.find("_MI", at + 1)) {
    size_t i = at + 3, digits = 0, xs = 0;
    for (; i < name.size() && ((name[i] >= '0' && name[i] <= '9') || name[i] == 'x'); ++i)
      name[i] == 'x' ? ++xs : ++digits;
    if (digits > 0 && xs >= 1 && (i == name.size() || name[i] == '_')) return true;
  }
  return false;
}

bool nvidia_tensor_core_name(std::string_view name, std::string_view low) {
  // cuBLAS/cuDNN (h884, s1688, 16816...), xmma and CUTLASS "tensorop" kernels, Hopper's
  // warpgroup MMA, integer MMA, Blackwell's tcgen05/UMMA, cuBLASLt's nvjet, TensorRT-LLM's
  // block-scaled bmm_Mx... GEMMs and Sm100 attention.
  static constexpr std::string_view kPatterns[] = {
      "h884",  "s884",    "h1688",    "s1688",     "hmma",     "i8816",  "16816",     "xmma",  "tensorop",
      "wgmma", "gmma_",   "imma",     "884gemm",   "1688gemm", "tcgen05", "nvjet",    "umma",  "sm90_xmma",
      "cutlass3x", "sm100", "sm90_gemm", "flash_fwd", "flash_bwd", "fmha"};
  for (std::string_view p : kPatterns)
    if (contains(low, p)) return true;
  return name.starts_with("bmm_") || contains(low, "tensor_core") || contains(low, "tensorcore");
}

}  // namespace

bool runs_on_matrix_units(std::string_view name, DeviceFamily family) {
  const std::string low = lower(name);
  switch (family) {
    case DeviceFamily::kAmdGpu:
      return has_mfma_tile(name) || contains(low, "mfma") || contains(low, "wmma") || contains(low, "xdlops") ||
             (name.starts_with("Cijk_") && contains(name, "_MI"));
    case DeviceFamily::kTpu: {
      const std::string_view op = hlo_opcode(low);
      return op.starts_with("convolution") || op.starts_with("dot") || contains(low, "convolution") ||
             (op.starts_with("fusion") && (contains(low, "dot") || contains(low, "conv")));
    }
    case DeviceFamily::kNvidiaGpu:
    default: return nvidia_tensor_core_name(name, low);
  }
}

}  // namespace mlprof::analysis
