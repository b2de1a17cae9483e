#include "analysis/hlo_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/csv.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double per_second(double amount, int64_t ps) { return ps > 0 ? amount / (double(ps) * 1e-12) : 0; }

}  // namespace

HloStats compute_hlo_stats(const HloOps& ops, std::optional<uint32_t> device) {
  HloStats out;
  for (const MissingStat& m : ops.missing) out.notes.push_back(missing_stat_line(m));
  if (ops.async_halves > 0)
    out.notes.push_back(fmt::format("{} ops are halves of async pairs: their rates are over the pairs' spans, from "
                                    "each start to its done, not over the half's own time as in XProf.",
                                    ops.async_halves));
  // Where the table differs from XProf's on purpose (ConvertOpStatsToHloStats).
  if (!ops.empty())
    out.notes.push_back("Self time shares are of the devices' busy time, the time ops ran: XProf's are of all the "
                        "time, its device idle time included.");
  std::vector<bool> chosen(ops.devices.size(), false);
  for (size_t d = 0; d < ops.devices.size(); ++d) {
    const HloDevice& dev = ops.devices[d];
    if (device && dev.ordinal != *device) continue;
    chosen[d] = true;
    if (out.num_devices == 0) {
      out.device_type = dev.device_type;
      out.peak_tflops = dev.peak_tflops;
      out.peak_hbm_gbps = dev.peak_hbm_gbps;
      out.devices = dev.name;
    }
    if (dev.device_type != out.device_type) out.device_type.clear();
    out.peak_tflops = std::min(out.peak_tflops, dev.peak_tflops);
    out.peak_hbm_gbps = std::min(out.peak_hbm_gbps, dev.peak_hbm_gbps);
    out.busy_ps += dev.busy_ps;
    ++out.num_devices;
  }
  if (out.num_devices > 1)
    out.devices = fmt::format("all {} {} (summed over {})", out.num_devices,
                              out.device_type.starts_with("TPU") ? "chips" : "devices", out.num_devices);

  std::map<std::pair<std::string, std::string>, HloStatsRow> by_op;
  for (const HloOp& op : ops.ops) {
    if (!chosen[op.device]) continue;
    HloStatsRow& r = by_op[{op.program, op.name}];
    if (r.occurrences == 0) {
      r.program = op.program;
      r.name = op.name;
      r.category = op.category;
      r.expression = op.expression;
      r.provenance = op.provenance;
      r.source = op.source;
      r.source_stack = op.source_stack;
      r.async_partner = op.async_partner;
    }
    r.rate_ps += rate_time_ps(op);
    r.occurrences += op.occurrences;
    r.total_ps += op.time_ps;
    r.self_ps += op.self_ps;
    r.flops += op.flops;
    r.model_flops += op.model_flops;
    r.bytes_accessed += op.bytes_accessed;
    r.hbm_bytes += op.hbm_bytes;
  }
  int64_t all_self = 0;
  for (auto& [key, r] : by_op) {
    all_self += r.self_ps;
    r.gflops_per_s = per_second(r.flops, r.rate_ps) / 1e9;
    r.model_gflops_per_s = per_second(r.model_flops, r.rate_ps) / 1e9;
    r.memory_gib_per_s = per_second(r.bytes_accessed, r.rate_ps) / kGiB;
    r.hbm_gib_per_s = per_second(r.hbm_bytes, r.rate_ps) / kGiB;
    r.operational_intensity = r.bytes_accessed > 0 ? r.flops / r.bytes_accessed : 0;
    r.bound_by = bound_by(flop_utilisation(r.flops, r.rate_ps, out.peak_tflops),
                          hbm_utilisation(r.hbm_bytes, r.rate_ps, out.peak_hbm_gbps));
    out.rows.push_back(std::move(r));
  }
  std::sort(out.rows.begin(), out.rows.end(), [](const HloStatsRow& a, const HloStatsRow& b) {
    return a.self_ps != b.self_ps ? a.self_ps > b.self_ps : a.name < b.name;
  });
  double cumulative = 0;
  for (HloStatsRow& r : out.rows) {
    r.self_pct = all_self > 0 ? 100.0 * double(r.self_ps) / double(all_self) : 0;
    cumulative += r.self_pct;
    r.cumulative_self_pct = std::min(100.0, cumulative);
  }
  return out;
}

HloStats compute_hlo_stats(const model::Profile& profile) { return compute_hlo_stats(collect_hlo_ops(profile)); }

nlohmann::json to_json(const HloStats& s) {
  nlohmann::json rows = nlohmann::json::array();
  size_t rank = 0;
  for (const HloStatsRow& r : s.rows) {
    rows.push_back({
        {"rank", ++rank},
        {"program", r.program},
        {"category", r.category},
        {"hlo_op_name", r.name},
        {"hlo_op_expression", r.expression},
        {"tf_op_name", r.provenance},
        {"occurrences", r.occurrences},
        {"total_time_us", us(r.total_ps)},
        {"avg_time_us", r.occurrences ? us(r.total_ps) / double(r.occurrences) : 0.0},
        {"total_self_time_us", us(r.self_ps)},
        {"avg_self_time_us", r.occurrences ? us(r.self_ps) / double(r.occurrences) : 0.0},
        {"total_self_time_pct", r.self_pct},
        {"cumulative_total_self_time_pct", r.cumulative_self_pct},
        {"flops", r.flops},
        {"model_flops", r.model_flops},
        {"bytes_accessed", r.bytes_accessed},
        {"hbm_bytes", r.hbm_bytes},
        {"measured_flop_rate_gflops", r.gflops_per_s},
        {"model_flop_rate_gflops", r.model_gflops_per_s},
        {"measured_memory_bw_gib_s", r.memory_gib_per_s},
        {"hbm_bw_gib_s", r.hbm_gib_per_s},
        {"operational_intensity", r.operational_intensity},
        {"bound_by", r.bound_by},
        {"async_partner", r.async_partner},
        {"rate_time_us", us(r.rate_ps)},
        {"source_info", r.source},
        {"source_stack", r.source_stack},
    });
  }
  return {{"devices", s.devices},
          {"num_devices", s.num_devices},
          {"device_type", s.device_type},
          {"peak_teraflops_per_second", s.peak_tflops},
          {"peak_hbm_bw_gigabytes_per_second", s.peak_hbm_gbps},
          {"busy_time_ms", ms(s.busy_ps)},
          {"notes", s.notes},
          {"rows", std::move(rows)}};
}

std::string to_csv(const HloStats& s) {
  std::string out;
  append_csv_row(out, {"rank", "program", "category", "hlo_op_name", "occurrences", "total_time_us",
                       "total_self_time_us", "total_self_time_pct", "cumulative_total_self_time_pct",
                       "measured_flop_rate_gflops", "model_flop_rate_gflops", "measured_memory_bw_gib_s",
                       "hbm_bw_gib_s", "operational_intensity", "bound_by", "source_info", "tf_op_name",
                       "hlo_op_expression"});
  size_t rank = 0;
  for (const HloStatsRow& r : s.rows)
    append_csv_row(out, {std::to_string(++rank), r.program, r.category, r.name, std::to_string(r.occurrences),
                         csv_number(us(r.total_ps)), csv_number(us(r.self_ps)), csv_number(r.self_pct),
                         csv_number(r.cumulative_self_pct), csv_number(r.gflops_per_s),
                         csv_number(r.model_gflops_per_s), csv_number(r.memory_gib_per_s),
                         csv_number(r.hbm_gib_per_s), csv_number(r.operational_intensity), r.bound_by, r.source,
                         r.provenance, r.expression});
  return out;
}

}  // namespace mlprof::analysis
