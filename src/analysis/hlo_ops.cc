#include "analysis/hlo_ops.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <unordered_map>

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::LineKind;
using model::PlaneKind;
using model::Profile;
using model::StatValue;
using model::StringId;

std::string_view op_kind(std::string_view name);  // below

constexpr std::string_view kAsyncXlaOpsLine = "Async XLA Ops";  // XProf's async op line on TPUs
constexpr uint64_t kHbmMemorySpace = 1;  // op_metrics.proto: MEMORY_SPACE_HBM, PerformanceInfo HBM

// The stat names the tools read, as the profile's string ids (model::kNoString when absent).
struct StatIds {
  StringId hlo_op, hlo_category, hlo_module, program_id, flops, model_flops, bytes_accessed, breakdown, tf_op,
      source, source_stack, device_offset, device_duration, device_type;
  explicit StatIds(const model::StringTable& s)
      : hlo_op(s.find("hlo_op")),
        hlo_category(s.find("hlo_category")),
        hlo_module(s.find("hlo_module")),
        program_id(s.find("program_id")),
        flops(s.find("flops")),
        model_flops(s.find("model_flops")),
        bytes_accessed(s.find("bytes_accessed")),
        breakdown(s.find("memory_access_breakdown")),
        tf_op(s.find("tf_op")),
        source(s.find("source")),
        source_stack(s.find("source_stack")),
        device_offset(s.find("device_offset_ps")),
        device_duration(s.find("device_duration_ps")),
        device_type(model::kDeviceTypeString) {}
};

std::optional<StatValue> stat_of(const Profile& p, EventIndex e, StringId key) {
  if (key == model::kNoString) return std::nullopt;
  return p.stat(e, key);
}
std::string text_stat(const Profile& p, EventIndex e, StringId key) {
  auto v = stat_of(p, e, key);
  return v ? std::string(p.string_of(*v)) : std::string();
}

// A bytes stat's bytes: the importer keeps binary ones (serialized protos) as "0x" and hex
// (model/xspace/importer.cc, bytes_stat_text); printable ones as they are.
std::string binary_of(std::string_view text) {
  if (!text.starts_with("0x") || text.size() % 2 != 0) return std::string(text);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 2 - 1);
  for (size_t i = 2; i < text.size(); i += 2) {
    const int hi = nibble(text[i]), lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0) return std::string(text);
    out += char(hi * 16 + lo);
  }
  return out;
}

