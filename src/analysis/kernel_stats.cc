#include "analysis/kernel_stats.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "analysis/csv.h"
#include "analysis/device_precision.h"
#include "analysis/device_work.h"
#include "analysis/event_kinds.h"
#include "analysis/hlo_ops.h"
#include "analysis/launch_ops.h"
#include "analysis/units.h"
#include "analysis/whole_profile_window.h"
#include "model/string_contains.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;
using model::LineKind;
using model::PlaneKind;
using model::contains;
using model::Profile;
using model::StringId;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

int64_t to_int(std::string_view text) {
  int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// "80,1,1"
std::array<int64_t, 3> to_dims(std::string_view text) {
  std::array<int64_t, 3> dims{0, 0, 0};
  for (size_t i = 0; i < 3 && !text.empty(); ++i) {
    const size_t comma = text.find(',');
    dims[i] = to_int(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return dims;
}

// What a row is keyed by: the kernel, its op and its launch configuration.
struct RowKey {
  StringId name, op;
  std::array<int64_t, 3> grid, block;
  int64_t registers, static_shared, dynamic_shared;
  bool operator==(const RowKey&) const = default;
};

struct RowKeyHash {
  size_t operator()(const RowKey& k) const {
    uint64_t h = uint64_t(k.name) * 0x9E3779B97F4A7C15ull ^ uint64_t(k.op) * 0xC2B2AE3D27D4EB4Full;
    for (int64_t v : {k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.registers,
                      k.static_shared, k.dynamic_shared})
      h = (h ^ uint64_t(v)) * 0x100000001B3ull;
    return size_t(h);
  }
};

class KernelCollector {
 public:
  explicit KernelCollector(const Profile& p)
      : p_(p), launch_ops_(p), work_(p), precision_(p), level0_(p.strings.find("level 0")) {}

  void add_line(const model::Line& line) {
    family_ = plane_device_family(p_, line.plane);
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const DeviceWork work = work_.of(e);
      // Kernels: compute and collectives (NCCL's are kernels), not copies, sets or DMA.
      if (work == DeviceWork::kCompute || work == DeviceWork::kCollective || work == DeviceWork::kSync ||
          work == DeviceWork::kOther)
        add(e, work);
    }
  }

  KernelStatsTable finish() {
    std::vector<KernelStatsRow> rows;
    rows.reserve(rows_.size());
    for (auto& [key, row] : rows_) rows.push_back(std::move(row));
    return table_of(std::move(rows));
  }

 private:
  StringId op_of(EventIndex e, EventIndex launch_op) {
    if (auto op = p_.stat(e, model::kTfOp); op && op->type == model::StatType::kString)
      return xla_kernel_op(p_, e, op->str);
    if (level0_ != model::kNoString)
      if (auto op = p_.stat(e, level0_); op && op->type == model::StatType::kString) return op->str;
    return launch_op == kNone ? model::kEmptyString : p_.name_id(launch_op);
  }

  const KernelLaunchConfig& config_of(EventIndex e) {
    auto details = p_.stat(e, model::kKernelDetails);
    const StringId id = details && details->type == model::StatType::kString ? details->str : model::kEmptyString;
    auto [it, added] = configs_.try_emplace(id);
    if (added && id != model::kEmptyString) it->second = parse_kernel_details(p_.strings.view(id));
    return it->second;
  }

  void add(EventIndex e, DeviceWork work) {
    const KernelLaunchConfig& c = config_of(e);
    const EventIndex launch_op = launch_ops_.op_of(e);
    const RowKey key{p_.name_id(e), op_of(e, launch_op), c.grid, c.block, c.registers_per_thread, c.static_shared_bytes,
                     c.dynamic_shared_bytes};
    auto [it, added] = rows_.try_emplace(key);
    KernelStatsRow& row = it->second;
    const int64_t d = p_.duration_ps(e);
    if (added) {
      row.kernel_name = std::string(p_.strings.view(key.name));
      row.op_name = std::string(p_.strings.view(key.op));
      row.config = c;
      row.min_ps = row.max_ps = d;
      row.work = work;
      row.precision = precision_.of(e, launch_op);
      if (work == DeviceWork::kCompute && runs_on_matrix_units(row.kernel_name, family_))
        row.matrix_unit = matrix_unit_of(family_);
      row.uses_tensor_cores = row.matrix_unit != MatrixUnit::kNone;
      row.op_tensor_core_eligible = op_is_tensor_core_eligible(row.op_name);
    }
    ++row.occurrences;
    row.total_ps += d;
    row.min_ps = std::min(row.min_ps, d);
    row.max_ps = std::max(row.max_ps, d);
    row.config.occupancy_pct = std::max(row.config.occupancy_pct, c.occupancy_pct);
  }

  const Profile& p_;
  LaunchOps launch_ops_;
  DeviceWorkClassifier work_;
  WorkPrecision precision_;
  const StringId level0_;          // TensorFlow's annotation of the op, "level 0"
  DeviceFamily family_ = DeviceFamily::kNone;  // of the line being read
  std::unordered_map<StringId, KernelLaunchConfig> configs_;
  std::unordered_map<RowKey, KernelStatsRow, RowKeyHash> rows_;
};

// The key of a row as text: what joins rows of hosts read apart.
auto join_key(const KernelStatsRow& r) {
  const KernelLaunchConfig& c = r.config;
  return std::tie(r.kernel_name, r.op_name, c.grid, c.block, c.registers_per_thread, c.static_shared_bytes,
                  c.dynamic_shared_bytes);
}

std::string dims_text(const std::array<int64_t, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

}  // namespace

KernelStatsTable table_of(std::vector<KernelStatsRow> rows) {
  KernelStatsTable t;
  t.rows = std::move(rows);
  // Longest first; ties by name, op, then configuration, so that the order never depends on
  // how the rows were gathered.
  std::sort(t.rows.begin(), t.rows.end(), [](const KernelStatsRow& a, const KernelStatsRow& b) {
    if (a.total_ps != b.total_ps) return a.total_ps > b.total_ps;
    return join_key(a) < join_key(b);
  });
  for (const KernelStatsRow& r : t.rows) {
    t.launches += r.occurrences;
    t.total_ps += r.total_ps;
    if (r.uses_tensor_cores) t.tensor_core_ps += r.total_ps;
    if (r.work == DeviceWork::kCompute) t.precision_ps[size_t(r.precision)] += r.total_ps;
    if (r.matrix_unit != MatrixUnit::kNone) t.matrix_unit = r.matrix_unit;
    if (r.op_tensor_core_eligible) t.eligible_ps += r.total_ps;
    if (r.op_tensor_core_eligible && !r.uses_tensor_cores) t.eligible_without_tensor_cores_ps += r.total_ps;
  }
  return t;
}

void KernelStatsJoin::add(const KernelStatsTable& part) {
  hosts_ += part.hosts;
  for (const KernelStatsRow& r : part.rows) {
    auto [it, added] = rows_.try_emplace(join_key(r), r);
    if (added) continue;
    KernelStatsRow& row = it->second;
    row.occurrences += r.occurrences;
    row.total_ps += r.total_ps;
    row.min_ps = std::min(row.min_ps, r.min_ps);
    row.max_ps = std::max(row.max_ps, r.max_ps);
    row.config.occupancy_pct = std::max(row.config.occupancy_pct, r.config.occupancy_pct);
  }
}

KernelStatsTable KernelStatsJoin::finish() const {
  std::vector<KernelStatsRow> rows;
  rows.reserve(rows_.size());
  for (const auto& [key, row] : rows_) rows.push_back(row);
  KernelStatsTable t = table_of(std::move(rows));
  t.hosts = hosts_;
  return t;
}

KernelLaunchConfig parse_kernel_details(std::string_view details) {
  KernelLaunchConfig c;
  while (!details.empty()) {
    const size_t space = details.find(' ');
    const std::string_view field = details.substr(0, space);
    details = space == std::string_view::npos ? std::string_view() : details.substr(space + 1);
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = field.substr(0, colon), value = field.substr(colon + 1);
    if (key == "regs") c.registers_per_thread = to_int(value);
    else if (key == "static_shared" || key == "shm") c.static_shared_bytes = to_int(value);
    else if (key == "dynamic_shared") c.dynamic_shared_bytes = to_int(value);
    else if (key == "grid") c.grid = to_dims(value);
    else if (key == "block") c.block = to_dims(value);
    else if (key == "occ_pct") {
      double v = -1;
      std::from_chars(value.data(), value.data() + value.size(), v);
      c.occupancy_pct = v;
    }
  }
  return c;
}

bool kernel_uses_tensor_cores(std::string_view name) { return runs_on_matrix_units(name, DeviceFamily::kNvidiaGpu); }

bool op_is_tensor_core_eligible(std::string_view op_name) {
  // The op's type, lower case, without a framework's namespace ("aten::", "cudnn_", "_").
  std::string type = lower(op_type_of(op_name));
  if (const size_t ns = type.rfind("::"); ns != std::string::npos) type = type.substr(ns + 2);
  while (!type.empty() && type.front() == '_') type.erase(0, 1);
  if (type.starts_with("cudnn_")) type.erase(0, 6);
  if (type.empty()) return false;
  const bool convolution = (type.starts_with("conv") && !type.starts_with("convert")) || contains(type, "convolution");
  const bool matrix_product = type == "mm" || type == "linear" || type.ends_with("addmm") || type.ends_with("bmm") ||
                              contains(type, "matmul") || contains(type, "einsum") || contains(type, "gemm");
  const bool recurrent = contains(type, "lstm") || contains(type, "gru") || contains(type, "rnn");
  return convolution || matrix_product || recurrent;
}

KernelStatsTable compute_kernel_stats(const Profile& p) {
  KernelCollector collector(p);
  for (const model::Line& line : p.lines)
    if (line.kind == LineKind::kStream && p.planes[line.plane].kind == PlaneKind::kDevice) collector.add_line(line);
  KernelStatsTable t = collector.finish();
  t.hosts = p.hosts.size();
  return t;
}

namespace {

// Each precision's share of the compute kernels' time.
nlohmann::json precision_json(const KernelStatsTable& t) {
  int64_t compute = 0;
  for (int64_t ps : t.precision_ps) compute += ps;
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < kNumPrecisions; ++i)
    if (t.precision_ps[i] > 0) j[std::string(precision_key(Precision(i)))] = 100.0 * double(t.precision_ps[i]) / double(compute);
  return j;
}

}  // namespace

nlohmann::json to_json(const KernelStatsTable& t) {
  auto pct = [&](int64_t ps) { return t.total_ps > 0 ? 100.0 * double(ps) / double(t.total_ps) : 0.0; };
  nlohmann::json rows = nlohmann::json::array();
  size_t rank = 0;
  for (const KernelStatsRow& r : t.rows) {
    rows.push_back({
        {"rank", ++rank},
        {"kernel_name", r.kernel_name},
        {"op_name", r.op_name},
        {"grid", r.config.grid},
        {"block", r.config.block},
        {"registers_per_thread", r.config.registers_per_thread},
        {"static_shared_memory_bytes", r.config.static_shared_bytes},
        {"dynamic_shared_memory_bytes", r.config.dynamic_shared_bytes},
        {"occupancy_pct", r.config.occupancy_pct >= 0 ? nlohmann::json(r.config.occupancy_pct) : nlohmann::json()},
        {"occurrences", r.occurrences},
        {"total_duration_us", us(r.total_ps)},
        {"avg_duration_us", us(r.avg_ps())},
        {"min_duration_us", us(r.min_ps)},
        {"max_duration_us", us(r.max_ps)},
        {"total_time_pct", pct(r.total_ps)},
        {"uses_tensor_cores", r.uses_tensor_cores},
        {"matrix_unit", r.matrix_unit == MatrixUnit::kNone ? nlohmann::json() : nlohmann::json(matrix_unit_label(r.matrix_unit))},
        {"work", device_work_key(r.work)},
        {"precision", precision_key(r.precision)},
        {"op_is_tensor_core_eligible", r.op_tensor_core_eligible},
    });
  }
  return {
      {"summary",
       {{"kernel_launches", t.launches},
        {"distinct_kernels", t.rows.size()},
        {"total_kernel_time_ms", ms(t.total_ps)},
        {"tensor_core_time_pct", pct(t.tensor_core_ps)},
        {"tensor_core_eligible_time_pct", pct(t.eligible_ps)},
        {"eligible_without_tensor_cores_time_pct", pct(t.eligible_without_tensor_cores_ps)},
        {"matrix_units", t.matrix_unit == MatrixUnit::kNone ? nlohmann::json() : nlohmann::json(matrix_unit_label(t.matrix_unit))},
        {"precision_time_pct", precision_json(t)},
        {"window", whole_profile_window(t.hosts)}}},
      {"kernels", std::move(rows)},
  };
}

std::string to_csv(const KernelStatsTable& t) {
  std::string out;
  append_csv_row(out, {"rank", "kernel_name", "op_name", "grid", "block", "registers_per_thread",
                       "static_shared_memory_bytes", "dynamic_shared_memory_bytes", "occupancy_pct", "occurrences",
                       "total_duration_us", "avg_duration_us", "min_duration_us", "max_duration_us", "total_time_pct",
                       "uses_tensor_cores", "op_is_tensor_core_eligible", "work", "precision"});
  size_t rank = 0;
  for (const KernelStatsRow& r : t.rows) {
    append_csv_row(out, {std::to_string(++rank), r.kernel_name, r.op_name, dims_text(r.config.grid),
                         dims_text(r.config.block), std::to_string(r.config.registers_per_thread),
                         std::to_string(r.config.static_shared_bytes), std::to_string(r.config.dynamic_shared_bytes),
                         r.config.occupancy_pct >= 0 ? csv_number(r.config.occupancy_pct) : "",
                         std::to_string(r.occurrences), csv_number(us(r.total_ps)), csv_number(us(r.avg_ps())),
                         csv_number(us(r.min_ps)), csv_number(us(r.max_ps)),
                         csv_number(t.total_ps > 0 ? 100.0 * double(r.total_ps) / double(t.total_ps) : 0),
                         r.uses_tensor_cores ? "true" : "false", r.op_tensor_core_eligible ? "true" : "false",
                         std::string(device_work_key(r.work)), std::string(precision_key(r.precision))});
  }
  return out;
}

}  // namespace mlprof::analysis
