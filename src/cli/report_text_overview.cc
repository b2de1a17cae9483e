#include <fmt/format.h>

#include <algorithm>

#include "analysis/category_labels.h"
#include "cli/report_text.h"
#include "cli/report_text_ranks.h"
#include "cli/report_text_table.h"

namespace mlprof::cli {

using namespace analysis;

namespace {
// The same categories as the per-step table's columns.
constexpr std::array<const char*, kNumCategories> kStepColumnLabels = {
    "input", "output", "compile", "launch", "host", "dev-to-dev", "collectives", "device", "other"};
// Steps per host: "1 step on 8 hosts" where each rank ran the same step, not "8 steps".
std::string steps_counted(const OverviewPage& page) {
  const size_t hosts = page.hosts_with_steps();
  const size_t per_host = hosts > 0 ? page.steps.size() / hosts : 0;
  if (hosts <= 1 || per_host * hosts != page.steps.size())
    return fmt::format("{} step{}", page.steps.size(), page.steps.size() == 1 ? "" : "s") +
           (hosts > 1 ? fmt::format(" on {} hosts", hosts) : "");
  return fmt::format("{} step{} on {} hosts", per_host, per_host == 1 ? "" : "s", hosts);
}

// What bounds the step, first: one sentence, then a blank line.
std::string bottleneck_line(const OverviewPage& page, size_t width) {
  if (!page.bottleneck) return "";
  std::string out = wrap_text(page.bottleneck->sentence(), width, "  ", "  ");
  if (!page.bottleneck->input_note.empty()) out += wrap_text(page.bottleneck->input_note, width, "  ", "  ");
  return out + "\n";
}

}  // namespace

namespace {
// A TPU as its files tell it: the part and generation (`device_type_string`), chips and cores
// per chip (`core_details`), and each chip's peaks.
std::string tpu_environment_line(const RunEnvironment& env) {
  const DeviceInfo& d = env.devices.front();
  const std::string model = d.model.empty() ? env.device_type : d.model;
  const std::string generation = tpu_generation(d.model);
  const size_t chips = env.chip_count();
  const size_t cores = chips == 0 ? 0 : env.device_count / chips;
  std::string line = fmt::format("  device type: {}{}, {} chip{}, {} core{} each", model,
                                 generation.empty() ? "" : " (" + generation + ")", chips, chips == 1 ? "" : "s",
                                 cores, cores == 1 ? "" : "s");
  if (d.peak_tflops > 0 || d.peak_hbm_gbps > 0)
    line += fmt::format("; peak per {} {:.0f} TFLOP/s, HBM {:.0f} GB/s", cores > 1 ? "core" : "chip", d.peak_tflops,
                        d.peak_hbm_gbps);
  return line + "\n";
}
}  // namespace

std::string render_text(const OverviewPage& page) {
  std::string out = "Overview\n\n";
  const size_t width = text_width();
  out += bottleneck_line(page, width);
  out += wrap_text(page.input_bound.explanation, width, "  ", "  ");
  if (!page.recommendations.empty()) {
    out += "\nRecommendations\n";
    for (const analysis::Recommendation& r : page.recommendations) {
      const std::string prediction = analysis::prediction_words(r);
      out += wrap_text(prediction.empty() ? r.text : r.text + " " + prediction, width, "  - ", "    ");
    }
  }

  if (page.whole_profile)
    out += fmt::format("\nStep time (the whole profile as one step{})\n",
                       page.steps_found == 0 ? ""
                                             : fmt::format("; {} {} marker(s) found, none with device work",
                                                           page.steps_found, step_marker_words(page.step_marker)));
  else {
    out += fmt::format("\nStep time ({}{})\n", steps_counted(page),
                       page.step_marker.empty() ? "" : ", " + step_source_words(page.step_marker));
    if (page.steps_left_out.total() > 0)
      out += wrap_text(fmt::format("Left out of the {} steps found: {}.", page.steps_found,
                                   steps_left_out_words(page.steps_left_out)),
                       width, "  ", "  ");
  }
  if (page.profiler_control_ps > 0)
    out += fmt::format("  (the profiler's own start and stop, {}, are in no step)\n",
                       format_ms(double(page.profiler_control_ps) / 1e9));
  out += fmt::format("  average {}  stddev {}  min {}  max {}\n", format_ms(page.step_time_ms.avg),
                     format_ms(page.step_time_ms.stddev), format_ms(page.step_time_ms.min),
                     format_ms(page.step_time_ms.max));
  out += render_rank_steps(page.ranks, false);

  out += "\nStep-time breakdown\n";
  TextTable breakdown({"category", "share", "average", "stddev", "min", "max"}, {false, true, true, true, true, true});
  for (size_t c = 0; c < kNumCategories; ++c) {
    const auto& s = page.category_ms[c];
    breakdown.add_row({std::string(category_label(Category(c), page.environment.is_tpu())), format_pct(page.breakdown_pct[c]), format_ms(s.avg), format_ms(s.stddev),
                       format_ms(s.min), format_ms(s.max)});
  }
  out += breakdown.render();
  if (page.bits16_pct + page.bits32_pct > 0)
    out += fmt::format("\n  Device compute precision: 16-bit or less {}, 32-bit {}\n", format_pct(page.bits16_pct),
                       format_pct(page.bits32_pct));
  if (page.precision_pct != std::array<double, kNumPrecisions>{}) {
    std::string split;
    for (size_t i = kNumPrecisions; i-- > 0;)
      if (page.precision_pct[i] > 0)
        split += fmt::format("{}{} {}", split.empty() ? "" : ", ", precision_label(Precision(i)),
                             format_pct(page.precision_pct[i]));
    out += "    by format: " + split + "\n";
  }

  if (!page.steps.empty() && !page.whole_profile) {
    out += "\nSteps (ms)\n";
    const size_t shown = std::min<size_t>(page.steps.size(), 20);
    // Input always (the verdict's figure), then every category some shown step has: the columns
    // add up to the total. Plain numbers and short labels keep the row within a terminal.
    std::vector<size_t> columns = {size_t(Category::kInput)};
    for (size_t c = 0; c < kNumCategories; ++c)
      if (c != size_t(Category::kInput) &&
          std::any_of(page.steps.begin(), page.steps.begin() + ptrdiff_t(shown),
                      [&](const auto& s) { return s.breakdown_ps[c] != 0; }))
        columns.push_back(c);
    const bool several_hosts = std::any_of(page.steps.begin(), page.steps.begin() + ptrdiff_t(shown),
                                           [&](const auto& s) { return s.host != page.steps.front().host; });
    std::vector<std::string> header = {"step"};
    if (several_hosts) header.push_back("host");
    header.push_back("total");
    for (size_t c : columns) header.push_back(kStepColumnLabels[c]);
    std::vector<bool> numeric(header.size(), true);
    if (several_hosts) numeric[1] = false;
    TextTable steps(header, numeric);
    auto ms = [](int64_t ps) { return fmt::format("{:.3f}", double(ps) / 1e9); };
    for (size_t i = 0; i < shown; ++i) {
      const auto& s = page.steps[i];
      std::vector<std::string> row = {std::to_string(s.step_num)};
      if (several_hosts) row.push_back(s.host);
      row.push_back(ms(s.total_ps));
      for (size_t c : columns) row.push_back(ms(s.breakdown_ps[c]));
      steps.add_row(row);
    }
    out += steps.render();
    // A profile with chips has a row per chip in its CSV, not a row per step.
    if (shown < page.steps.size())
      out += fmt::format("  ... {} more (see --format {})\n", page.steps.size() - shown,
                         page.chips.chips.empty() ? "json or csv" : "json");
  }

  if (!page.top_ops.empty()) {
    out += fmt::format("\nTop {} ops {}\n", page.top_ops.size(), page.top_ops_where());
    const bool show_type = std::any_of(page.top_ops.begin(), page.top_ops.end(),
                                       [](const TopOp& t) { return !name_says_type(t.name, t.type); });
    std::vector<std::string> header = {"self time", "self %", "cumul. %", "op"};
    std::vector<bool> numeric = {true, true, true, false};
    if (show_type) header.insert(header.end() - 1, "type"), numeric.insert(numeric.end() - 1, false);
    TextTable ops(header, numeric);
    for (const auto& t : page.top_ops) {
      std::vector<std::string> row = {format_ms(double(t.self_ps) / 1e9), format_pct(t.self_pct),
                                      format_pct(t.cumulative_pct), t.name};
      if (show_type) row.insert(row.end() - 1, t.type);
      ops.add_row(row);
    }
    out += ops.render();
  }

  out += render_text(page.chips, !page.whole_profile);

  const auto& env = page.environment;
  out += "\nRun environment\n";
  out += wrap_text(fmt::format("hosts: {} ({})", env.hosts.size(), fmt::join(env.hosts, ", ")), width, "  ", "    ");
  if (env.device_count == 0) out += "  device type: none (host only)\n";
  else if (env.is_tpu()) out += tpu_environment_line(env);
  else out += fmt::format("  device type: {}, devices: {}\n", env.device_type, env.device_count);
  if (!env.devices.empty() && env.devices.front().core_count > 0) {
    const DeviceInfo& d = env.devices.front();
    const GpuTerms& gpu = gpu_terms(d.vendor);
    const bool is_gpu = env.device_type == "GPU";
    out += fmt::format("  device cores: {} per device ({}), {} {}.{}\n", d.core_count, is_gpu ? gpu.cores : "cores",
                       is_gpu ? gpu.compute_level : "compute capability", d.compute_cap_major, d.compute_cap_minor);
  }
  out += fmt::format("  host threads with events: {}\n", env.host_thread_count);
  return out;
}

}  // namespace mlprof::cli
