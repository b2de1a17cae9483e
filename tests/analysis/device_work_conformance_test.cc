// Every real profile in ../shared/testdata (wild/ included) through every tool, in JSON, with
// invariants that hold whatever the device or framework (docs/ARCHITECTURE.md §5.11):
//   - no NaN or infinite number, no negative duration, no "(null)" name;
//   - each step's categories sum to the step;
//   - the overview, the kernel stats and the GPU timeline say which window they cover;
//   - the same quantity reads the same in every tool: kernels launched and collective time in
//     the kernel stats and the GPU timeline (the whole profile in both), within 0.1 %;
//   - no GPU words in the advice to a TPU profile, nor CUDA, Tensor Cores or kernel launches in
//     any text of any tool on it; a TPU profile's pod viewer and overview have a row per chip;
//   - no C++ advice (mlprof::StepTrace) to a Python or JAX one.
// Expected values come from the files' origins (the testdata README says what ran where), not
// from mlprof: the device family and framework of the files named below.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "analysis/analyzed_profile.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/step_grouping.h"
#include "analysis/kernel_stats.h"
#include "analysis/run_environment.h"
#include "analysis/tool_registry.h"
#include "analysis/testdata_files.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Hosts read one after another: bounded threads, as the suite runs beside others.
model::LoadRequest one_host_at_a_time(const fs::path& file) { return {file.string(), "", "", {}, 1}; }

const fs::path kTestdata = MLPROF_TESTDATA;
// Files larger than this are left out to keep the suite fast (none is today: the largest is 3 MiB).
constexpr uintmax_t kMaxFileBytes = 16u << 20;

bool is_profile_file(const fs::path& f) {
  const std::string name = f.filename().string();
  if (name.find("CORRUPT") != std::string::npos) return false;  // refused cleanly: the readers' tests
  if (name.ends_with(".xplane.pb")) return true;
  if (!name.ends_with(".json.gz") && !name.ends_with(".json")) return false;
  // Peer outputs and metadata beside the traces are no profiles.
  const std::string dir = f.parent_path().string();
  for (const char* skip : {"hta_expected", "_csvs", "golden_", "demo_outputs", "sidecars"})
    if (dir.find(skip) != std::string::npos) return false;
  return name.find("execution_details") == std::string::npos && !name.starts_with("test__");
}

std::vector<fs::path> profile_files() {
  std::vector<fs::path> out;
  if (!fs::exists(kTestdata)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(kTestdata))
    if (entry.is_regular_file() && is_profile_file(entry.path()) && entry.file_size() <= kMaxFileBytes)
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A number that is a duration or a size (never negative): by its key.
bool is_non_negative_key(const std::string& key) {
  for (const char* signed_part : {"start", "begin", "offset", "delta", "change", "diff", "_at", "at_", "slope", "z_score"})
    if (key.find(signed_part) != std::string::npos) return false;
  // Sizes are left out: a memory timeline's allocation_bytes is negative for a free.
  return key.ends_with("_us") || key.ends_with("_ms") || key.ends_with("_ps") || key.ends_with("_pct") ||
         key == "occurrences";
}

void walk(const json& j, const std::string& key, const std::string& where, std::vector<std::string>* problems) {
  if (problems->size() > 20) return;
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) walk(v, k, where + "." + k, problems);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) walk(j[i], key, where + "[" + std::to_string(i) + "]", problems);
  } else if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) problems->push_back(where + " is not finite");
    else if (v < -1e-9 && is_non_negative_key(key)) problems->push_back(where + " is negative: " + std::to_string(v));
  } else if (j.is_number_integer()) {
    if (j.get<int64_t>() < 0 && is_non_negative_key(key)) problems->push_back(where + " is negative");
  } else if (j.is_string()) {
    if (j.get<std::string>().find("(null)") != std::string::npos) problems->push_back(where + " holds \"(null)\"");
  }
}

// Every string value of a result (keys left out: they are names for programs, not words).
void strings_of(const json& j, std::vector<std::string>* out) {
  if (j.is_object())
    for (const auto& [k, v] : j.items()) strings_of(v, out);
  else if (j.is_array())
    for (const auto& v : j) strings_of(v, out);
  else if (j.is_string())
    out->push_back(j.get<std::string>());
}

