#include "analysis/input_pipeline_analyzer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "analysis/csv.h"
#include "analysis/host_labels.h"
#include "analysis/event_kinds.h"
#include "analysis/fetch_outside_steps.h"
#include "analysis/run_environment.h"
#include "analysis/self_time.h"
#include "analysis/units.h"
#include "model/string_contains.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::PlaneKind;
using model::contains;
using model::Profile;
using model::StringId;

bool is_enqueue_name(std::string_view name) {
  return memcpy_kind(name) == MemcpyKind::kHostToDevice || contains(name, "Infeed") || contains(name, "infeed");
}

constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)";

// Where the wait went, and how to take that work off the step, in the framework's words.
std::string wait_callee_advice(const InputWaitCallee& w, Framework framework) {
  auto ms_text = [](int64_t ps) { return fmt::format("{:.1f} ms", double(ps) / 1e9); };
  std::string where = fmt::format("{} ({} of it)", w.stage, ms_text(w.stage_ps));
  if (w.callee != w.stage) where += fmt::format(", most of it in {} ({})", w.callee, ms_text(w.callee_ps));
  const std::string_view remedy =
      framework == Framework::kPyTorchPython
          ? "prepare batches ahead of the step (a DataLoader with num_workers > 0 runs this in worker processes "
            "while the step computes), or make it cheaper"
          : "prepare batches ahead of the step (a loader thread, or tf.data with prefetch), or make it cheaper";
  return fmt::format("While the steps waited for input ({}), their thread ran {}: {}.", ms_text(w.wait_ps), where,
                     remedy);
}

// "Data preprocessing" -> "data preprocessing", for the middle of a sentence.
std::string lowercase_first(std::string_view label) {
  std::string s(label);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = char(s[0] - 'A' + 'a');
  return s;
}