// A protobuf varint at `at` of `bytes`; false at the end or on a broken one.
bool read_varint(std::string_view bytes, size_t& at, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
    const uint8_t b = uint8_t(bytes[at++]);
    value |= uint64_t(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// The HBM bytes of a serialized MemoryAccessBreakdown (op_metrics.proto: repeated
// MemoryAccessed {operation_type = 1; memory_space = 2; bytes_accessed = 3} as field 1);
// nullopt when the bytes do not parse.
std::optional<double> hbm_bytes_of_breakdown(std::string_view bytes) {
  double hbm = 0;
  size_t at = 0;
  while (at < bytes.size()) {
    uint64_t key = 0, length = 0;
    if (!read_varint(bytes, at, key) || (key & 7) != 2 || !read_varint(bytes, at, length) ||
        length > bytes.size() - at)
      return std::nullopt;
    std::string_view entry = bytes.substr(at, length);
    at += length;
    if ((key >> 3) != 1) continue;
    uint64_t space = 0, amount = 0;
    for (size_t in = 0; in < entry.size();) {
      uint64_t k = 0, v = 0;
      if (!read_varint(entry, in, k) || (k & 7) != 0 || !read_varint(entry, in, v)) return std::nullopt;
      if ((k >> 3) == 2) space = v;
      if ((k >> 3) == 3) amount = v;
    }
    if (space == kHbmMemorySpace) hbm += double(amount);
  }
  return hbm;
}

// CoreDetails (op_stats.proto): global_chip_id = 5, global_core_id = 6, both varints; a
// field left out is 0 in proto3.
void read_core_details(std::string_view bytes, CorePlace& d) {
  int64_t chip = 0, core = 0;
  for (size_t at = 0; at < bytes.size();) {
    uint64_t key = 0, value = 0;
    if (!read_varint(bytes, at, key)) return;
    if ((key & 7) == 2) {  // a string (the hostname): skip it
      if (!read_varint(bytes, at, value) || value > bytes.size() - at) return;
      at += value;
      continue;
    }
    if ((key & 7) != 0 || !read_varint(bytes, at, value)) return;
    if ((key >> 3) == 5) chip = int64_t(value);
    if ((key >> 3) == 6) core = int64_t(value);
  }
  d.global_chip_id = chip;
  d.global_core_id = core;
}

// "jit_f(123)" -> 123, the program id XLA puts after a module's name; nullopt without one.
std::optional<uint64_t> program_id_of_module(std::string_view module) {
  const size_t open = module.rfind('(');
  if (open == std::string_view::npos || !module.ends_with(')')) return std::nullopt;
  uint64_t id = 0;
  const char* first = module.data() + open + 1;
  const char* last = module.data() + module.size() - 1;
  auto r = std::from_chars(first, last, id);
  if (r.ec != std::errc() || r.ptr != last) return std::nullopt;
  return id;
}

// The modules of one device: by program id, and by time for ops without one.
class ModuleFinder {
 public:
  ModuleFinder(const Profile& p, const model::Plane& plane) {
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      if (line.kind != LineKind::kXlaModules) continue;
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        std::string_view name = p.name(e);
        runs_.push_back({p.start_ps(e), p.end_ps(e), std::string(name)});
        if (auto id = program_id_of_module(name)) by_id_.emplace(*id, std::string(name));
      }
    }
    std::sort(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) { return a.begin < b.begin; });
  }
  std::string find(std::optional<uint64_t> program_id, int64_t begin_ps) const {
    if (program_id)
      if (auto it = by_id_.find(*program_id); it != by_id_.end()) return it->second;
    auto it = std::upper_bound(runs_.begin(), runs_.end(), begin_ps, [](int64_t t, const Run& r) { return t < r.begin; });
    if (it != runs_.begin() && begin_ps < std::prev(it)->end) return std::prev(it)->name;
    return program_id ? "program " + std::to_string(*program_id) : std::string();
  }

 private:
  struct Run {
    int64_t begin, end;
    std::string name;
  };
  std::vector<Run> runs_;
  std::unordered_map<uint64_t, std::string> by_id_;
};

// What a device's op events gave, to say which stats were missing.
struct Seen {
  bool category = false, flops = false, bytes = false;
};

class Collector {
 public:
  Collector(const Profile& p, HloOps& out) : p_(p), ids_(p.strings), out_(out) {}

