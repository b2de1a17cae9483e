#include "analysis/op_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/csv.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

OpProfileNode op_node(const HloOp& op) {
  OpProfileNode n;
  n.name = op.name;
  n.is_op = true;
  n.category = op.category;
  n.expression = op.expression;
  n.provenance = op.provenance;
  n.source = op.source;
  n.occurrences = op.occurrences;
  n.time_ps = op.time_ps;
  n.self_ps = op.self_ps;
  n.rate_ps = rate_time_ps(op);
  n.async_partner = op.async_partner;
  n.flops = op.flops;
  n.hbm_bytes = op.hbm_bytes;
  return n;
}

// A group's figures from its children (XProf: UpdateNodeMetrics): its time is their self
// time; its FLOPs and bytes are those of children that enclose no other op (an enclosing op's
// count already holds its children's).
void total_up(OpProfileNode& node) {
  if (node.is_op) return;
  node.time_ps = node.self_ps = 0;
  node.flops = node.hbm_bytes = 0;
  node.occurrences = 0;
  node.rate_ps = 0;
  for (OpProfileNode& c : node.children) {
    total_up(c);
    node.rate_ps += c.self_ps;
    node.time_ps += c.self_ps;
    node.self_ps += c.self_ps;
    node.occurrences += c.occurrences;
    if (!c.is_op || c.self_ps == c.time_ps) {
      node.flops += c.flops;
      node.hbm_bytes += c.hbm_bytes;
    }
  }
  std::sort(node.children.begin(), node.children.end(), [](const OpProfileNode& a, const OpProfileNode& b) {
    return a.time_ps != b.time_ps ? a.time_ps > b.time_ps : a.name < b.name;
  });
}

// Capped at 1 as XProf's CapUtilization: a copy-start's bytes move while the copy runs, long
// after its sub-microsecond start, so its bytes over its own time would read millions of percent.
void set_utilisation(OpProfileNode& node, double peak_tflops_per_device, double peak_hbm_per_device) {
  node.flop_util = std::min(1.0, flop_utilisation(node.flops, node.rate_ps, peak_tflops_per_device));
  node.hbm_util = std::min(1.0, hbm_utilisation(node.hbm_bytes, node.rate_ps, peak_hbm_per_device));
  for (OpProfileNode& c : node.children) set_utilisation(c, peak_tflops_per_device, peak_hbm_per_device);
}

// The view of the ops of `devices` (indexes into ops.devices).
OpProfileView view_of(const HloOps& ops, const std::vector<uint32_t>& devices, std::string name) {
  OpProfileView v;
  v.device = std::move(name);
  v.devices = uint32_t(devices.size());
  v.device_type = ops.devices[devices.front()].device_type;
  v.peak_tflops = ops.devices[devices.front()].peak_tflops;
  v.peak_hbm_gbps = ops.devices[devices.front()].peak_hbm_gbps;
  for (uint32_t d : devices) {
    v.busy_ps += ops.devices[d].busy_ps;
    if (ops.devices[d].device_type != v.device_type) v.device_type.clear();
    // Devices that differ: the smallest peak, so that no utilisation reads low.
    v.peak_tflops = std::min(v.peak_tflops, ops.devices[d].peak_tflops);
    v.peak_hbm_gbps = std::min(v.peak_hbm_gbps, ops.devices[d].peak_hbm_gbps);
  }
  // The same op of several devices is one node (keys: program, category, op).
  std::map<std::string, std::map<std::string, std::map<std::string, OpProfileNode>>> tree;
  for (const HloOp& op : ops.ops) {
    if (std::find(devices.begin(), devices.end(), op.device) == devices.end()) continue;
    auto [it, added] = tree[op.program][op.category].try_emplace(op.name, op_node(op));
    if (added) continue;
    OpProfileNode& n = it->second;
    n.occurrences += op.occurrences;
    n.time_ps += op.time_ps;
    n.self_ps += op.self_ps;
    n.rate_ps += rate_time_ps(op);
    n.flops += op.flops;
    n.hbm_bytes += op.hbm_bytes;
  }
  v.by_program.name = "by_program";
  v.by_category.name = "by_category";
  std::map<std::string, OpProfileNode> categories;
  for (auto& [program, by_category] : tree) {
    OpProfileNode& p = v.by_program.children.emplace_back();
    p.name = program.empty() ? "(unknown program)" : program;
    for (auto& [category, by_op] : by_category) {
      OpProfileNode& c = p.children.emplace_back();
      c.name = category;
      OpProfileNode& all = categories[category];
      all.name = category;
      for (auto& [name, node] : by_op) {
        c.children.push_back(node);
        all.children.push_back(std::move(node));
      }
    }
  }
  for (auto& [name, node] : categories) v.by_category.children.push_back(std::move(node));
  total_up(v.by_program);
  total_up(v.by_category);
  // Figures summed over n devices against one device's peak: time is summed too, so the
  // quotient is the devices' mean utilisation.
  set_utilisation(v.by_program, v.peak_tflops, v.peak_hbm_gbps);
  set_utilisation(v.by_category, v.peak_tflops, v.peak_hbm_gbps);
  return v;
}

