#include "analysis/overview_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/csv.h"
#include "analysis/memory_profile.h"
#include "analysis/memory_profile_events.h"
#include "analysis/self_time.h"
#include "analysis/timeline_rules.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

// Warn when a share of the step time is high (≥ 15 %) or moderate (≥ 3 %), §5.2.
void warn_share(std::vector<std::string>& out, double pct, std::string_view what, std::string_view advice) {
  if (pct >= 3) out.push_back(fmt::format("{} takes {:.1f}% of the step time ({}). {}", what, pct, pct >= 15 ? "high" : "moderate", advice));
}

void recommend(OverviewPage& page, const TfDataBottleneckAnalysis& tf_data) {
  auto& r = page.recommendations;
  const double input = page.breakdown_pct[size_t(Category::kInput)];
  if (page.whole_profile)
    r.push_back("No step markers were found, so the whole profile is treated as one step: mark each training step "
                "with mlprof::StepTrace(\"train\", step) (with the code that fetches the next batch inside it).");
  if (page.input_bound.verdict == InputBoundVerdict::kPotentially) {
    r.push_back(fmt::format("Only {:.1f}% of the step time visibly waits for input, but {:.1f}% is covered by no "
                            "traced activity: trace the input code (the batch fetch inside the step, the loader's "
                            "stages) to see whether that time is spent on input.",
                            input, page.breakdown_pct[size_t(Category::kOther)]));
  } else if (page.input_bound.verdict != InputBoundVerdict::kNot) {
    if (!tf_data.pipelines.empty() && tf_data.pipelines.front().bottleneck >= 0) {
      const auto& pl = tf_data.pipelines.front();
      r.push_back(fmt::format("{:.1f}% of the step time waits for input. The input bottleneck is {}: {}", input,
                              pl.nodes[size_t(pl.bottleneck)].long_name, pl.suggestion));
    } else {
      r.push_back(fmt::format("{:.1f}% of the step time waits for input: load batches ahead of the step (prefetch), "
                              "use more parallel loader workers, and keep loading off the training thread.",
                              input));
    }
    r.push_back("See input_pipeline_analyzer and tf_data_bottleneck_analysis for the input stages.");
  }
  warn_share(r, page.breakdown_pct[size_t(Category::kKernelLaunch)], "Kernel launch",
             "Launch fewer, larger kernels: fuse ops, capture the step in a CUDA graph, or use a larger batch.");
  warn_share(r, page.breakdown_pct[size_t(Category::kOther)], "Untraced time (other)",
             "Trace more of the step, or cut interpreter and framework overhead (compile the step function, avoid "
             "host syncs).");
  warn_share(r, page.breakdown_pct[size_t(Category::kDeviceCollectives)], "Device collectives",
             "Overlap communication with compute, use larger gradient buckets, or exchange less.");
  if (page.environment.device_type != "CPU" && page.bits32_pct >= 90 &&
      page.breakdown_pct[size_t(Category::kDeviceCompute)] > 0)
    r.push_back(fmt::format("{:.1f}% of device compute runs in 32-bit: try mixed precision (16-bit or bfloat16) so "
                            "that matrix ops can use Tensor Cores.",
                            page.bits32_pct));
  if (!page.top_ops.empty()) {
    const TopOp& top = page.top_ops.front();
    r.push_back(fmt::format("The op with the most {} self time is {} ({:.1f}%): look at it first in "
                            "framework_op_stats.",
                            top.on_device ? "device" : "host", top.name, top.self_pct));
  }
  const double compute = page.breakdown_pct[size_t(Category::kDeviceCompute)];
  if (page.input_bound.verdict == InputBoundVerdict::kNot && page.environment.device_type != "CPU" && compute < 50 && !page.whole_profile)
    r.push_back(fmt::format("The device computes during only {:.1f}% of the step: a larger batch or fewer "
                            "host-device synchronisations would keep it busier.",
                            compute));
}

// A host with no device computes on the host: there an op whose inputs include a half or
// bfloat16 tensor counts as 16-bit compute, and an op with other inputs as 32-bit. Inputs come
// from the op's `shape` stat (TensorFlow's verbose form, which mlprof's LibTorch integration
// writes at host_tracer_level 3); ops without it are left out.
void add_host_op_precision(const model::Profile& p, const StepAnalysis& sa, int64_t* bits16, int64_t* bits32) {
  const model::StringId shape = p.strings.find("shape");
  if (shape == model::kNoString) return;
  std::vector<uint8_t> selected(sa.grouping.steps.size(), 0);
  for (const StepBreakdown& s : sa.steps)
    if (s.group < selected.size()) selected[s.group] = 1;
  auto in_steps = [&](model::EventIndex e) {
    const int32_t g = sa.grouping.group_of[e];
    return sa.whole_profile || (g >= 0 && selected[size_t(g)]);
  };
  auto has_shape = [&](model::EventIndex e) { return p.stat(e, shape).has_value(); };
  for (const auto& line : p.lines) {
    if (p.planes[line.plane].kind != model::PlaneKind::kHostThreads) continue;
    for_each_op_self_time(p, line, has_shape, [&](model::EventIndex e, int64_t self) {
      if (!in_steps(e)) return;
      const std::string_view inputs = p.string_of(*p.stat(e, shape));
      const bool bits16_input = inputs.find("half[") != std::string_view::npos || inputs.find("bfloat16[") != std::string_view::npos;
      *(bits16_input ? bits16 : bits32) += self;
    });
  }
}