  void add_device(uint32_t plane_index) {
    const model::Plane& plane = p_.planes[plane_index];
    const uint32_t device = uint32_t(out_.devices.size());
    HloDevice d;
    d.plane = plane_index;
    d.name = std::string(p_.strings.view(plane.name));
    d.host = std::string(p_.strings.view(p_.hosts[plane.host].name));
    d.ordinal = plane.device_ordinal == model::kNone ? device : plane.device_ordinal;
    auto type = p_.plane_stat(plane_index, ids_.device_type);
    d.device_type = type ? std::string(p_.string_of(*type)) : std::string(p_.strings.view(plane.device_type));
    const CorePlace place = core_place(p_, plane_index);
    d.global_chip_id = place.global_chip_id;
    d.global_core_id = place.global_core_id;
    const DevicePeaks peaks = device_peaks(p_, plane_index);
    d.peak_tflops = peaks.tflops;
    d.peak_hbm_gbps = peaks.hbm_gbps;
    peaks_missing_tflops_ |= d.peak_tflops <= 0;
    peaks_missing_hbm_ |= d.peak_hbm_gbps <= 0;

    const ModuleFinder modules(p_, plane);
    index_.clear();
    const size_t first_op = out_.ops.size();
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p_.lines[l];
      if (line.kind == LineKind::kXlaOps) {
        d.busy_ps += add_op_line(line, device, modules);
      } else if (p_.strings.view(line.name) == kAsyncXlaOpsLine) {
        d.async_ops += line.num_events;
      }
    }
    if (out_.ops.size() == first_op) d.busy_ps = add_gpu_kernels(plane, device, modules);
    if (out_.ops.size() > first_op) out_.devices.push_back(std::move(d));
  }

  void finish() {
    auto note = [&](bool missing, std::string stat, std::string lost) {
      if (missing) out_.missing.push_back({std::move(stat), std::move(lost)});
    };
    note(!seen_.category, "hlo_category", "ops are grouped by their name without XLA's numbering (copy.1: copy)");
    note(!seen_.flops, "flops", "FLOP rates, FLOP utilisation and operational intensity are left out");
    note(!seen_.bytes, "bytes_accessed", "memory bandwidth and operational intensity are left out");
    note(peaks_missing_tflops_, "peak_teraflops_per_second", "FLOP utilisation and the ridge point are left out");
    note(peaks_missing_hbm_, "peak_hbm_bw_gigabytes_per_second",
         "HBM bandwidth utilisation and the ridge point are left out");
  }

 private:
  int64_t time_of(EventIndex e) const {
    auto v = stat_of(p_, e, ids_.device_duration);
    return v && v->is_number() ? v->as_int() : p_.duration_ps(e);
  }

  HloOp& op_for(uint32_t device, EventIndex e, const ModuleFinder& modules) {
    const std::string_view text = p_.name(e);
    std::string name = text_stat(p_, e, ids_.hlo_op);
    if (name.empty()) {
      const model::EventName& n = p_.names[p_.events.name[e]];
      name = n.display_name != model::kEmptyString ? std::string(p_.strings.view(n.display_name))
                                                   : std::string(hlo_op_name_of_text(text));
    }
    std::optional<uint64_t> program_id;
    if (auto v = stat_of(p_, e, ids_.program_id); v && v->is_number()) program_id = v->as_uint();
    std::string program = text_stat(p_, e, ids_.hlo_module);
    if (program.empty()) program = modules.find(program_id, p_.start_ps(e));
    std::string key = program + '\n' + name;
    auto [it, added] = index_.try_emplace(std::move(key), out_.ops.size());
    if (!added) return out_.ops[it->second];
    HloOp& op = out_.ops.emplace_back();
    op.device = device;
    op.program = std::move(program);
    op.name = std::move(name);
    op.category = text_stat(p_, e, ids_.hlo_category);
    seen_.category |= !op.category.empty();
    if (op.category.empty()) op.category = std::string(op_kind(op.name));
    if (text != op.name) op.expression = std::string(text);
    if (is_async_done(op.name)) op.async_partner = std::string(async_start_of(text));
    op.provenance = text_stat(p_, e, ids_.tf_op);
    op.source = text_stat(p_, e, ids_.source);
    op.source_stack = text_stat(p_, e, ids_.source_stack);
    return op;
  }

  void add_run(HloOp& op, EventIndex e, int64_t time_ps, int64_t self_ps) {
    op.occurrences += 1;
    op.time_ps += time_ps;
    op.self_ps += self_ps;
    if (auto v = stat_of(p_, e, ids_.flops); v && v->is_number()) op.flops += v->as_double(), seen_.flops = true;
    if (auto v = stat_of(p_, e, ids_.model_flops); v && v->is_number()) op.model_flops += v->as_double();
    double bytes = 0;
    if (auto v = stat_of(p_, e, ids_.bytes_accessed); v && v->is_number()) {
      bytes = v->as_double();
      seen_.bytes = true;
    }
    op.bytes_accessed += bytes;
    std::optional<double> hbm;
    if (auto v = stat_of(p_, e, ids_.breakdown); v && v->type == model::StatType::kString)
      hbm = hbm_bytes_of_breakdown(binary_of(p_.string_of(*v)));
    op.hbm_bytes += hbm.value_or(bytes);
  }

  // The ops of an "XLA Ops" line; returns the line's busy time (its outermost ops' times).
  // Nesting is by device timespans, as XProf's AncestorStack over GetDeviceEventTimespan: on
  // TPUs the events' own offsets are the host's view, where an op and the ops after it can
  // share one start (the model's nesting, by those offsets, would put them inside it).
  int64_t add_op_line(const model::Line& line, uint32_t device, const ModuleFinder& modules) {
    struct Span {
      int64_t begin, time;
      EventIndex e;
      int64_t end() const { return begin + time; }
    };
    std::vector<Span> spans(line.num_events);
    for (uint32_t i = 0; i < line.num_events; ++i) {
      const EventIndex e = line.first_event + i;
      auto offset = stat_of(p_, e, ids_.device_offset);
      spans[i] = {offset && offset->is_number() ? offset->as_int() : p_.start_ps(e), time_of(e), e};
    }
    std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.time > b.time;
    });
    std::vector<int64_t> self(spans.size());
    std::vector<size_t> open;  // enclosing spans, innermost last
    int64_t busy = 0;
    for (size_t i = 0; i < spans.size(); ++i) {
      const Span& s = spans[i];
      while (!open.empty() && !(s.begin >= spans[open.back()].begin && s.end() <= spans[open.back()].end()))
        open.pop_back();
      if (open.empty())
        busy += s.time;
      else
        self[open.back()] -= s.time;
      self[i] += s.time;
      open.push_back(i);
    }
    // Starts not yet done, by op, in device order: a done takes its start's oldest run.
    std::unordered_map<size_t, std::vector<int64_t>> open_starts;
    for (size_t i = 0; i < spans.size(); ++i) {
      HloOp& op = op_for(device, spans[i].e, modules);
      add_run(op, spans[i].e, spans[i].time, std::max<int64_t>(0, self[i]));
      const size_t index = size_t(&op - out_.ops.data());
      if (is_async_start(op.name)) {
        open_starts[index].push_back(spans[i].begin);
      } else if (!op.async_partner.empty()) {
        auto start = index_.find(op.program + '\n' + op.async_partner);
        if (start == index_.end()) continue;
        std::vector<int64_t>& begins = open_starts[start->second];
        if (begins.empty()) continue;
        const int64_t span = spans[i].end() - begins.front();
        begins.erase(begins.begin());
        HloOp& start_op = out_.ops[start->second];
        start_op.async_partner = op.name;
        start_op.async_start = true;
        for (HloOp* half : {&start_op, &op}) half->async_pairs += 1, half->async_span_ps += span;
      }
    }
    return busy;
  }

  // A GPU's kernels that name their HLO op; returns the time any of them ran.
  int64_t add_gpu_kernels(const model::Plane& plane, uint32_t device, const ModuleFinder& modules) {
    if (ids_.hlo_op == model::kNoString) return 0;
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p_.lines[l];
      if (line.kind != LineKind::kStream) continue;
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        if (!stat_of(p_, e, ids_.hlo_op)) continue;
        add_run(op_for(device, e, modules), e, p_.duration_ps(e), p_.duration_ps(e));
        spans.emplace_back(p_.start_ps(e), p_.end_ps(e));
      }
    }
    std::sort(spans.begin(), spans.end());
    int64_t busy = 0, end = INT64_MIN;
    for (auto [b, e] : spans) {
      if (e <= end) continue;
      busy += e - std::max(b, end);
      end = e;
    }
    return busy;
  }

  const Profile& p_;
  const StatIds ids_;
  HloOps& out_;
  std::unordered_map<std::string, size_t> index_;  // "program\nname" -> op, for one device
  Seen seen_;
  bool peaks_missing_tflops_ = false, peaks_missing_hbm_ = false;
};

}  // namespace

