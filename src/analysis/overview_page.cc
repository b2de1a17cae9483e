#include "analysis/overview_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <map>

#include "analysis/category_labels.h"
#include "analysis/csv.h"
#include "analysis/device_precision.h"
#include "analysis/host_labels.h"
#include "analysis/memory_profile.h"
#include "analysis/memory_profile_events.h"
#include "analysis/self_time.h"
#include "analysis/step_inference.h"
#include "analysis/gpu_timeline/timeline_rules.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

// Warn when a share of the step time is high (≥ 15 %) or moderate (≥ 3 %), §5.2.
void warn_share(OverviewPage& page, double pct, std::string_view what, std::string_view advice,
                const std::optional<RecommendedChange>& change) {
  if (pct >= 3)
    page.recommendations.push_back(recommendation(
        fmt::format("{} takes {:.1f}% of the step time ({}). {}", what, pct, pct >= 15 ? "high" : "moderate", advice),
        page.bottleneck, change));
}

}  // namespace

std::string step_marker_words(std::string_view marker) {
  if (marker == "_r") return "the program's step annotations";
  if (marker == "ProfilerStep#N") return "torch.profiler's step()";
  if (marker == "SessionRun") return "Session.run calls";
  if (marker == "FunctionRun") return "tf.function calls";
  if (marker == "RunGraph" || marker == "ExecutorState::Process") return "TensorFlow graph runs";
  if (marker == kModuleRunSteps) return "the device's repeated module runs";
  if (marker == kJitCallSteps) return "the program's repeated jit calls";
  if (marker == kDataLoaderFetchSteps) return "the loop's repeated DataLoader fetches";
  return std::string(marker);
}

std::string step_source_words(std::string_view marker) {
  const bool inferred = marker == kModuleRunSteps || marker == kJitCallSteps || marker == kDataLoaderFetchSteps ||
                        marker.starts_with(kRepeatedSequenceSteps);
  return (inferred ? "found from " : "marked by ") + step_marker_words(marker);
}

std::string steps_left_out_words(const StepsLeftOut& left_out) {
  std::string out;
  auto add = [&](size_t count, std::string_view one, std::string_view many) {
    if (count > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, count == 1 ? one : many);
  };
  add(left_out.cut_at_start, "began before the capture started", "began before the capture started");
  add(left_out.cut_at_end, "was cut by the capture's stop", "were cut by the capture's stop");
  add(left_out.without_device_work, "ran no device work", "ran no device work");
  return out;
}