// "14.1 GiB", "512.0 MiB": the unit of `unit_of`, so that two numbers read alike.
std::string gib_or_mib(int64_t bytes, int64_t unit_of) {
  if (unit_of >= (int64_t(1) << 30)) return fmt::format("{:.1f}", double(bytes) / double(int64_t(1) << 30));
  return fmt::format("{:.1f}", double(bytes) / double(int64_t(1) << 20));
}

// A memory whose peak comes within 10 % of its capacity is close to running out (§5.5): say
// where it peaked and what to free first, naming the op with the most bytes alive there.
void recommend_memory(OverviewPage& page, const model::Profile& p) {
  if (!has_memory_events(p)) return;
  // The peaks alone first (one pass); the breakdown at the peak only for a memory that ran close.
  for (const MemorySummary& s : compute_memory_peaks(p)) {
    if (s.capacity_bytes <= 0) continue;
    const double pct = 100.0 * double(s.peak_heap_bytes) / double(s.capacity_bytes);
    if (pct <= 90) continue;
    MemoryProfileOptions options;
    options.memory_id = s.memory_id;
    options.max_timeline_points = 2;
    const MemoryProfile close = compute_memory_profile(p, options);
    if (close.memory_ids.empty()) continue;
    std::map<std::string_view, int64_t> bytes_by_op;
    for (const MemoryBreakdownRow& r : close.memory_ids.front().breakdown)
      if (!r.op.empty() && r.op != kAllocatedBeforeProfile) bytes_by_op[r.op] += r.allocation_bytes;
    const auto top = std::max_element(bytes_by_op.begin(), bytes_by_op.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    const char* unit = s.capacity_bytes >= (int64_t(1) << 30) ? "GiB" : "MiB";
    std::string sentence = fmt::format(
        "Memory peaks at {:.0f}% of {}'s capacity ({} of {} {}) at {}: to avoid running out, use a smaller batch, "
        "mixed precision (16-bit activations take half the memory), or free the largest buffers alive at the peak",
        pct, s.memory_id, gib_or_mib(s.peak_heap_bytes, s.capacity_bytes), gib_or_mib(s.capacity_bytes, s.capacity_bytes),
        unit, s.peak_step >= 0 ? fmt::format("step {}", s.peak_step) : fmt::format("{:.3f} ms", ms(s.peak_time_ps)));
    if (top != bytes_by_op.end())
      sentence += fmt::format(" (the most, {} {}, were allocated by {})", gib_or_mib(top->second, s.capacity_bytes),
                              unit, top->first);
    page.recommendations.push_back(sentence + "; see memory_profile.");
  }
}

}  // namespace

OverviewPage compute_overview_page(const model::Profile& p, const StepAnalysis& sa, const FrameworkOpStats& ops,
                                   const TfDataBottleneckAnalysis& tf_data) {
  OverviewPage page;
  page.whole_profile = sa.whole_profile;
  page.step_marker = sa.grouping.root_kind;
  page.steps_found = sa.grouping.steps.size();
  page.environment = compute_run_environment(p);

  std::vector<double> totals;
  std::array<std::vector<double>, kNumCategories> per_category;
  int64_t bits16 = 0, bits32 = 0;
  for (const StepBreakdown& s : sa.steps) {
    OverviewStep row;
    row.step_num = s.step_num;
    row.host = s.host < p.hosts.size() ? std::string(p.strings.view(p.hosts[s.host].name)) : "";
    row.begin_ps = s.begin_ps;
    row.total_ps = s.duration_ps;
    row.breakdown_ps = s.category_ps();
    totals.push_back(ms(row.total_ps));
    for (size_t c = 0; c < kNumCategories; ++c) per_category[c].push_back(ms(row.breakdown_ps[c]));
    bits16 += s.ps(Activity::kDeviceCompute16);
    bits32 += s.ps(Activity::kDeviceCompute32);
    page.steps.push_back(row);
  }
  page.step_time_ms = series_stats(totals);
  for (size_t c = 0; c < kNumCategories; ++c) {
    page.category_ms[c] = series_stats(per_category[c]);
    page.breakdown_pct[c] = page.step_time_ms.avg > 0 ? 100 * page.category_ms[c].avg / page.step_time_ms.avg : 0;
  }
  if (bits16 + bits32 == 0) add_host_op_precision(p, sa, &bits16, &bits32);
  if (bits16 + bits32 > 0) {
    page.bits16_pct = 100.0 * double(bits16) / double(bits16 + bits32);
    page.bits32_pct = 100.0 - page.bits16_pct;
  }
  page.input_bound = input_bound_of(sa);

  // Top 10 ops by self time: on the device when there is one, else on the host.
  bool any_device = false;
  for (const auto& r : ops.rows) any_device |= r.on_device && r.name != "IDLE";
  page.top_ops_on_device = any_device;
  for (const auto& r : ops.rows) {
    if (r.on_device != any_device || r.name == "IDLE") continue;
    if (page.top_ops.size() == 10) break;
    page.top_ops.push_back({r.name, r.type, r.on_device, r.occurrences, r.self_ps, r.self_pct, r.cumulative_self_pct});
  }
  recommend(page, tf_data);
  recommend_memory(page, p);
  for (TimelineAdvice& a : timeline_advice(p, sa.grouping)) page.recommendations.push_back(std::move(a.text));
  return page;
}