CorePlace core_place(const Profile& p, uint32_t plane) {
  CorePlace place;
  const StringId key = p.strings.find("core_details");
  if (key == model::kNoString) return place;
  if (auto v = p.plane_stat(plane, key); v && v->type == model::StatType::kString)
    read_core_details(binary_of(p.string_of(*v)), place);
  return place;
}

DevicePeaks device_peaks(const Profile& p, uint32_t plane) {
  auto peak = [&](std::string_view name) {
    const StringId key = p.strings.find(name);
    if (key == model::kNoString) return 0.0;
    auto v = p.plane_stat(plane, key);
    return v && v->is_number() ? v->as_double() : 0.0;
  };
  return {peak("peak_teraflops_per_second"), peak("peak_hbm_bw_gigabytes_per_second")};
}

std::string_view hlo_op_name_of_text(std::string_view text) {
  const size_t space = text.find(' ');
  std::string_view name = space == std::string_view::npos ? text : text.substr(0, space);
  if (name.starts_with('%')) name.remove_prefix(1);
  return name.empty() ? text : name;
}

namespace {
// "copy-start.2" -> "copy-start": the op's kind without XLA's numbering.
std::string_view op_kind(std::string_view name) {
  const size_t dot = name.find('.');
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}
}  // namespace

bool is_async_start(std::string_view op_name) {
  const std::string_view kind = op_kind(op_name);
  return kind.ends_with("-start") || kind == "send" || kind == "recv";
}