namespace {

// How to mark steps, in the framework's words.
std::string_view step_marker_advice(Framework f) {
  switch (f) {
    case Framework::kPyTorchPython:
      return "profile with torch.profiler.profile(schedule=...) and call prof.step() after each training step "
             "(it marks ProfilerStep#N).";
    case Framework::kJax:
      return "wrap each training step in jax.profiler.StepTraceAnnotation(\"train\", step_num=step).";
    case Framework::kTensorFlow:
      return "wrap each training step in tf.profiler.experimental.Trace(\"train\", step_num=step, _r=1) (Keras "
             "marks its steps itself).";
    default:
      return "mark each training step with mlprof::StepTrace(\"train\", step) (with the code that fetches the "
             "next batch inside it).";
  }
}

// How to compute in 16 bits, in the framework's words.
std::string_view mixed_precision_advice(Framework f) {
  switch (f) {
    case Framework::kPyTorchPython:
      return "try mixed precision (torch.autocast(device_type=..., dtype=torch.bfloat16))";
    case Framework::kJax: return "try bfloat16 (params and activations in jnp.bfloat16)";
    case Framework::kTensorFlow:
      return "try mixed precision (tf.keras.mixed_precision.set_global_policy(\"mixed_bfloat16\"))";
    case Framework::kLibTorch: return "try mixed precision (at::autocast, or bfloat16 tensors)";
    default: return "try mixed precision (16-bit or bfloat16)";
  }
}

void recommend(OverviewPage& page, const std::optional<SlowestPipeline>& slowest_pipeline) {
  // Each with the prediction of the change it proposes, where the critical path can replay it.
  auto push = [&page](std::string text, const std::optional<RecommendedChange>& change = std::nullopt) {
    page.recommendations.push_back(recommendation(std::move(text), page.bottleneck, change));
  };
  const double input = page.breakdown_pct[size_t(Category::kInput)];
  if (page.whole_profile && page.steps_found == 0)
    push("No step markers were found, so the whole profile is treated as one step: " +
                std::string(step_marker_advice(page.environment.framework)));
  else if (page.whole_profile)
    // step_grouping.cc: on a host with device work, a step that launched no kernel is not a training step.
    push(fmt::format("{} step marker(s) ({}) were found, but none encloses device work, so the whole "
                            "profile is treated as one step: open the step marker around the training step's ops, "
                            "in the process that runs them.",
                            page.steps_found, step_marker_words(page.step_marker)));
  if (page.input_bound.verdict == InputBoundVerdict::kPotentially) {
    push(fmt::format("Only {:.1f}% of the step time visibly waits for input, but {:.1f}% is covered by no "
                            "traced activity: trace the input code (the batch fetch inside the step, the loader's "
                            "stages) to see whether that time is spent on input.",
                            input, page.breakdown_pct[size_t(Category::kOther)]));
  } else if (page.input_bound.verdict != InputBoundVerdict::kNot) {
    if (slowest_pipeline && slowest_pipeline->has_bottleneck) {
      push(fmt::format("{:.1f}% of the step time waits for input. The input bottleneck is {}: {}", input,
                       slowest_pipeline->bottleneck, slowest_pipeline->suggestion),
           input_removed());
    } else {
      push(fmt::format("{:.1f}% of the step time waits for input: load batches ahead of the step (prefetch), "
                       "use more parallel loader workers, and keep loading off the training thread.",
                       input),
           input_removed());
    }
    push(page.environment.framework == Framework::kTensorFlow
                    ? "See input_pipeline_analyzer and tf_data_bottleneck_analysis for the input stages."
                    : "See input_pipeline_analyzer for the input stages.");
  }
  const GpuTerms& gpu = gpu_terms(page.environment.gpu_vendor());
  const bool tpu = page.environment.is_tpu();
  warn_share(page, page.breakdown_pct[size_t(Category::kKernelLaunch)], tpu ? "Launching device programs" : "Kernel launch",
             tpu ? std::string("Run more of the step in one compiled function (jit a larger function), or use a larger batch.")
                 : fmt::format("Launch fewer, larger kernels: fuse ops, capture the step in {}, or use a larger batch.",
                               gpu.graphs),
             launches_halved(tpu));
  // Tracing more changes what is seen, not the step: no prediction.
  warn_share(page, page.breakdown_pct[size_t(Category::kOther)], "Untraced time (other)",
             "Trace more of the step, or cut interpreter and framework overhead (compile the step function, avoid "
             "host syncs).",
             std::nullopt);
  warn_share(page, page.breakdown_pct[size_t(Category::kDeviceCollectives)], "Device collectives",
             "Overlap communication with compute, use larger gradient buckets, or exchange less.", collectives_halved());
  // Only where the precision of most compute is known: an unknown kernel is no 32-bit kernel.
  const double known = 100.0 - page.precision_pct[size_t(Precision::kUnknown)];
  const bool measured = known >= 50 || page.precision_pct == std::array<double, kNumPrecisions>{};
  if (page.environment.device_type != "CPU" && page.bits32_pct >= 90 && measured &&
      page.breakdown_pct[size_t(Category::kDeviceCompute)] > 0)
    push(fmt::format("{:.1f}% of device compute runs in 32-bit: {} so that matrix ops can use {}.",
                     page.bits32_pct, mixed_precision_advice(page.environment.framework),
                     tpu ? std::string_view("the MXU") : gpu.matrix_units),
         device_compute_halved());
  if (!page.top_ops.empty()) {
    const TopOp& top = page.top_ops.front();
    push(fmt::format("The op with the most {} self time is {} ({:.1f}%): look at it first in "
                     "framework_op_stats.",
                     top.on_device ? "device" : "host", top.name, top.self_pct),
         op_halved(top.name));
  }
  const double compute = page.breakdown_pct[size_t(Category::kDeviceCompute)];
  if (page.input_bound.verdict == InputBoundVerdict::kNot && page.environment.device_type != "CPU" && compute < 50 && !page.whole_profile)
    push(fmt::format("The device computes during only {:.1f}% of the step: a larger batch or fewer "
                            "host-device synchronisations would keep it busier.",
                            compute));
}

// "14.1 GiB", "512.0 MiB": the unit of `unit_of`, so that two numbers read alike.
std::string gib_or_mib(int64_t bytes, int64_t unit_of) {
  if (unit_of >= (int64_t(1) << 30)) return fmt::format("{:.1f}", double(bytes) / double(int64_t(1) << 30));
  return fmt::format("{:.1f}", double(bytes) / double(int64_t(1) << 20));
}

// A memory close to running out (§5.5): where it peaked and what to free first, naming the op
// with the most bytes alive there.
std::string memory_sentence(const MemoryPressure& m) {
  const double pct = 100.0 * double(m.peak_heap_bytes) / double(m.capacity_bytes);
  const char* unit = m.capacity_bytes >= (int64_t(1) << 30) ? "GiB" : "MiB";
  std::string sentence = fmt::format(
      "Memory peaks at {:.0f}% of {}'s capacity ({} of {} {}) at {}: to avoid running out, use a smaller batch, "
      "mixed precision (16-bit activations take half the memory), or free the largest buffers alive at the peak",
      pct, m.memory_id, gib_or_mib(m.peak_heap_bytes, m.capacity_bytes), gib_or_mib(m.capacity_bytes, m.capacity_bytes),
      unit, m.peak_step >= 0 ? fmt::format("step {}", m.peak_step) : fmt::format("{:.3f} ms", ms(m.peak_time_ps)));
  if (!m.top_op.empty())
    sentence += fmt::format(" (the most, {} {}, were allocated by {})", gib_or_mib(m.top_op_bytes, m.capacity_bytes),
                            unit, m.top_op);
  return sentence + "; see memory_profile.";
}

}  // namespace

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