// (host, correlation id) of every host-to-device copy on a device: the runtime calls that
// started them are the host enqueuing input for the device.
std::vector<uint64_t> host_to_device_copies(const Profile& p) {
  std::vector<uint8_t> h2d_name(p.names.size());
  for (size_t n = 0; n < p.names.size(); ++n)
    h2d_name[n] = memcpy_kind(p.strings.view(p.names[n].name)) == MemcpyKind::kHostToDevice;
  std::vector<uint64_t> keys;
  for (const auto& line : p.lines) {
    const auto& plane = p.planes[line.plane];
    if (plane.kind != PlaneKind::kDevice || line.kind != model::LineKind::kStream) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (h2d_name[p.events.name[e]])
        if (auto c = p.stat(e, model::kCorrelationId)) keys.push_back(uint64_t(plane.host) << 48 ^ c->as_uint());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

InputOpCategory classify_input_op(std::string_view name) {
  if (is_enqueue_name(name)) return InputOpCategory::kEnqueue;
  if (name.starts_with(kDataLoaderPrefix))
    return contains(name, "MultiProcessing") ? InputOpCategory::kWaitForWorkers : InputOpCategory::kPreprocessing;
  if (is_iterator_name(name) && is_file_source_iterator_type(iterator_type(name))) {
    for (std::string_view ahead : {"::Prefetch", "::Interleave", "::ParallelInterleave", "::ParallelMap", "::MemoryReader"})
      if (contains(name, ahead)) return InputOpCategory::kReadInAdvance;
    return InputOpCategory::kReadOnDemand;
  }
  return InputOpCategory::kPreprocessing;
}

InputPipelineAnalysis compute_input_pipeline_analysis(const Profile& p, const StepAnalysis& sa) {
  InputPipelineAnalysis out;
  out.whole_profile = sa.whole_profile;
  std::vector<double> totals, inputs;
  const std::vector<std::string> hosts = host_labels(p);
  RankStepRows ranks;
  for (const StepBreakdown& s : sa.steps) {
    const auto c = s.category_ps();
    InputPipelineAnalysis::StepRow row;
    row.step_num = s.step_num;
    row.host = s.host < hosts.size() ? hosts[s.host] : "";
    if (!sa.whole_profile)
      ranks.add(row.host, s.host < p.hosts.size() ? p.strings.view(p.hosts[s.host].name) : "", s.duration_ps, c);
    row.total_ms = ms(s.duration_ps);
    row.input_ms = ms(c[size_t(Category::kInput)]);
    totals.push_back(row.total_ms);
    inputs.push_back(row.input_ms);
    out.steps.push_back(row);
  }
  out.ranks = ranks.rows();
  out.step_time_ms = series_stats(totals);
  out.input_ms = series_stats(inputs);
  out.summary = input_bound_of(sa);

  // Host side: iterator events, DataLoader iterations and host-to-device transfers (by name,
  // or runtime calls whose device work is one) on every host thread.
  std::vector<int8_t> input_name(p.names.size());
  std::vector<uint8_t> waits_on_step_line(p.names.size());
  for (size_t n = 0; n < p.names.size(); ++n) {
    const std::string_view name = p.strings.view(p.names[n].name);
    input_name[n] = is_iterator_name(name) || is_enqueue_name(name) || name.starts_with(kDataLoaderPrefix);
    // On a step's own thread the loop waiting for its batch is input time in the step
    // breakdown, not input processing (input_bound.h).
    waits_on_step_line[n] = only_waits_for_input(input_wait_name(name), true);
  }
  std::vector<uint8_t> step_line(p.lines.size(), 0);
  for (uint32_t group : sa.grouping.selected) step_line[p.line_index(sa.grouping.steps[group].root)] = 1;
  const std::vector<uint64_t> h2d = host_to_device_copies(p);
  auto starts_h2d_copy = [&](EventIndex e, uint32_t host) {
    if (h2d.empty() || p.events.first_stat[e] == p.events.first_stat[e + 1]) return false;
    auto c = p.stat(e, model::kCorrelationId);
    return c && std::binary_search(h2d.begin(), h2d.end(), uint64_t(host) << 48 ^ c->as_uint());
  };
  std::unordered_map<StringId, InputOpRow> rows;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const auto& line = p.lines[l];
    const auto& plane = p.planes[line.plane];
    if (plane.kind != PlaneKind::kHostThreads) continue;
    for_each_op_self_time(
        p, line,
        [&](EventIndex e) {
          const auto n = p.events.name[e];
          if (input_name[n] != 0) return !(step_line[l] && waits_on_step_line[n]);
          return starts_h2d_copy(e, plane.host);
        },
        [&](EventIndex e, int64_t self) {
          const bool inserted = !rows.contains(p.name_id(e));
          InputOpRow& r = rows[p.name_id(e)];
          if (inserted) {
            r.name = std::string(p.strings.view(p.name_id(e)));
            r.category = input_name[p.events.name[e]] ? classify_input_op(r.name) : InputOpCategory::kEnqueue;
          }
          ++r.count;
          r.total_ps += p.duration_ps(e);
          r.self_ps += self;
        });
  }
  for (auto& [name, r] : rows) {
    out.category_self_ps[size_t(r.category)] += r.self_ps;
    out.input_self_ps += r.self_ps;
    out.ops.push_back(std::move(r));
  }
  for (auto& r : out.ops) {
    r.total_pct = out.input_self_ps > 0 ? 100.0 * double(r.total_ps) / double(out.input_self_ps) : 0;
    r.self_pct = out.input_self_ps > 0 ? 100.0 * double(r.self_ps) / double(out.input_self_ps) : 0;
  }
  std::sort(out.ops.begin(), out.ops.end(), [](const InputOpRow& a, const InputOpRow& b) {
    return a.self_ps != b.self_ps ? a.self_ps > b.self_ps : a.name < b.name;
  });

  if (out.ops.empty())
    out.no_input_ops =
        "No input ops were found (tf.data Iterator:: annotations, PyTorch DataLoader iterations, "
        "host-to-device copies), so there is no host-side input breakdown.";

  // The Python code the wait was spent in, when it explains more of the wait than the input ops:
  // it comes first, and the input ops' advice, which would speak of a small part, goes.
  out.wait_callee = find_input_wait_callee(p, sa);
  const bool callee_explains = out.summary.verdict != InputBoundVerdict::kNot && out.wait_callee &&
                               out.wait_callee->callee_ps > out.input_self_ps;
  if (callee_explains) out.recommendations.push_back(wait_callee_advice(*out.wait_callee, detect_framework(p)));

  // What to do, naming the slowest input stage and fitting its category.
  if (out.summary.verdict != InputBoundVerdict::kNot && out.input_self_ps > 0 && !callee_explains) {
    size_t top = 0;
    for (size_t c = 1; c < kNumInputOpCategories; ++c)
      if (out.category_self_ps[c] > out.category_self_ps[top]) top = c;
    char buf[512];
    std::snprintf(buf, sizeof buf, "The slowest input stage is %s (%.1f%% of input processing time, %s).",
                  out.ops.front().name.c_str(), out.ops.front().self_pct,
                  lowercase_first(kInputOpCategoryLabels[size_t(out.ops.front().category)]).c_str());
    out.recommendations.push_back(buf);
    switch (InputOpCategory(top)) {
      case InputOpCategory::kReadOnDemand:
        out.recommendations.push_back(
            "Most input time reads files on demand: prefetch and interleave reads (read several files in parallel), "
            "or cache the data.");
        break;
      case InputOpCategory::kReadInAdvance:
        out.recommendations.push_back(
            "Most input time reads files ahead of use: read more files in parallel (more loader threads), use "
            "fewer, larger files, or cache the data.");
        break;
      case InputOpCategory::kPreprocessing:
        out.recommendations.push_back(
            "Most input time is data preprocessing: run it in parallel (more workers, num_parallel_calls; a "
            "PyTorch DataLoader with num_workers > 0 loads on worker processes), move it offline, or batch "
            "before mapping so each call does more work.");
        break;
      case InputOpCategory::kEnqueue:
        // In the device's words: pinned memory is a GPU runtime's; a TPU is fed by its infeed.
        out.recommendations.push_back(
            compute_run_environment(p).is_tpu()
                ? "Most input time enqueues data to the device: put the next batches on the TPU ahead of the step "
                  "(prefetch to the device), or send smaller batches in a compact type."
                : "Most input time enqueues data to the device: use pinned memory, copy asynchronously and prefetch "
                  "to the device, or send smaller batches in a compact type.");
        break;
      case InputOpCategory::kWaitForWorkers:
        out.recommendations.push_back(
            "Most input time waits for the DataLoader's worker processes: use more workers (num_workers), a "
            "larger prefetch_factor and persistent_workers=True, or make each sample cheaper to load.");
        break;
    }
  } else if (out.summary.input_bound() && out.ops.empty()) {
    char buf[512];
    const Framework framework = detect_framework(p);
    std::snprintf(buf, sizeof buf,
                  "%.1f%% of the step time waits for input, but no input ops were traced: annotate the input "
                  "pipeline's stages (%s%s) to see which one is slow.",
                  out.summary.input_pct, annotation_call(framework, "Iterator::...").c_str(),
                  framework == Framework::kPyTorchPython ? ", or load with a DataLoader" : "");
    out.recommendations.push_back(buf);
  }
  // As the overview says it: a fetch between the steps is input the steps' figures miss.
  if (auto advice = fetch_outside_steps_advice(fetch_outside_steps(p, sa), detect_framework(p)))
    out.recommendations.insert(out.recommendations.begin(), std::move(*advice));
  return out;
}

nlohmann::json to_json(const InputPipelineAnalysis& a) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : a.steps)
    steps.push_back({{"step", s.step_num}, {"host", s.host}, {"total_ms", s.total_ms}, {"input_ms", s.input_ms},
                     {"input_pct", s.total_ms > 0 ? 100 * s.input_ms / s.total_ms : 0.0}});
  auto stats = [](const SeriesStats& s) {
    return nlohmann::json{{"avg", s.avg}, {"stddev", s.stddev}, {"min", s.min}, {"max", s.max}};
  };
  nlohmann::json categories = nlohmann::json::object();
  for (size_t c = 0; c < kNumInputOpCategories; ++c)
    categories[std::string(kInputOpCategoryKeys[c])] = {
        {"self_time_ms", ms(a.category_self_ps[c])},
        {"pct", a.input_self_ps > 0 ? 100.0 * double(a.category_self_ps[c]) / double(a.input_self_ps) : 0.0}};
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& r : a.ops)
    ops.push_back({{"op", r.name},
                   {"count", r.count},
                   {"total_time_ms", ms(r.total_ps)},
                   {"total_time_pct", r.total_pct},
                   {"total_self_time_ms", ms(r.self_ps)},
                   {"self_time_pct", r.self_pct},
                   {"category", std::string(kInputOpCategoryKeys[size_t(r.category)])}});
  return {
      {"summary", {{"input_pct", a.summary.input_pct}, {"verdict", verdict_name(a.summary.verdict)},
                   {"explanation", a.summary.explanation}}},
      {"ranks", to_json(a.ranks)},
      {"device_side", {{"steps", steps}, {"step_time_ms", stats(a.step_time_ms)}, {"input_ms", stats(a.input_ms)},
                       {"whole_profile_as_one_step", a.whole_profile}}},
      {"host_side", {{"input_time_ms", ms(a.input_self_ps)}, {"categories", categories}, {"input_ops", ops},
                     {"no_input_ops", a.no_input_ops}}},
      {"host_work_during_input_wait", a.wait_callee ? nlohmann::json{{"input_wait_ms", ms(a.wait_callee->wait_ps)},
                                                                     {"stage", a.wait_callee->stage},
                                                                     {"stage_ms", ms(a.wait_callee->stage_ps)},
                                                                     {"callee", a.wait_callee->callee},
                                                                     {"callee_ms", ms(a.wait_callee->callee_ps)}}
                                                    : nlohmann::json(nullptr)},
      {"recommendations", a.recommendations},
  };
}

std::string to_csv(const InputPipelineAnalysis& a) {
  std::string out;
  append_csv_row(out, {"op", "count", "total_time_ms", "total_time_pct", "total_self_time_ms", "self_time_pct", "category"});
  for (const auto& r : a.ops) {
    append_csv_row(out, {r.name, std::to_string(r.count), csv_number(ms(r.total_ps)), csv_number(r.total_pct),
                         csv_number(ms(r.self_ps)), csv_number(r.self_pct),
                         std::string(kInputOpCategoryKeys[size_t(r.category)])});
  }
  return out;
}

}  // namespace mlprof::analysis
