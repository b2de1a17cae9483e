// The per-chip table of the pod viewer and the overview (analysis/device_chips.h).
#include <fmt/format.h>

#include <algorithm>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

std::string render_text(const DeviceChips& chips, bool host_marks_steps) {
  if (chips.chips.empty()) return "";
  const ChipRow& first = chips.chips.front();
  const bool tpu = first.model.starts_with("TPU");
  const std::string_view unit = tpu ? "chip" : "device";
  std::string out = fmt::format("\n{} ({}, one row each; every figure is the {}'s own, none is summed)\n",
                                tpu ? "Chips" : "Devices", chips.chips.size(), unit);
  if (!host_marks_steps && !first.main_module.empty())
    out += wrap_text(fmt::format("No step markers on the host: a {}'s steps are the runs of its most-run XLA "
                                 "program ({} on {}).",
                                 unit, first.main_module, first.device),
                     text_width(), "  ", "  ");
  if (std::any_of(chips.chips.begin(), chips.chips.end(), [](const ChipRow& c) { return c.cores > 1; }))
    out += wrap_text("A chip of several TensorCores (megacore) is one row: busy is the time any of its cores ran an "
                     "op; compute, collectives and async copies are summed over its cores; utilisation is against "
                     "its cores' peaks together.",
                     text_width(), "  ", "  ");
  for (const std::string& line : chips.missing) out += wrap_text(line, text_width(), "  ", "    ");
  TextTable table({"device", tpu ? "chip id" : "id", "cores", "steps", "avg step", "busy", "compute", "collectives",
                   "async copies", "FLOP util", "HBM util"},
                  {false, true, true, true, true, true, true, true, true, true, true});
  for (const ChipRow& c : chips.chips) {
    const double avg_ms = c.main_module_runs ? double(c.main_module_time_ps) / 1e9 / double(c.main_module_runs) : 0;
    table.add_row({c.device, c.global_chip_id >= 0 ? std::to_string(c.global_chip_id) : "-", std::to_string(c.cores),
                   std::to_string(c.main_module_runs), c.main_module_runs ? format_ms(avg_ms) : "-",
                   format_ms(double(c.busy_ps) / 1e9), format_ms(double(c.compute_ps) / 1e9),
                   format_ms(double(c.collective_ps) / 1e9), format_ms(double(c.async_copy_ps) / 1e9),
                   c.peak_tflops > 0 ? format_pct(c.flop_util_pct) : "-",
                   c.peak_hbm_gbps > 0 ? format_pct(c.hbm_util_pct) : "-"});
  }
  out += table.render();
  if (chips.chips.size() > 1 && chips.busiest >= 0 && chips.least_busy >= 0) {
    const ChipRow& most = chips.chips[size_t(chips.busiest)];
    const ChipRow& least = chips.chips[size_t(chips.least_busy)];
    const double gap_pct = most.busy_ps > 0 ? 100.0 * double(most.busy_ps - least.busy_ps) / double(most.busy_ps) : 0;
    out += fmt::format("  Busiest: {} ({}); least busy: {} ({}, {} less).\n", most.device,
                       format_ms(double(most.busy_ps) / 1e9), least.device, format_ms(double(least.busy_ps) / 1e9),
                       format_pct(gap_pct));
  }
  return out;
}

}  // namespace mlprof::cli