std::vector<MemoryPressure> memory_pressure(const model::Profile& p, size_t* memories) {
  std::vector<MemoryPressure> out;
  if (memories) *memories = 0;
  if (!has_memory_events(p)) return out;
  // The peaks alone first (one pass); the breakdown at the peak only for a memory that ran close.
  const std::vector<MemorySummary> peaks = compute_memory_peaks(p);
  if (memories) *memories = peaks.size();
  for (const MemorySummary& s : peaks) {
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
    MemoryPressure m{s.memory_id, s.capacity_bytes, s.peak_heap_bytes, s.peak_step, s.peak_time_ps, "", 0};
    if (top != bytes_by_op.end()) m.top_op = std::string(top->first), m.top_op_bytes = top->second;
    out.push_back(std::move(m));
  }
  return out;
}

OverviewPage compute_overview_page(const model::Profile& p, const StepAnalysis& sa, const FrameworkOpStats& ops,
                                   const TfDataBottleneckAnalysis& tf_data) {
  OverviewParts parts;
  parts.whole_profile = sa.whole_profile;
  parts.step_marker = sa.grouping.root_kind;
  parts.steps_found = sa.grouping.steps.size();
  parts.steps_left_out = sa.grouping.left_out;
  parts.profiler_control_ps = sa.profiler_control_ps;
  for (const model::Host& host : p.hosts) {
    parts.hosts.emplace_back(p.strings.view(host.name));
    parts.host_ranks.push_back(host.rank);
  }
  parts.environment = compute_run_environment(p);
  parts.top_ops = top_ops_of(ops, &parts.top_ops_on_device);
  // The critical path (most of the overview's work) on a second core while the rest is read;
  // its what-ifs are the recommendations', named by the top op.
  auto bottleneck = std::async(
      std::launch::async | std::launch::deferred,
      [&p, &sa, changes = recommendation_what_ifs(parts.top_ops.empty() ? "" : parts.top_ops.front().name,
                                                  parts.environment.is_tpu())] { return find_bottleneck(p, sa, changes); });
  parts.fetch_outside = fetch_outside_steps(p, sa);
  parts.steps = sa.steps;
  int64_t bits16 = 0, bits32 = 0;
  for (const StepBreakdown& s : sa.steps)
    bits16 += s.ps(Activity::kDeviceCompute16), bits32 += s.ps(Activity::kDeviceCompute32);
  if (bits16 + bits32 == 0) add_host_op_precision(p, sa, &parts.host_bits16_ps, &parts.host_bits32_ps);
  parts.device_precision_ps = device_compute_precision_ps(p, sa);
  if (!tf_data.pipelines.empty()) {
    const InputPipeline& pl = tf_data.pipelines.front();
    parts.slowest_pipeline = SlowestPipeline{pl.max_ps, pl.bottleneck >= 0,
                                             pl.bottleneck >= 0 ? pl.nodes[size_t(pl.bottleneck)].long_name : "",
                                             pl.suggestion};
  }
  parts.memory = memory_pressure(p);
  parts.timeline = timeline_advice(p, sa.grouping);
  parts.bottleneck = bottleneck.get();
  return compose_overview_page(parts);
}

