#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {

// "1.5 GiB", "768 KiB", "12 B"
std::string format_bytes(double bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) bytes /= 1024, ++unit;
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

std::string format_gbps(double gbps) { return gbps >= 0 ? fmt::format("{:.2f}", gbps) : "-"; }

}  // namespace

std::string render_text(const CollectivesTable& t, std::string_view no_data) {
  std::string out = "Collectives (the whole profile)\n";
  if (t.rows.empty()) return out + std::string(no_data);
  out += "\n";
  if (!t.ranks.empty()) {
    // One row per rank first: who waits for whom, on one scale (ms per step).
    out += wrap_text("Ranks (means per analysed step; wait: a rank's time in collectives beyond the rank that "
                     "spends least there that step, the others' lateness it waits out)",
                     text_width(), "  ", "  ") + "\n";
    TextTable ranks({"rank", "steps", "in collectives", "waiting", "wait share"}, {false, true, true, true, true});
    for (const CollectiveRankWait& r : t.ranks)
      ranks.add_row({r.host, std::to_string(r.steps), format_ms(r.collectives_ms), format_ms(r.wait_ms),
                     format_pct(r.wait_share_pct())});
    out += ranks.render() + "\n";
  }
  TextTable table({"collective", "group", "ranks", "rank", "on", "count", "total", "mean", "mean size", "algbw GB/s",
                   "busbw GB/s"},
                  {false, false, false, false, false, true, true, true, true, true, true}, 40);
  for (const CollectiveRow& r : t.rows)
    table.add_row({r.kind, r.process_group.empty() ? "-" : r.process_group,
                   r.group_ranks.empty() ? (r.group_size > 0 ? std::to_string(r.group_size) : "-") : r.group_ranks,
                   r.host, r.on_device ? "GPU" : "host", std::to_string(r.count),
                   format_ms(double(r.total_ps) / 1e9), format_ms(r.mean_ms()),
                   r.sized_count > 0 ? format_bytes(r.mean_bytes()) : "-", format_gbps(r.algbw_gbps()),
                   format_gbps(r.busbw_gbps())});
  out += table.render();
  out += "\n" + wrap_text("algbw: message bytes / time; busbw: algbw x 2(n-1)/n for all_reduce, (n-1)/n for "
                          "all_gather, reduce_scatter and all_to_all, x 1 for broadcast, reduce, send and recv "
                          "(NCCL tests' definitions). A message is the larger of a call's input and output.",
                          text_width(), "  ", "  ");
  if (out.back() != '\n') out += '\n';
  return out;
}

}  // namespace mlprof::cli