// The advice a tool gives: its recommendations.
std::vector<std::string> advice_of(const json& j) {
  std::vector<std::string> out;
  if (j.contains("recommendations") && j["recommendations"].is_array())
    for (const auto& r : j["recommendations"]) out.push_back(r.is_object() ? r["text"].get<std::string>() : r.get<std::string>());
  return out;
}

struct Checked {
  std::string file;
  std::string device_type, framework;
  size_t tools = 0;
};

class Conformance : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    files_ = new std::vector<fs::path>(profile_files());
    results_ = new std::map<std::string, Checked>();
  }
  static void TearDownTestSuite() {
    delete files_;
    delete results_;
  }
  static std::vector<fs::path>* files_;
  static std::map<std::string, Checked>* results_;
};
std::vector<fs::path>* Conformance::files_ = nullptr;
std::map<std::string, Checked>* Conformance::results_ = nullptr;

void check_file(const fs::path& file, Checked* checked) {
  SCOPED_TRACE(file.string());
  model::Profile p;
  model::LoadError error;
  if (!model::load_profile(one_host_at_a_time(file), &p, &error)) {
    // A file no reader takes is refused in one line; it is no conformance failure.
    EXPECT_EQ(error.problem.find('\n'), std::string::npos) << error.problem;
    return;
  }
  const AnalyzedProfile profile(std::move(p));
  const RunEnvironment env = compute_run_environment(profile.profile());
  checked->file = file.filename().string();
  checked->device_type = env.device_type;
  checked->framework = std::string(framework_key(env.framework));
  std::map<std::string, json> out;
  for (const Tool& tool : tools()) {
    if (!tool.has_data(profile)) continue;
    json j;
    try {
      j = run_tool(tool, profile, {}).json();
    } catch (const std::exception& e) {
      ADD_FAILURE() << tool.id << " threw: " << e.what();
      continue;
    }
    ++checked->tools;
    std::vector<std::string> problems;
    walk(j, "", std::string(tool.id), &problems);
    for (const auto& problem : problems) ADD_FAILURE() << problem;
    out[std::string(tool.id)] = std::move(j);
  }

  // Each step's categories sum to the step.
  const json& overview = out["overview_page"];
  ASSERT_TRUE(overview.is_object());
  for (const json& step : overview["steps"]) {
    double sum = 0;
    for (const auto& [k, v] : step["breakdown_ms"].items()) sum += v.get<double>();
    const double total = step["total_ms"].get<double>();
    EXPECT_NEAR(sum, total, 1e-3 * total + 1e-6) << "step " << step["step"];
  }
  // Every figure names its window.
  EXPECT_TRUE(overview["summary"].contains("window"));
  EXPECT_TRUE(overview["precision"].contains("window"));
  if (out.count("kernel_stats")) EXPECT_TRUE(out["kernel_stats"]["summary"].contains("window"));
  if (out.count("gpu_time_breakdown"))
    for (const json& host : out["gpu_time_breakdown"]["hosts"]) EXPECT_TRUE(host.contains("window"));

  // The headline never contradicts the step breakdown: where more than half of the step is
  // input, the bottleneck is input or the overview says why not.
  const json& summary_pct = overview["summary"]["breakdown_pct"];
  if (summary_pct.contains("input") && summary_pct["input"].get<double>() > 50 && overview["bottleneck"].is_object()) {
    const json& b = overview["bottleneck"];
    EXPECT_TRUE(b["kind"] == "input" || (b["input_note"].is_string() && !b["input_note"].get<std::string>().empty()))
        << "input is " << summary_pct["input"] << "% of the step, the headline says " << b["sentence"];
  }

  // A TPU profile reads in a TPU's words in every text of every tool, not only its advice; and
  // the pod viewer and the overview have a row per chip (the run environment's chips).
  if (env.is_tpu()) {
    for (const auto& [tool, j] : out) {
      std::vector<std::string> texts;
      strings_of(j, &texts);
      for (const std::string& t : texts)
        for (const char* gpu_word : {"CUDA", "Tensor Core", "kernel launch", "Kernel launch", "cudaLaunch"})
          EXPECT_EQ(t.find(gpu_word), std::string::npos) << tool << ": GPU words on a TPU profile: " << t;
    }
    for (const char* tool : {"overview_page", "pod_viewer"}) {
      ASSERT_TRUE(out.count(tool)) << tool << " has no data on a TPU profile";
      ASSERT_TRUE(out[tool]["chips"].is_object()) << tool << ": no per-chip rows";
      EXPECT_EQ(out[tool]["chips"]["chips"].size(), env.chip_count()) << tool;
    }
    EXPECT_FALSE(overview["run_environment"]["tpu_generation"].get<std::string>().empty());
    // The critical path's words for its kinds and lists, and its ops by their HLO op name (the
    // instruction's text as long_name).
    if (out.count("critical_path") && out["critical_path"]["steps"].size() > 0) {
      const json& c = out["critical_path"];
      ASSERT_TRUE(c["labels"].is_object()) << "critical_path: no labels";
      for (const auto& [key, label] : c["labels"].items())
        for (const char* gpu_word : {"kernel", "Kernel", "CUDA"})
          EXPECT_EQ(label.get<std::string>().find(gpu_word), std::string::npos) << "critical_path label " << key << ": " << label;
      for (const char* list : {"top_ops", "top_kernels"})
        for (const json& t : c["average"][list]) {
          EXPECT_EQ(t["name"].get<std::string>().find(" = "), std::string::npos) << "an HLO instruction's text: " << t["name"];
          if (t.contains("long_name")) {
            EXPECT_NE(t["long_name"].get<std::string>().find(t["name"].get<std::string>()), std::string::npos);
          }
        }
    }
  }

  // The device's and the framework's language.
  std::vector<std::string> advice = advice_of(overview);
  for (const char* tool : {"input_pipeline_analyzer", "pod_viewer"})
    if (out.count(tool))
      for (auto& a : advice_of(out[tool])) advice.push_back(a);
  for (const std::string& a : advice) {
    if (env.is_tpu())
      for (const char* gpu_word : {"GPU", "CUDA", "Tensor Core", "pinned", "kernel"})
        EXPECT_EQ(a.find(gpu_word), std::string::npos) << "GPU words on a TPU profile: " << a;
    if (env.device_type == "MTIA")
      for (const char* gpu_word : {"GPU", "CUDA", "Tensor Core"})
        EXPECT_EQ(a.find(gpu_word), std::string::npos) << "GPU words on an MTIA profile: " << a;
    if (is_python_framework(env.framework))
      EXPECT_EQ(a.find("mlprof::"), std::string::npos) << "C++ advice to a " << framework_label(env.framework)
                                                        << " profile: " << a;
    if (env.framework != Framework::kTensorFlow)
      EXPECT_EQ(a.find("tf_data_bottleneck_analysis"), std::string::npos) << a;
  }

  // The same quantities in the kernel stats and the GPU timeline, over the whole profile.
  if (out.count("kernel_stats")) {
    const KernelStatsTable kernels = compute_kernel_stats(profile.profile());
    const GpuActivity gpu = collect_all_gpu_activity(profile.profile());
    size_t launches = 0;
    int64_t collective_ps = 0;
    for (const HostGpuActivity& host : gpu.hosts)
      for (const GpuWork& w : host.work) {
        if (w.kind != GpuWorkKind::kMemory) ++launches;
        if (w.kind == GpuWorkKind::kCommunication) collective_ps += host.end_ps(w) - host.begin_ps(w);
      }
    EXPECT_EQ(kernels.launches, launches) << "kernels in kernel_stats vs the GPU timeline";
    int64_t kernel_collective_ps = 0;
    for (const KernelStatsRow& r : kernels.rows)
      if (r.work == DeviceWork::kCollective) kernel_collective_ps += r.total_ps;
    EXPECT_NEAR(double(kernel_collective_ps), double(collective_ps), 1e-3 * double(collective_ps) + 1)
        << "collective time in kernel_stats vs the GPU timeline";
  }
}