nlohmann::json node_json(const OpProfileNode& n) {
  nlohmann::json j = {
      {"name", n.name},
      {"time_ms", ms(n.time_ps)},
      {"self_time_ms", ms(n.self_ps)},
      {"occurrences", n.occurrences},
      {"flops", n.flops},
      {"hbm_bytes", n.hbm_bytes},
      {"flop_utilization", n.flop_util},
      {"hbm_bandwidth_utilization", n.hbm_util},
      {"bound_by", std::string(bound_by(n.flop_util, n.hbm_util))},
  };
  if (n.is_op) {
    j["xla"] = {{"category", n.category},
                {"async_partner", n.async_partner},
                {"rate_time_ms", ms(n.rate_ps)},
                {"expression", n.expression},
                {"provenance", n.provenance},
                {"source", n.source}};
  } else {
    nlohmann::json children = nlohmann::json::array();
    for (const OpProfileNode& c : n.children) children.push_back(node_json(c));
    j["num_children"] = n.children.size();
    j["children"] = std::move(children);
  }
  return j;
}

void csv_rows(std::string& out, const OpProfileView& v, const OpProfileNode& n, std::vector<std::string>& path) {
  if (n.is_op) {
    append_csv_row(out, {v.device, path.size() > 1 ? path[1] : "", n.category, n.name, std::to_string(n.occurrences),
                         csv_number(ms(n.time_ps)), csv_number(ms(n.self_ps)), csv_number(n.flops),
                         csv_number(n.hbm_bytes), csv_number(n.flop_util), csv_number(n.hbm_util),
                         std::string(bound_by(n.flop_util, n.hbm_util)), n.source, n.expression});
    return;
  }
  path.push_back(n.name);
  for (const OpProfileNode& c : n.children) csv_rows(out, v, c, path);
  path.pop_back();
}

}  // namespace

OpProfile compute_op_profile(const HloOps& ops) {
  OpProfile out;
  for (const MissingStat& m : ops.missing) out.notes.push_back(missing_stat_line(m));
  if (ops.empty()) return out;
  out.device_type = ops.common_device_type();
  std::vector<uint32_t> all(ops.devices.size());
  for (uint32_t d = 0; d < all.size(); ++d) all[d] = d;
  if (all.size() > 1) {
    const bool tpu = out.device_type.starts_with("TPU");
    out.views.push_back(view_of(ops, all, fmt::format("all {} {} (summed over {})", all.size(),
                                                      tpu ? "chips" : "devices", all.size())));
  }
  for (uint32_t d : all) out.views.push_back(view_of(ops, {d}, ops.devices[d].name));
  // Where the tree differs from XProf's on purpose (its op_profile_builder.cc).
  out.notes.push_back("Each op is a node of its own: XProf merges the ops of one fingerprint into one node "
                      "(\"fusion.14 and its duplicate(s)\").");
  if (std::any_of(ops.ops.begin(), ops.ops.end(), [](const HloOp& op) { return op.time_ps > op.self_ps; }))
    out.notes.push_back("Ops that enclose other ops (while loops, megacore fusions) are under their category with "
                        "their self time, so that categories add up to their program: XProf's tree leaves them out "
                        "of its categories while its program node counts their time.");
  if (ops.async_halves > 0)
    out.notes.push_back(fmt::format("{} ops are halves of async pairs (copy-start/copy-done, ...-start/-done, "
                                    "send/recv): their utilisation is over the pairs' spans, from each start to its "
                                    "done, not over the half's own time as in XProf.",
                                    ops.async_halves));
  for (const HloDevice& d : ops.devices)
    if (d.async_ops > 0) {
      out.notes.push_back(fmt::format("Async XLA ops (copy-start/-done and collective pairs: {} on {}) overlap the "
                                      "ops and are not counted in device time, as in XProf.",
                                      d.async_ops, d.name));
      break;
    }
  return out;
}

OpProfile compute_op_profile(const model::Profile& profile) { return compute_op_profile(collect_hlo_ops(profile)); }

nlohmann::json to_json(const OpProfile& p) {
  nlohmann::json views = nlohmann::json::array();
  for (const OpProfileView& v : p.views) {
    views.push_back({
        {"device", v.device},
        {"devices", v.devices},
        {"device_type", v.device_type},
        {"peak_teraflops_per_second", v.peak_tflops},
        {"peak_hbm_bw_gigabytes_per_second", v.peak_hbm_gbps},
        {"busy_time_ms", ms(v.busy_ps)},
        {"by_category", node_json(v.by_category)},
        {"by_program", node_json(v.by_program)},
    });
  }
  return {{"device_type", p.device_type}, {"views", std::move(views)}, {"notes", p.notes}};
}

std::string to_csv(const OpProfile& p) {
  std::string out;
  append_csv_row(out, {"device", "program", "category", "op", "occurrences", "time_ms", "self_time_ms", "flops",
                       "hbm_bytes", "flop_utilization", "hbm_bandwidth_utilization", "bound_by", "source",
                       "expression"});
  for (const OpProfileView& v : p.views) {
    std::vector<std::string> path;
    csv_rows(out, v, v.by_program, path);
  }
  return out;
}

}  // namespace mlprof::analysis
