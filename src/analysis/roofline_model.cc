#include "analysis/roofline_model.h"

#include <algorithm>
#include <map>

#include "analysis/csv.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

void add(RooflinePoint& to, const HloOp& op, bool outermost_only) {
  to.occurrences += op.occurrences;
  // Group points count an enclosing op's time once, and its FLOPs and bytes once (its count
  // holds its children's), as XProf's UpdateNodeMetrics does.
  to.time_ps += outermost_only ? op.self_ps : op.time_ps;
  to.rate_ps += outermost_only ? op.self_ps : rate_time_ps(op);
  to.self_ps += op.self_ps;
  if (!outermost_only || op.self_ps == op.time_ps) {
    to.flops += op.flops;
    to.bytes_accessed += op.bytes_accessed;
    to.hbm_bytes += op.hbm_bytes;
  }
}

void finish(RooflinePoint& p, const HloDevice& d) {
  const double seconds = double(p.rate_ps) * 1e-12;
  p.operational_intensity = p.bytes_accessed > 0 ? p.flops / p.bytes_accessed : 0;
  p.hbm_operational_intensity = p.hbm_bytes > 0 ? p.flops / p.hbm_bytes : 0;
  p.attained_gflops_per_s = seconds > 0 ? p.flops / seconds / 1e9 : 0;
  p.hbm_gib_per_s = seconds > 0 ? p.hbm_bytes / seconds / kGiB : 0;
  p.roof_gflops_per_s = roof_gflops(p.hbm_operational_intensity, d.peak_tflops, d.peak_hbm_gbps);
  p.roof_fraction = p.roof_gflops_per_s > 0 ? p.attained_gflops_per_s / p.roof_gflops_per_s : 0;
  p.bound_by = bound_by(flop_utilisation(p.flops, p.rate_ps, d.peak_tflops),
                        hbm_utilisation(p.hbm_bytes, p.rate_ps, d.peak_hbm_gbps));
}

bool longer(const RooflinePoint& a, const RooflinePoint& b) {
  return a.time_ps != b.time_ps ? a.time_ps > b.time_ps : a.name < b.name;
}

nlohmann::json point_json(const RooflinePoint& p) {
  return {{"device", p.device},
          {"program", p.program},
          {"category", p.category},
          {"name", p.name},
          {"occurrences", p.occurrences},
          {"total_time_us", us(p.time_ps)},
          {"total_self_time_us", us(p.self_ps)},
          {"rate_time_us", us(p.rate_ps)},
          {"flops", p.flops},
          {"bytes_accessed", p.bytes_accessed},
          {"hbm_bytes", p.hbm_bytes},
          {"operational_intensity", p.operational_intensity},
          {"hbm_operational_intensity", p.hbm_operational_intensity},
          {"measured_flop_rate_gflops", p.attained_gflops_per_s},
          {"hbm_bw_gib_s", p.hbm_gib_per_s},
          {"roof_gflops", p.roof_gflops_per_s},
          {"roof_fraction", p.roof_fraction},
          {"bound_by", p.bound_by}};
}

void csv_point(std::string& out, std::string_view scope, const RooflinePoint& p) {
  append_csv_row(out, {std::string(scope), p.device, p.program, p.category, p.name, std::to_string(p.occurrences),
                       csv_number(us(p.time_ps)), csv_number(us(p.self_ps)), csv_number(p.flops),
                       csv_number(p.bytes_accessed), csv_number(p.hbm_bytes), csv_number(p.operational_intensity),
                       csv_number(p.hbm_operational_intensity), csv_number(p.attained_gflops_per_s),
                       csv_number(p.hbm_gib_per_s), csv_number(p.roof_gflops_per_s), csv_number(p.roof_fraction),
                       p.bound_by});
}

}  // namespace