TEST_F(Conformance, EveryToolOnEveryProfile) {
  if (files_->empty()) GTEST_SKIP() << kTestdata << " not found (the real profiles are in ../shared/testdata)";
  for (const fs::path& f : *files_) {
    Checked checked;
    check_file(f, &checked);
    if (!checked.file.empty()) (*results_)[f.string()] = checked;
  }
  // Most files are read (the wild ones from five projects).
  EXPECT_GE(results_->size(), 40u) << "of " << files_->size() << " files";
  std::map<std::string, int> kinds;
  for (const auto& [path, c] : *results_) ++kinds[c.device_type + " " + c.framework];
  std::string summary;
  for (const auto& [kind, n] : kinds) summary += " " + kind + ": " + std::to_string(n) + ";";
  std::cout << results_->size() << " of " << files_->size() << " profiles checked;" << summary << "\n";
}

// What the files are, from where they came from (testdata/README.md): the detection the advice
// relies on.
TEST_F(Conformance, DeviceAndFrameworkOfKnownFiles) {
  if (files_->empty()) GTEST_SKIP() << kTestdata << " not found";
  struct Known {
    const char* file_part;
    const char* device_type;
    const char* framework;
  };
  const Known known[] = {
      {"tpu_inference_2.xplane.pb", "TPU", "jax"},
      {"jax_conv_minimal_legacy", "GPU", "jax"},
      {"gpu_multi_worker.xplane.pb", "GPU", "tensorflow"},
      {"b200_eager_trace", "GPU", "pytorch_python"},
      {"timesformer", "GPU", "pytorch_python"},
      // Meta's MTIA, in Kineto's form ("mtia_ccp_events"; testdata README: HTA's MTIA traces).
      {"mtia_trace_single_rank", "MTIA", "pytorch_python"},
      {"mtia_inference_trace", "MTIA", "pytorch_python"},
  };
  for (const Known& k : known) {
    bool found = false;
    for (const fs::path& f : *files_) {
      if (f.string().find(k.file_part) == std::string::npos) continue;
      found = true;
      model::Profile p;
      model::LoadError error;
      ASSERT_TRUE(model::load_profile(one_host_at_a_time(f), &p, &error)) << error.problem;
      const RunEnvironment env = compute_run_environment(p);
      EXPECT_EQ(env.device_type, k.device_type) << f;
      EXPECT_EQ(framework_key(env.framework), k.framework) << f;
    }
    EXPECT_TRUE(found) << k.file_part;
  }
}

}  // namespace
}  // namespace mlprof::analysis