OverviewPage compute_overview_page(const model::Profile& p) {
  const StepAnalysis steps = analyze_steps(p);
  return compute_overview_page(p, steps, compute_framework_op_stats(p), compute_tf_data_bottleneck_analysis(p, steps));
}

nlohmann::json to_json(const OverviewPage& page) {
  auto breakdown = [](const std::array<int64_t, kNumCategories>& ps) {
    nlohmann::json j = nlohmann::json::object();
    for (size_t c = 0; c < kNumCategories; ++c) j[std::string(kCategoryKeys[c])] = ms(ps[c]);
    return j;
  };
  auto stats = [](const SeriesStats& s) {
    return nlohmann::json{{"avg", s.avg}, {"stddev", s.stddev}, {"min", s.min}, {"max", s.max}};
  };
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : page.steps)
    steps.push_back({{"step", s.step_num}, {"host", s.host}, {"start_ms", ms(s.begin_ps)}, {"total_ms", ms(s.total_ps)},
                     {"breakdown_ms", breakdown(s.breakdown_ps)}});
  nlohmann::json pct = nlohmann::json::object(), category_stats = nlohmann::json::object();
  for (size_t c = 0; c < kNumCategories; ++c) {
    pct[std::string(kCategoryKeys[c])] = page.breakdown_pct[c];
    category_stats[std::string(kCategoryKeys[c])] = stats(page.category_ms[c]);
  }
  nlohmann::json top = nlohmann::json::array();
  for (const auto& t : page.top_ops)
    top.push_back({{"name", t.name}, {"type", t.type}, {"host_or_device", t.on_device ? "Device" : "Host"},
                   {"occurrences", t.occurrences}, {"self_time_ms", ms(t.self_ps)}, {"self_time_pct", t.self_pct},
                   {"cumulative_self_time_pct", t.cumulative_pct}});
  return {
      {"steps", steps},
      {"summary", {{"step_time_ms", stats(page.step_time_ms)}, {"breakdown_pct", pct},
                   {"breakdown_ms", category_stats}, {"step_count", page.steps.size()},
                   {"steps_found", page.steps_found}, {"step_marker", page.step_marker},
                   {"whole_profile_as_one_step", page.whole_profile}}},
      {"input_bound", {{"verdict", verdict_name(page.input_bound.verdict)}, {"input_pct", page.input_bound.input_pct},
                       {"explanation", page.input_bound.explanation}}},
      {"precision", {{"bits16_pct", page.bits16_pct}, {"bits32_pct", page.bits32_pct}}},
      {"top_ops", top},
      {"run_environment", to_json(page.environment)},
      {"recommendations", page.recommendations},
  };
}

std::string to_csv(const OverviewPage& page) {
  std::string out;
  std::vector<std::string> header = {"step", "host", "start_ms", "total_ms"};
  for (auto k : kCategoryKeys) header.push_back(std::string(k) + "_ms");
  append_csv_row(out, header);
  char buf[32];
  for (const auto& s : page.steps) {
    std::vector<std::string> row = {std::to_string(s.step_num), s.host};
    for (int64_t v : {s.begin_ps, s.total_ps}) {
      std::snprintf(buf, sizeof buf, "%.6g", ms(v));
      row.push_back(buf);
    }
    for (int64_t v : s.breakdown_ps) {
      std::snprintf(buf, sizeof buf, "%.6g", ms(v));
      row.push_back(buf);
    }
    append_csv_row(out, row);
  }
  return out;
}

}  // namespace mlprof::analysis