RooflineModel compute_roofline_model(const HloOps& ops) {
  RooflineModel out;
  for (const MissingStat& m : ops.missing) out.notes.push_back(missing_stat_line(m));
  if (ops.async_halves > 0)
    out.notes.push_back(std::to_string(ops.async_halves) +
                        " ops are halves of async pairs: their points are over the pairs' spans, from each start "
                        "to its done, not over the half's own time as in XProf.");
  std::vector<std::map<std::string, RooflinePoint>> programs(ops.devices.size());
  for (const HloDevice& d : ops.devices) {
    RooflineDevice& rd = out.devices.emplace_back();
    rd.device = d.name;
    rd.host = d.host;
    rd.device_type = d.device_type;
    rd.global_chip_id = d.global_chip_id;
    rd.peak_tflops = d.peak_tflops;
    rd.peak_hbm_gbps = d.peak_hbm_gbps;
    rd.ridge_point = ridge_point(d.peak_tflops, d.peak_hbm_gbps);
    rd.busy_ps = d.busy_ps;
    rd.total.device = d.name;
  }
  for (const HloOp& op : ops.ops) {
    const HloDevice& d = ops.devices[op.device];
    RooflinePoint& p = out.ops.emplace_back();
    p.device = d.name;
    p.program = op.program;
    p.category = op.category;
    p.name = op.name;
    add(p, op, false);
    finish(p, d);
    add(out.devices[op.device].total, op, true);
    RooflinePoint& program = programs[op.device][op.program];
    program.device = d.name;
    program.program = op.program;
    add(program, op, true);
  }
  for (size_t i = 0; i < out.devices.size(); ++i) {
    RooflineDevice& rd = out.devices[i];
    finish(rd.total, ops.devices[i]);
    for (auto& [name, p] : programs[i]) {
      finish(p, ops.devices[i]);
      rd.programs.push_back(std::move(p));
    }
    std::sort(rd.programs.begin(), rd.programs.end(), longer);
  }
  // ops.ops come device by device: each device's run of points is ranked on its own.
  for (auto first = out.ops.begin(); first != out.ops.end();) {
    auto last = std::find_if(first, out.ops.end(), [&](const RooflinePoint& p) { return p.device != first->device; });
    std::sort(first, last, longer);
    first = last;
  }
  return out;
}

RooflineModel compute_roofline_model(const model::Profile& profile) {
  return compute_roofline_model(collect_hlo_ops(profile));
}

nlohmann::json to_json(const RooflineModel& m) {
  nlohmann::json devices = nlohmann::json::array();
  for (const RooflineDevice& d : m.devices) {
    nlohmann::json programs = nlohmann::json::array();
    for (const RooflinePoint& p : d.programs) programs.push_back(point_json(p));
    devices.push_back({{"device", d.device},
                       {"host", d.host},
                       {"device_type", d.device_type},
                       {"global_chip_id", d.global_chip_id},
                       {"peak_teraflops_per_second", d.peak_tflops},
                       {"peak_hbm_bw_gigabytes_per_second", d.peak_hbm_gbps},
                       {"ridge_point", d.ridge_point},
                       {"busy_time_ms", ms(d.busy_ps)},
                       {"total", point_json(d.total)},
                       {"programs", std::move(programs)}});
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const RooflinePoint& p : m.ops) ops.push_back(point_json(p));
  return {{"devices", std::move(devices)}, {"ops", std::move(ops)}, {"notes", m.notes}};
}

std::string to_csv(const RooflineModel& m) {
  std::string out;
  append_csv_row(out, {"scope", "device", "program", "category", "operation", "occurrences", "total_time_us",
                       "total_self_time_us", "flops", "bytes_accessed", "hbm_bytes", "operational_intensity",
                       "hbm_operational_intensity", "measured_flop_rate_gflops", "hbm_bw_gib_s", "roof_gflops",
                       "roof_fraction", "bound_by"});
  for (const RooflineDevice& d : m.devices) {
    csv_point(out, "device", d.total);
    for (const RooflinePoint& p : d.programs) csv_point(out, "program", p);
  }
  for (const RooflinePoint& p : m.ops) csv_point(out, "op", p);
  return out;
}

}  // namespace mlprof::analysis