namespace mlprof::analysis {
namespace {

// TraceLens's report for the JAX conv on MI300X (wild/tracelens/xplane/jax_conv_minimal_perf_report_csvs/
// gpu_timeline.csv, and its tests' asserts: 25 kernels, 53 copies): GPU 0 (its pid 1) copies for
// 0.889028 ms and computes nothing; GPU 7 (pid 8) computes for 3.586493 ms. mlprof read the 53
// CopyDeviceToDevice events (with memcpy_details) as compute before they were classified as copies.
// Definitions that differ: TraceLens's total_time is each GPU's own span, mlprof's span is the host's
// (first to last work on any of its GPUs), so only busy times compare.
TEST(ConformanceWithTraceLens, JaxConvOnMi300xCopiesAndCompute) {
  const fs::path dir = kTestdata / "wild/tracelens/xplane";
  const fs::path file = testing::testdata_file_named(dir, "jax_conv_minimal_legacy");
  if (file.empty()) GTEST_SKIP() << dir << " not found (the real profiles are in ../shared/testdata)";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile(one_host_at_a_time(file), &p, &error)) << error.problem;
  const GpuActivity gpu = collect_all_gpu_activity(p);
  ASSERT_EQ(gpu.hosts.size(), 1u);
  size_t kernels = 0, copies = 0;
  for (const GpuWork& w : gpu.hosts[0].work) {
    kernels += w.kind == GpuWorkKind::kComputation;
    copies += w.kind == GpuWorkKind::kMemory;
  }
  EXPECT_EQ(kernels, 25u);
  EXPECT_EQ(copies, 53u);
  GpuTimelineOptions options;
  options.scope = GpuScope::kWholeProfile;
  const json j = to_json(compute_gpu_timeline(p, StepGrouping{}, options));
  std::map<int, json> devices;
  for (const json& d : j["hosts"][0]["gpu_time_breakdown"]["devices"]) devices[d["device"].get<int>()] = d;
  ASSERT_TRUE(devices.count(0) && devices.count(7));
  EXPECT_NEAR(devices[0]["memory_us"].get<double>(), 889.028, 0.889);
  EXPECT_NEAR(devices[0]["computation_us"].get<double>(), 0, 1e-9);
  EXPECT_NEAR(devices[7]["computation_us"].get<double>(), 3586.493, 3.586);
  EXPECT_EQ(compute_kernel_stats(p).launches, 25u);
}

}  // namespace
}  // namespace mlprof::analysis