std::vector<TopOp> top_ops_of(const FrameworkOpStats& ops, bool* on_device) {
  bool any_device = false;
  for (const auto& r : ops.rows) any_device |= r.on_device && r.name != "IDLE";
  *on_device = any_device;
  std::vector<TopOp> top;
  for (const auto& r : ops.rows) {
    if (r.on_device != any_device || r.name == "IDLE") continue;
    if (top.size() == 10) break;
    top.push_back({r.name, r.type, r.on_device, r.occurrences, r.self_ps, r.self_pct, r.cumulative_self_pct});
  }
  return top;
}

size_t OverviewPage::hosts_with_steps() const {
  std::vector<std::string_view> hosts;
  for (const OverviewStep& s : steps)
    if (std::find(hosts.begin(), hosts.end(), s.host) == hosts.end()) hosts.push_back(s.host);
  return hosts.size();
}

void add_chip_advice(OverviewPage& page) {
  if (std::string advice = host_offload_advice(page.chips); !advice.empty()) {
    // The host-offloading advice speaks of the copies more exactly than the bottleneck's own.
    std::erase_if(page.recommendations,
                  [](const Recommendation& r) { return r.about_bottleneck && r.what_if.target == copies_removed().what_if.target; });
    page.recommendations.push_back(recommendation(std::move(advice), page.bottleneck, copies_removed()));
    rank_by_predicted_saving(page.recommendations);
  }
}

std::string OverviewPage::top_ops_where() const {
  const size_t devices = environment.device_count;
  if (!top_ops_on_device) return "on the host by self time";
  if (devices <= 1) return "on the device by self time";
  if (environment.is_tpu()) return fmt::format("on the TPU by self time, summed over its {} cores", devices);
  return fmt::format("on the devices by self time, summed over the {} devices", devices);
}

