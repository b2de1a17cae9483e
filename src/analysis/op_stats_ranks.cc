#include "analysis/op_stats_ranks.h"

#include "analysis/host_labels.h"
#include "analysis/units.h"

namespace mlprof::analysis {

OpStatsRankRow op_stats_rank_row(const OpStatsTotals& t) {
  OpStatsRankRow row;
  int64_t host_ps = 0, device_ps = 0;
  for (const auto& [name, op] : t.host) host_ps += op.self_ps;
  for (const auto& [name, op] : t.device) device_ps += op.self_ps;
  row.host_self_ms = ms(host_ps);
  row.device_self_ms = ms(device_ps);
  row.top_on_device = !t.device.empty();
  const auto& side = row.top_on_device ? t.device : t.host;
  const int64_t side_ps = row.top_on_device ? device_ps : host_ps;
  int64_t top_ps = -1;
  for (const auto& [name, op] : side)  // by name: the first of equal ones
    if (op.self_ps > top_ps) top_ps = op.self_ps, row.top_op = name;
  if (top_ps >= 0) {
    row.top_self_ms = ms(top_ps);
    row.top_self_pct = side_ps > 0 ? 100.0 * double(top_ps) / double(side_ps) : 0;
  }
  return row;
}

std::vector<OpStatsRankRow> op_stats_rank_rows(const model::Profile& p) {
  std::vector<OpStatsRankRow> rows;
  if (p.hosts.size() < 2) return rows;
  const std::vector<std::string> labels = host_labels(p);
  for (uint32_t h = 0; h < p.hosts.size(); ++h) {
    rows.push_back(op_stats_rank_row(op_stats_totals(p, true, h)));
    rows.back().host = labels[h];
    rows.back().file = p.strings.view(p.hosts[h].name);
  }
  return rows;
}

nlohmann::json to_json(const std::vector<OpStatsRankRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const OpStatsRankRow& r : rows)
    out.push_back({{"host", r.host},
                   {"file", r.file},
                   {"host_self_time_ms", r.host_self_ms},
                   {"device_self_time_ms", r.device_self_ms},
                   {"top_op", r.top_op},
                   {"top_op_on", r.top_on_device ? "Device" : "Host"},
                   {"top_op_self_time_ms", r.top_self_ms},
                   {"top_op_self_time_pct", r.top_self_pct}});
  return out;
}

}  // namespace mlprof::analysis