namespace mlprof::analysis {
namespace {

// vLLM on a B200 (wild/tracelens/kineto_b200): its symmetric-memory all-reduce
// (multimem_all_reduce_kernel, 73 launches, 2.120 ms) and one NCCL all-gather (22 us) are its
// collectives, in the overview (one pseudo step: no step markers) and the GPU timeline alike;
// its 4,809 cpu_op events are host ops (PyTorch's "nccl:_all_gather_base" once made mlprof take
// the trace for TensorFlow's, and count one host op).
TEST(ConformanceAcrossTools, B200CollectivesAndHostOps) {
  const fs::path file = kTestdata / "wild/tracelens/kineto_b200/tracelens__traces_b200_eager_trace.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not found (the real profiles are in ../shared/testdata)";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile(one_host_at_a_time(file), &p, &error)) << error.problem;
  const AnalyzedProfile profile(std::move(p));
  const json overview = run_tool(*find_tool("overview_page"), profile, {}).json();
  const double overview_collectives_ms = overview["steps"][0]["breakdown_ms"]["device_collectives"].get<double>();
  const json timeline = run_tool(*find_tool("gpu_time_breakdown"), profile, {{"scope", "profile"}}).json();
  const double timeline_collectives_ms =
      timeline["hosts"][0]["gpu_time_breakdown"]["devices"][0]["communication_us"].get<double>() / 1e3;
  EXPECT_NEAR(overview_collectives_ms, 2.142, 0.01);
  EXPECT_NEAR(overview_collectives_ms, timeline_collectives_ms, 1e-3 * timeline_collectives_ms);
  const json ops = run_tool(*find_tool("framework_op_stats"), profile, {}).json();
  size_t host_ops = 0;
  for (const json& op : ops["ops"]) host_ops += op["host_or_device"] == "Host";
  EXPECT_GT(host_ops, 20u);
}

// The five Hugging Face models on an H100 (wild/tracelens/kineto_h100) ran in bf16 (the
// testdata README): their ops record `Input type` c10::BFloat16, which the precision reads
// first. Float32 is left only where the model itself upcasts: Qwen's RMSNorm runs aten::pow,
// aten::mean, aten::rsqrt and aten::mul on "float" inputs, 8.4 % of its kernel time by the
// raw JSON (each kernel's op by External id, durations summed with Python).
TEST(ConformanceWithModelCards, HuggingFaceModelsOnH100ReadBf16) {
  const fs::path dir = kTestdata / "wild/tracelens/kineto_h100";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " not found (the real profiles are in ../shared/testdata)";
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.path().string().ends_with(".json.gz")) continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    model::Profile p;
    model::LoadError error;
    ASSERT_TRUE(model::load_profile({entry.path().string(), "", ""}, &p, &error)) << error.problem;
    ASSERT_NE(p.strings.find("Input type"), model::kNoString) << "the ops' input types were not kept";
    const AnalyzedProfile profile(std::move(p));
    const json precision = run_tool(*find_tool("overview_page"), profile, {}).json()["precision"];
    const json& split = precision["split_pct"];
    ASSERT_TRUE(split.contains("bits16")) << precision.dump();
    for (const auto& [key, pct] : split.items())
      EXPECT_LE(pct.get<double>(), split["bits16"].get<double>()) << key << " above bits16: " << precision.dump();
    EXPECT_GE(precision["bits16_pct"].get<double>(), 85.0) << precision.dump();
  }
  EXPECT_EQ(files, 5u);
}

}  // namespace
}  // namespace mlprof::analysis
