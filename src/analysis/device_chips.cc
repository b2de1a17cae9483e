#include "analysis/device_chips.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/csv.h"
#include "analysis/hlo_ops.h"
#include "analysis/interval_union.h"

namespace mlprof::analysis {
namespace {

// XLA's collective instructions, by category or name (HLO opcodes: all-reduce-start is a half).
bool is_collective(const HloOp& op) {
  for (std::string_view text : {std::string_view(op.category), std::string_view(op.name)})
    for (std::string_view kind : {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
                                  "send", "recv", "collective"})
      if (text.starts_with(kind)) return true;
  return false;
}

struct ModuleRuns {
  uint64_t runs = 0;
  int64_t time_ps = 0;
};

// The runs of the plane's "XLA Modules" line, by module name.
std::map<std::string, ModuleRuns> module_runs_of(const model::Profile& p, uint32_t plane_index) {
  std::map<std::string, ModuleRuns> out;
  const model::Plane& plane = p.planes[plane_index];
  for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
    const model::Line& line = p.lines[l];
    if (line.kind != model::LineKind::kXlaModules) continue;
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      ModuleRuns& m = out[std::string(p.name(e))];
      ++m.runs;
      m.time_ps += p.duration_ps(e);
    }
  }
  return out;
}

// The times the outermost ops of the planes' "XLA Ops" lines ran, merged: when any core of a
// chip ran an op.
int64_t busy_union(const model::Profile& p, const std::vector<uint32_t>& planes) {
  std::vector<TimeInterval> ran;
  for (uint32_t plane_index : planes) {
    const model::Plane& plane = p.planes[plane_index];
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      if (line.kind != model::LineKind::kXlaOps) continue;
      for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
        if (p.events.parent[e] == model::kNone) ran.push_back({p.start_ps(e), p.end_ps(e)});
    }
  }
  return union_length(ran);
}

void mark_extremes(DeviceChips& out) {
  out.busiest = out.least_busy = -1;
  for (size_t r = 0; r < out.chips.size(); ++r) {
    const int64_t busy = out.chips[r].busy_ps;
    if (out.busiest < 0 || busy > out.chips[size_t(out.busiest)].busy_ps) out.busiest = int(r);
    if (out.least_busy < 0 || busy < out.chips[size_t(out.least_busy)].busy_ps) out.least_busy = int(r);
  }
}

}  // namespace

DeviceChips compute_device_chips(const model::Profile& p) {
  DeviceChips out;
  if (!has_hlo_ops(p)) return out;
  const HloOps ops = collect_hlo_ops(p);
  if (ops.devices.empty()) return out;

  // Cores of one chip (same host, same global chip id) share a row; a device without a chip id
  // is a chip of its own.
  std::map<std::tuple<std::string, int64_t, uint32_t>, size_t> row_of;
  std::vector<size_t> row_of_device(ops.devices.size());
  std::vector<std::map<std::string, ModuleRuns>> modules;
  std::vector<std::vector<uint32_t>> planes_of_row;
  std::vector<double> flops, hbm_bytes;
  for (size_t d = 0; d < ops.devices.size(); ++d) {
    const HloDevice& device = ops.devices[d];
    const auto key = std::make_tuple(device.host, device.global_chip_id,
                                     device.global_chip_id < 0 ? device.plane : uint32_t(0));
    auto [it, added] = row_of.emplace(key, out.chips.size());
    if (added) {
      ChipRow row;
      row.host = device.host;
      row.device = device.name;
      row.model = device.device_type;
      row.global_chip_id = device.global_chip_id;
      row.peak_tflops = device.peak_tflops;
      row.peak_hbm_gbps = device.peak_hbm_gbps;
      out.chips.push_back(std::move(row));
      modules.emplace_back();
      planes_of_row.emplace_back();
      flops.push_back(0);
      hbm_bytes.push_back(0);
    }
    const size_t r = it->second;
    row_of_device[d] = r;
    ChipRow& row = out.chips[r];
    ++row.cores;
    if (row.cores > 1) row.core_devices += ", ";
    row.core_devices += device.name;
    planes_of_row[r].push_back(device.plane);
    row.core_busy_ps += device.busy_ps;
    for (auto& [name, runs] : module_runs_of(p, device.plane)) {
      modules[r][name].runs += runs.runs;
      modules[r][name].time_ps += runs.time_ps;
    }
  }
  // Self times of a device's ops sum to its busy time (hlo_ops.h): split them by kind.
  for (const HloOp& op : ops.ops) {
    const size_t r = row_of_device[op.device];
    ChipRow& row = out.chips[r];
    if (is_collective(op)) row.collective_ps += op.self_ps;
    else if (!op.async_partner.empty() || is_async_start(op.name) || is_async_done(op.name)) row.async_copy_ps += op.self_ps;
    else row.compute_ps += op.self_ps;
    flops[r] += op.flops;
    hbm_bytes[r] += op.hbm_bytes;
  }
  for (size_t r = 0; r < out.chips.size(); ++r) {
    ChipRow& row = out.chips[r];
    // A chip of several cores (a megacore chip) is busy while any of them runs an op: XProf
    // unites its cores' duty cycles (DutyCycleCombiner::CombineCore, called per core with its
    // chip's id in ConvertXSpaceToOpStats, xprof/convert/xplane_to_op_stats.cc).
    row.busy_ps = row.cores > 1 ? busy_union(p, planes_of_row[r]) : row.core_busy_ps;
    // What the ops' self times leave of the cores' time (none when the lines nest as expected).
    row.compute_ps = std::max<int64_t>(0, row.core_busy_ps - row.collective_ps - row.async_copy_ps);
    for (const auto& [name, runs] : modules[r]) {
      row.module_runs += runs.runs;
      row.module_time_ps += runs.time_ps;
      if (runs.runs > row.main_module_runs) {
        row.main_module = name;
        row.main_module_runs = runs.runs;
        row.main_module_time_ps = runs.time_ps;
      }
    }
    // A plane's peaks are its core's: a chip of several cores has their sum (XProf doubles every
    // capacity for megacore: the note in RooflineModel's record, op_metrics_to_record.h).
    row.flop_util_pct = 100 * flop_utilisation(flops[r], row.busy_ps, row.peak_tflops * row.cores);
    row.hbm_util_pct = 100 * hbm_utilisation(hbm_bytes[r], row.busy_ps, row.peak_hbm_gbps * row.cores);
  }
  mark_extremes(out);
  // What the file lacks: the utilisations' stats (hlo_ops.h), the chips' places, their programs.
  for (const MissingStat& m : ops.missing)
    if (m.stat != "hlo_category") out.missing.push_back(missing_stat_line(m));
  if (std::any_of(ops.devices.begin(), ops.devices.end(), [](const HloDevice& d) { return d.global_chip_id < 0; }))
    out.missing.push_back(missing_stat_line({"core_details", "each core is shown as a chip of its own"}));
  if (std::any_of(out.chips.begin(), out.chips.end(), [](const ChipRow& c) { return c.module_runs == 0; }))
    out.missing.push_back("The file has no \"XLA Modules\" line on some devices: they have no steps of their own.");
  return out;
}