OverviewPage compose_overview_page(const OverviewParts& parts) {
  OverviewPage page;
  page.whole_profile = parts.whole_profile;
  page.step_marker = parts.step_marker;
  page.steps_found = parts.steps_found;
  page.steps_left_out = parts.steps_left_out;
  page.profiler_control_ps = parts.profiler_control_ps;
  page.environment = parts.environment;
  page.bottleneck = parts.bottleneck;

  std::vector<double> totals;
  std::array<std::vector<double>, kNumCategories> per_category;
  int64_t bits16 = 0, bits32 = 0;
  const std::vector<std::string> hosts = parts.host_ranks.size() == parts.hosts.size()
                                             ? host_labels(parts.host_ranks, parts.hosts) : parts.hosts;
  RankStepRows ranks;
  for (const StepBreakdown& s : parts.steps) {
    OverviewStep row;
    row.step_num = s.step_num;
    row.host = s.host < hosts.size() ? hosts[s.host] : "";
    row.begin_ps = s.begin_ps;
    row.total_ps = s.duration_ps;
    row.breakdown_ps = s.category_ps();
    totals.push_back(ms(row.total_ps));
    for (size_t c = 0; c < kNumCategories; ++c) per_category[c].push_back(ms(row.breakdown_ps[c]));
    bits16 += s.ps(Activity::kDeviceCompute16);
    bits32 += s.ps(Activity::kDeviceCompute32);
    if (!parts.whole_profile)
      ranks.add(row.host, s.host < parts.hosts.size() ? parts.hosts[s.host] : "", row.total_ps, row.breakdown_ps);
    page.steps.push_back(row);
  }
  page.ranks = ranks.rows();
  page.step_time_ms = series_stats(totals);
  for (size_t c = 0; c < kNumCategories; ++c) {
    page.category_ms[c] = series_stats(per_category[c]);
    page.breakdown_pct[c] = page.step_time_ms.avg > 0 ? 100 * page.category_ms[c].avg / page.step_time_ms.avg : 0;
  }
  if (bits16 + bits32 == 0) bits16 = parts.host_bits16_ps, bits32 = parts.host_bits32_ps;
  // The device's compute by precision (op input types first), where it says any.
  int64_t compute = 0;
  for (int64_t ps : parts.device_precision_ps) compute += ps;
  if (compute > 0) {
    for (size_t i = 0; i < kNumPrecisions; ++i)
      page.precision_pct[i] = 100.0 * double(parts.device_precision_ps[i]) / double(compute);
    const auto& ps = parts.device_precision_ps;
    const int64_t low = ps[size_t(Precision::kBits16)] + ps[size_t(Precision::kFp8)] + ps[size_t(Precision::kFp4)];
    const int64_t wide = ps[size_t(Precision::kFp32)] + ps[size_t(Precision::kTf32)] + ps[size_t(Precision::kFp64)];
    if (low + wide > 0) bits16 = low, bits32 = wide;
  }
  if (page.environment.is_tpu()) page.matrix_unit = MatrixUnit::kMxu;
  else if (page.environment.is_gpu())
    page.matrix_unit = page.environment.gpu_vendor() == GpuVendor::kAmd ? MatrixUnit::kMatrixCores : MatrixUnit::kTensorCores;
  if (bits16 + bits32 > 0) {
    page.bits16_pct = 100.0 * double(bits16) / double(bits16 + bits32);
    page.bits32_pct = 100.0 - page.bits16_pct;
  }
  StepAnalysis steps;
  steps.steps = parts.steps;
  steps.whole_profile = parts.whole_profile;
  page.input_bound = input_bound_of(steps);
  if (page.bottleneck) {  // the headline says why it is not input where the breakdown is mostly input
    int64_t waits_host = 0, total = 0;
    for (const StepBreakdown& s : parts.steps) waits_host += s.ps(Activity::kDeviceWaitHost), total += s.duration_ps;
    const double waits_host_pct = total > 0 ? 100.0 * double(waits_host) / double(total) : 0;
    page.bottleneck->input_note =
        input_disagreement(*page.bottleneck, page.breakdown_pct[size_t(Category::kInput)], waits_host_pct);
  }

  page.top_ops = parts.top_ops;
  page.top_ops_on_device = parts.top_ops_on_device;
  recommend(page, parts.slowest_pipeline);
  if (page.bottleneck)
    if (auto r = bottleneck_recommendation(*page.bottleneck, page.recommendations)) page.recommendations.push_back(std::move(*r));
  rank_by_predicted_saving(page.recommendations);
  // First: where the fetch lies outside the steps, the breakdown above misses the wait.
  if (auto advice = fetch_outside_steps_advice(parts.fetch_outside, page.environment.framework))
    page.recommendations.insert(page.recommendations.begin(), recommendation(std::move(*advice), std::nullopt));
  for (const MemoryPressure& m : parts.memory) page.recommendations.push_back(recommendation(memory_sentence(m), std::nullopt));
  for (const TimelineAdvice& a : parts.timeline) page.recommendations.push_back(recommendation(a.text, std::nullopt));
  return page;
}

