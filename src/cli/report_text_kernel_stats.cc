#include <fmt/format.h>

#include "cli/report_text.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {

// Tensor Core findings above this share of kernel time get a line of advice.
constexpr double kMissedTensorCoresPct = 10;
// From this many columns the table also shows min, max and the launch configuration.
constexpr size_t kWideTableWidth = 160;

std::string dims(const std::array<int64_t, 3>& d) { return fmt::format("{}x{}x{}", d[0], d[1], d[2]); }

}  // namespace

std::string render_text(const KernelStatsTable& t, std::string_view no_data, size_t max_rows) {
  std::string out = "Kernel stats\n";
  if (t.rows.empty()) return out + std::string(no_data);
  auto pct = [&](int64_t ps) { return t.total_ps > 0 ? 100.0 * double(ps) / double(t.total_ps) : 0.0; };
  out += fmt::format("\n  {} kernel launches, {} distinct, {} in all\n", t.launches, t.rows.size(),
                     format_ms(double(t.total_ps) / 1e9));
  // The units of the run's GPUs: Tensor Cores (NVIDIA) or matrix cores (AMD).
  const bool amd = t.matrix_unit == MatrixUnit::kMatrixCores;
  const std::string_view units = amd ? "matrix cores" : "Tensor Cores";
  out += fmt::format("  On {}: {} of kernel time; in ops that could use them: {}\n", units,
                     format_pct(pct(t.tensor_core_ps)), format_pct(pct(t.eligible_ps)));
  int64_t compute = 0;
  for (int64_t ps : t.precision_ps) compute += ps;
  if (compute > 0) {
    std::string split;
    for (size_t i = kNumPrecisions; i-- > 0;)
      if (t.precision_ps[i] > 0)
        split += fmt::format("{}{} {}", split.empty() ? "" : ", ", precision_label(Precision(i)),
                             format_pct(100.0 * double(t.precision_ps[i]) / double(compute)));
    out += wrap_text("Precision of compute kernels: " + split, text_width(), "  ", "  ");
  }
  const double missed = pct(t.eligible_without_tensor_cores_ps);
  if (missed >= kMissedTensorCoresPct)
    out += wrap_text(fmt::format("{} of kernel time is in ops that could use {} but whose kernels did not: "
                                 "try mixed precision (float16 or bfloat16){}, with sizes that are multiples of 8.",
                                 format_pct(missed), units, amd ? "" : ", or TF32 on Ampere and later"),
                     text_width(), "  ", "  ");
  out += "\n";

  // On a narrow terminal the names need the room more than min, max and the launch shape do
  // (--format csv has them all).
  const bool wide = text_width() >= kWideTableWidth;
  std::vector<std::string> header = {"rank", "count", "total", "avg", "%", amd ? "MC" : "TC", "elig.", "kernel", "op"};
  std::vector<bool> numeric = {true, true, true, true, true, false, false, false, false};
  if (wide) {
    header.insert(header.begin() + 4, {"min", "max"}), numeric.insert(numeric.begin() + 4, {true, true});
    header.insert(header.end() - 2, {"prec.", "grid", "block", "regs"});
    numeric.insert(numeric.end() - 2, {false, false, false, true});
  }
  TextTable table(header, numeric, 48);
  size_t rank = 0;
  for (const KernelStatsRow& r : t.rows) {
    if (++rank > max_rows) break;
    std::vector<std::string> row = {std::to_string(rank), std::to_string(r.occurrences), format_ms(double(r.total_ps) / 1e9),
                                    format_ms(double(r.avg_ps()) / 1e9), format_pct(pct(r.total_ps)),
                                    r.uses_tensor_cores ? "yes" : "no", r.op_tensor_core_eligible ? "yes" : "no",
                                    r.kernel_name, r.op_name.empty() ? "-" : r.op_name};
    if (wide) {
      row.insert(row.begin() + 4, {format_ms(double(r.min_ps) / 1e9), format_ms(double(r.max_ps) / 1e9)});
      row.insert(row.end() - 2, {std::string(precision_key(r.precision)), dims(r.config.grid), dims(r.config.block),
                                 std::to_string(r.config.registers_per_thread)});
    }
    table.add_row(row);
  }
  out += table.render();
  if (t.rows.size() > max_rows) out += fmt::format("  ... {} more (see --format csv)\n", t.rows.size() - max_rows);
  return out;
}

}  // namespace mlprof::cli
