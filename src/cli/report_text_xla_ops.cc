// Text of the XLA op tools: the op profile, the HLO op stats and the roofline model.
#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {

std::string notes_text(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += wrap_text(n, text_width(), "  ", "    ");
  return out;
}

std::string util(double u) { return u > 0 ? format_pct(100 * u) : "-"; }

std::string peaks_text(double tflops, double hbm_gbps) {
  if (tflops <= 0 && hbm_gbps <= 0) return "peaks not in the file";
  return fmt::format("peak {:.0f} TFLOP/s, HBM {:.0f} GB/s", tflops, hbm_gbps);
}

}  // namespace

std::string render_text(const OpProfile& p, std::string_view no_data, size_t max_ops) {
  std::string out = "Op profile" + (p.device_type.empty() ? std::string() : " (" + p.device_type + ")") + "\n";
  if (p.views.empty()) return out + std::string(no_data) + notes_text(p.notes);
  out += notes_text(p.notes);
  for (const OpProfileView& v : p.views) {
    const OpProfileNode& root = v.by_category;
    out += fmt::format("\n  {}: busy {}, FLOP utilisation {}, HBM bandwidth {} ({})\n", v.device,
                       format_ms(double(v.busy_ps) / 1e9), util(root.flop_util), util(root.hbm_util),
                       peaks_text(v.peak_tflops, v.peak_hbm_gbps));
    TextTable table({"category / op", "count", "time", "%", "FLOP util", "HBM util", "bound by"},
                    {false, true, true, true, true, true, false}, 60);
    auto pct = [&](int64_t ps) { return v.busy_ps > 0 ? 100.0 * double(ps) / double(v.busy_ps) : 0.0; };
    for (const OpProfileNode& c : root.children) {
      table.add_row({c.name, std::to_string(c.occurrences), format_ms(double(c.time_ps) / 1e9), format_pct(pct(c.time_ps)),
                     util(c.flop_util), util(c.hbm_util), std::string(bound_by(c.flop_util, c.hbm_util))});
      size_t shown = 0;
      for (const OpProfileNode& o : c.children) {
        if (++shown > max_ops) break;
        table.add_row({"  " + o.name, std::to_string(o.occurrences), format_ms(double(o.time_ps) / 1e9),
                       format_pct(pct(o.self_ps)), util(o.flop_util), util(o.hbm_util),
                       std::string(bound_by(o.flop_util, o.hbm_util))});
      }
    }
    out += table.render("    ");
  }
  return out;
}

std::string render_text(const HloStats& s, std::string_view no_data, size_t max_rows) {
  std::string out = "HLO op stats" + (s.devices.empty() ? std::string() : ": " + s.devices) + "\n";
  if (s.rows.empty()) return out + std::string(no_data) + notes_text(s.notes);
  out += fmt::format("\n  {} ops, busy {} ({}{})\n", s.rows.size(), format_ms(double(s.busy_ps) / 1e9),
                     s.device_type.empty() ? "" : s.device_type + ", ", peaks_text(s.peak_tflops, s.peak_hbm_gbps));
  out += notes_text(s.notes) + "\n";
  TextTable table({"rank", "count", "total", "self", "self %", "GFLOP/s", "HBM GiB/s", "bound", "category", "op",
                   "source"},
                  {true, true, true, true, true, true, true, false, false, false, false}, 40);
  size_t rank = 0;
  for (const HloStatsRow& r : s.rows) {
    if (++rank > max_rows) break;
    table.add_row({std::to_string(rank), std::to_string(r.occurrences), format_ms(double(r.total_ps) / 1e9),
                   format_ms(double(r.self_ps) / 1e9), format_pct(r.self_pct), fmt::format("{:.1f}", r.gflops_per_s),
                   fmt::format("{:.1f}", r.hbm_gib_per_s), r.bound_by, r.category, r.name,
                   r.source.empty() ? "-" : r.source});
  }
  return out + table.render();
}

std::string render_text(const RooflineModel& m, std::string_view no_data, size_t max_ops) {
  std::string out = "Roofline model\n";
  if (m.devices.empty()) return out + std::string(no_data) + notes_text(m.notes);
  out += notes_text(m.notes);
  for (const RooflineDevice& d : m.devices) {
    const std::string chip = d.global_chip_id >= 0 ? fmt::format(", chip {} of the mesh", d.global_chip_id) : "";
    out += fmt::format("\n  {} ({}{}): {}, ridge point {:.1f} FLOP/byte\n", d.device, d.device_type, chip,
                       peaks_text(d.peak_tflops, d.peak_hbm_gbps), d.ridge_point);
    TextTable table({"program / op", "time", "FLOP/byte (HBM)", "GFLOP/s", "of roof", "bound by"},
                    {false, true, true, true, true, false}, 60);
    auto row = [&](const std::string& name, const RooflinePoint& p) {
      table.add_row({name, format_ms(double(p.time_ps) / 1e9), fmt::format("{:.2f}", p.hbm_operational_intensity),
                     fmt::format("{:.1f}", p.attained_gflops_per_s), util(p.roof_fraction), p.bound_by});
    };
    row("(all ops)", d.total);
    for (const RooflinePoint& p : d.programs) row(p.program, p);
    size_t shown = 0;
    for (const RooflinePoint& p : m.ops) {
      if (p.device != d.device) continue;
      if (++shown > max_ops) break;
      row("  " + p.name, p);
    }
    out += table.render("    ");
  }
  return out;
}

}  // namespace mlprof::cli