void join_device_chips(DeviceChips&& part, DeviceChips* into) {
  for (ChipRow& row : part.chips) into->chips.push_back(std::move(row));
  for (std::string& line : part.missing)
    if (std::find(into->missing.begin(), into->missing.end(), line) == into->missing.end())
      into->missing.push_back(std::move(line));
  mark_extremes(*into);
}

// Async copies taking this share of busy time on every chip make host offloading the chips' work.
constexpr double kHostOffloadShare = 0.5;

std::string host_offload_advice(const DeviceChips& chips) {
  if (!chips.on_tpu()) return "";
  double least = 1;
  for (const ChipRow& c : chips.chips) least = std::min(least, c.core_busy_ps > 0 ? double(c.async_copy_ps) / double(c.core_busy_ps) : 0.0);
  if (least < kHostOffloadShare) return "";
  return fmt::format("Host offloading: {:.1f}% or more of each chip's busy time waits for async copies "
                     "(copy-start/copy-done) between host memory and HBM. Keep the offloaded arrays in HBM where "
                     "they fit, or start the copies earlier so that they overlap compute.",
                     100 * least);
}

namespace {

// A chip's row as named fields, in the order of the CSV's columns: the one list JSON and CSV
// both write.
std::vector<std::pair<const char*, nlohmann::json>> chip_fields(const ChipRow& c) {
  const double main_avg_ms = c.main_module_runs ? double(c.main_module_time_ps) / 1e9 / double(c.main_module_runs) : 0;
  return {{"host", c.host},
          {"device", c.device},
          {"model", c.model},
          {"global_chip_id", c.global_chip_id},
          {"cores", c.cores},
          {"core_devices", c.core_devices},
          {"module_runs", c.module_runs},
          {"module_time_ms", double(c.module_time_ps) / 1e9},
          {"main_module", c.main_module},
          {"main_module_runs", c.main_module_runs},
          {"main_module_avg_ms", main_avg_ms},
          {"busy_ms", double(c.busy_ps) / 1e9},
          {"core_busy_ms", double(c.core_busy_ps) / 1e9},
          {"compute_ms", double(c.compute_ps) / 1e9},
          {"collective_ms", double(c.collective_ps) / 1e9},
          {"async_copy_ms", double(c.async_copy_ps) / 1e9},
          {"flop_utilisation_pct", c.flop_util_pct},
          {"hbm_bandwidth_utilisation_pct", c.hbm_util_pct},
          {"peak_teraflops_per_second", c.peak_tflops},
          {"peak_hbm_gigabytes_per_second", c.peak_hbm_gbps}};
}

std::string csv_field(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return csv_number(v.get<double>());
  return v.dump();
}

}  // namespace

nlohmann::json to_json(const DeviceChips& chips) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ChipRow& c : chips.chips) {
    nlohmann::json row = nlohmann::json::object();
    for (auto& [name, value] : chip_fields(c)) row[name] = std::move(value);
    rows.push_back(std::move(row));
  }
  return {{"figures", "per chip: no figure is summed over chips. A chip of several TensorCores (megacore) is one "
                      "row: busy_ms is the time any of its cores ran an op; core_busy_ms and its split (compute, "
                      "collective, async copy) are summed over its cores; peaks are its cores' together"},
          {"module_runs", "the chip's XLA program runs: its steps where the host marks none"},
          {"chips", rows},
          {"missing_stats", chips.missing},
          {"busiest", chips.busiest},
          {"least_busy", chips.least_busy}};
}

std::string to_csv(const DeviceChips& chips) {
  std::string out;
  std::vector<std::string> header;
  for (const auto& [name, value] : chip_fields(ChipRow{})) header.push_back(name);
  append_csv_row(out, header);
  for (const ChipRow& c : chips.chips) {
    std::vector<std::string> row;
    for (const auto& [name, value] : chip_fields(c)) row.push_back(csv_field(value));
    append_csv_row(out, row);
  }
  return out;
}

}  // namespace mlprof::analysis