bool is_async_done(std::string_view op_name) { return op_kind(op_name).ends_with("-done"); }

std::string_view async_start_of(std::string_view done_text) {
  const size_t open = done_text.find('(', done_text.find(" = "));
  const size_t at = done_text.rfind('%');
  if (open == std::string_view::npos || at == std::string_view::npos || at < open) return {};
  size_t end = at + 1;
  while (end < done_text.size() && is_name_char(done_text[end])) ++end;
  return done_text.substr(at + 1, end - at - 1);
}

model::StringId xla_kernel_op(const Profile& p, EventIndex kernel, StringId tf_op) {
  if (p.strings.view(tf_op) != "XlaModule:") return tf_op;
  const StringId hlo_op = p.strings.find("hlo_op");
  if (hlo_op == model::kNoString) return tf_op;
  auto v = p.stat(kernel, hlo_op);
  return v && v->type == model::StatType::kString ? v->str : tf_op;
}

int64_t rate_time_ps(const HloOp& op) { return op.async_pairs > 0 ? op.async_span_ps : op.time_ps; }

std::string HloOps::common_device_type() const {
  std::string type;
  for (const HloDevice& d : devices) {
    if (!type.empty() && type != d.device_type) return "";
    type = d.device_type;
  }
  return type;
}

HloOps collect_hlo_ops(const Profile& p) {
  HloOps out;
  Collector collector(p, out);
  for (const model::Host& host : p.hosts)
    for (uint32_t plane = host.first_plane; plane < host.first_plane + host.num_planes; ++plane)
      if (p.planes[plane].kind == PlaneKind::kDevice) collector.add_device(plane);
  if (!out.empty()) collector.finish();
  for (const HloOp& op : out.ops) out.async_halves += op.async_pairs > 0;
  return out;
}

bool is_xla_op_line(const Profile& p, const model::Line& line) {
  return line.kind == LineKind::kXlaOps || p.strings.view(line.name) == kAsyncXlaOpsLine;
}

std::string_view timeline_title(const Profile& p, const model::Line& line, EventIndex e) {
  const std::string_view name = p.name(e);
  if (!is_xla_op_line(p, line)) return name;
  const std::string_view op = hlo_op_name_of_text(name);
  return op.empty() ? name : op;
}

bool has_hlo_ops(const Profile& p) {
  for (const model::Line& line : p.lines)
    if (line.kind == LineKind::kXlaOps && line.num_events > 0 && p.planes[line.plane].kind == PlaneKind::kDevice)
      return true;
  const StringId hlo_op = p.strings.find("hlo_op");
  if (hlo_op == model::kNoString) return false;
  for (const model::Line& line : p.lines) {
    if (line.kind != LineKind::kStream || p.planes[line.plane].kind != PlaneKind::kDevice) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (p.stat(e, hlo_op)) return true;
  }
  return false;
}

double flop_utilisation(double flops, int64_t time_ps, double peak_tflops) {
  if (time_ps <= 0 || peak_tflops <= 0) return 0;
  return flops / (double(time_ps) * 1e-12 * peak_tflops * 1e12);
}

double hbm_utilisation(double hbm_bytes, int64_t time_ps, double peak_hbm_gbps) {
  if (time_ps <= 0 || peak_hbm_gbps <= 0) return 0;
  return hbm_bytes / (double(time_ps) * 1e-12 * peak_hbm_gbps * 1e9);
}

double ridge_point(double peak_tflops, double peak_hbm_gbps) {
  return peak_tflops > 0 && peak_hbm_gbps > 0 ? peak_tflops * 1e3 / peak_hbm_gbps : 0;
}

double roof_gflops(double hbm_intensity, double peak_tflops, double peak_hbm_gbps) {
  if (peak_tflops <= 0 || peak_hbm_gbps <= 0 || hbm_intensity <= 0) return 0;
  return std::min(peak_tflops * 1e3, hbm_intensity * peak_hbm_gbps);
}

std::string_view bound_by(double flop_util, double hbm_util) {
  if (flop_util <= 0 && hbm_util <= 0) return "Unknown";
  return hbm_util > flop_util ? "HBM" : "Compute";
}

std::string missing_stat_line(const MissingStat& m) {
  return "The file has no `" + m.stat + "` stat: " + m.lost + ".";
}

}  // namespace mlprof::analysis