OverviewPage compute_overview_page(const model::Profile& p) {
  const StepAnalysis steps = analyze_steps(p);
  return compute_overview_page(p, steps, compute_framework_op_stats(p), compute_tf_data_bottleneck_analysis(p, steps));
}

namespace {

nlohmann::json recommendations_json(const std::vector<Recommendation>& recommendations) {
  nlohmann::json j = nlohmann::json::array();
  for (const Recommendation& r : recommendations) j.push_back(to_json(r));
  return j;
}

nlohmann::json precision_json(const OverviewPage& page) {
  nlohmann::json split = nlohmann::json::object();
  for (size_t i = 0; i < kNumPrecisions; ++i)
    if (page.precision_pct[i] > 0) split[std::string(precision_key(Precision(i)))] = page.precision_pct[i];
  nlohmann::json j = {{"bits16_pct", page.bits16_pct},
                      {"bits32_pct", page.bits32_pct},
                      {"split_pct", split},
                      {"window", page.whole_profile ? "the whole profile" : "the analysed steps"}};
  if (page.matrix_unit != MatrixUnit::kNone) j["matrix_units"] = matrix_unit_label(page.matrix_unit);
  return j;
}

}  // namespace

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
      {"ranks", to_json(page.ranks)},
      {"steps", steps},
      {"summary", {{"step_time_ms", stats(page.step_time_ms)}, {"breakdown_pct", pct},
                   {"breakdown_ms", category_stats}, {"step_count", page.steps.size()},
                   {"hosts_with_steps", page.hosts_with_steps()},
                   {"steps_found", page.steps_found}, {"step_marker", page.step_marker},
                   {"step_marker_words", step_marker_words(page.step_marker)},
                   {"step_source", page.step_marker.empty() ? nlohmann::json(nullptr)
                                                            : nlohmann::json(step_source_words(page.step_marker))},
                   {"steps_left_out", page.steps_left_out.total() > 0
                                          ? nlohmann::json(steps_left_out_words(page.steps_left_out))
                                          : nlohmann::json(nullptr)},
                   {"profiler_start_stop_ms", ms(page.profiler_control_ps)},
                   {"window", page.whole_profile ? "the whole profile, as one step" : "a step (average over the analysed steps)"},
                   {"whole_profile_as_one_step", page.whole_profile}}},
      {"input_bound", {{"verdict", verdict_name(page.input_bound.verdict)}, {"input_pct", page.input_bound.input_pct},
                       {"explanation", page.input_bound.explanation}}},
      {"precision", precision_json(page)},
      {"top_ops", top},
      {"top_ops_where", page.top_ops_where()},
      {"category_labels", category_labels_json(page.environment.is_tpu())},
      {"run_environment", to_json(page.environment)},
      {"recommendations", recommendations_json(page.recommendations)},
      {"bottleneck", page.bottleneck ? to_json(*page.bottleneck) : nlohmann::json(nullptr)},
      {"chips", page.chips.chips.empty() ? nlohmann::json(nullptr) : to_json(page.chips)},
  };
}

std::string to_csv(const OverviewPage& page) {
  // A profile with chips (TPUs, XLA's GPUs) has a row per chip, as the page shows them.
  if (!page.chips.chips.empty()) return to_csv(page.chips);
  std::string out;
  std::vector<std::string> header = {"step", "host", "start_ms", "total_ms"};
  for (auto k : kCategoryKeys) header.push_back(std::string(k) + "_ms");
  append_csv_row(out, header);
  for (const auto& s : page.steps) {
    std::vector<std::string> row = {std::to_string(s.step_num), s.host};
    for (int64_t v : {s.begin_ps, s.total_ps}) row.push_back(csv_number(ms(v)));
    for (int64_t v : s.breakdown_ps) row.push_back(csv_number(ms(v)));
    append_csv_row(out, row);
  }
  return out;
}

}  // namespace mlprof::analysis
