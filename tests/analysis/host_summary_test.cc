// The summary-level tools (tool_registry.h) computed from per-host summaries give what they give
// on the whole run, byte for byte, in JSON and CSV: on runs made of the real PyTorch traces of
// ../shared/testdata as ranks (different GPUs, PyTorch versions and origins), on a run mixing
// TensorFlow's XSpace with PyTorch traces, on synthetic workers, with one thread and with
// several; and a corrupt rank among good ones is named as the full load names it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "analysis/analyzed_profile.h"
#include "analysis/host_summary.h"
#include "analysis/tool_registry.h"
#include "analysis/training_profile.h"
#include "format/scratch_dir.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

const fs::path kTestdata = MLPROF_TESTDATA;

// A run folder of the given files, each a rank (a trace JSON keeps its compression).
std::string run_of(const ScratchDir& dir, const std::string& name, const std::vector<fs::path>& files) {
  const fs::path run = fs::path(dir.path()) / name;
  fs::create_directories(run);
  int k = 0;
  for (const fs::path& f : files) {
    const std::string file = f.string();
    const std::string kind = file.ends_with(".xplane.pb") ? ".xplane.pb"
                             : file.ends_with(".gz")      ? ".pt.trace.json.gz"
                                                          : ".pt.trace.json";
    fs::create_symlink(fs::absolute(f), run / ("rank" + std::to_string(k++) + kind));
  }
  return run.string();
}

std::vector<fs::path> pytorch_traces() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kTestdata / "pytorch")) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string csv_or_none(const ToolResult& r) {
  try {
    return r.csv();
  } catch (const ToolRequestError&) {
    return "(no CSV)";
  }
}

// Every summary-level tool, from the whole run and from its summaries read on `jobs` threads.
// `read_whole`: the tools for which the summaries cannot stand for the run (RunSummary::exact),
// which mlprof report then reads whole.
void expect_same_outputs(const std::string& run, unsigned jobs, const std::set<std::string_view>& read_whole = {}) {
  SCOPED_TRACE(run + " with --jobs " + std::to_string(jobs));
  model::Profile profile;
  model::LoadError full_error;
  const bool full_ok = model::load_profile({run, "", "", {}, jobs}, &profile, &full_error);
  const AnalyzedProfile analyzed(std::move(profile));
  size_t compared = 0;
  for (const Tool& tool : tools()) {
    if (!tool.reads_summaries()) continue;
    SCOPED_TRACE(tool.id);
    // What mlprof report reads for the tool: the summary parts it names.
    RunSummary summary;
    model::LoadError summary_error;
    const bool summary_ok = load_run_summary({run, "", "", {}, jobs}, tool.from_summary->reads, &summary, &summary_error);
    ASSERT_EQ(full_ok, summary_ok);
    EXPECT_EQ(full_error.path, summary_error.path);
    // With one thread the full load reads every host into one profile, and the importer words a
    // host whose times do not fit with the others its own way.
    if (jobs > 1) {
      EXPECT_EQ(full_error.problem, summary_error.problem);
    }
    EXPECT_EQ(summary.hosts(), analyzed.profile().hosts.size());
    EXPECT_EQ(summary.events(), analyzed.profile().num_events());
    EXPECT_EQ(summary.run(), analyzed.profile().run);
    EXPECT_EQ(summary.exact(), !read_whole.contains(tool.id));
    if (!summary.exact()) continue;
    ++compared;
    // The defaults, and each flag on.
    std::vector<ToolOptionValues> variants = {{}};
    for (const ToolOption& option : tool.options)
      if (option.is_flag) variants.push_back({{std::string(option.name), "1"}});
    for (const ToolOptionValues& options : variants) {
      const ToolResult full = run_tool(tool, analyzed, options);
      const ToolResult from_summary = run_tool(tool, summary, options);
      EXPECT_EQ(full.json().dump(2), from_summary.json().dump(2));
      EXPECT_EQ(csv_or_none(full), csv_or_none(from_summary));
    }
  }
  EXPECT_GE(compared, 1u);
}

// The traces were recorded years apart: most cannot join the first one's origin, and are
// named as the full load names them.
TEST(HostSummary, RanksOfRealPyTorchTracesGiveTheFullRunsOutputs) {
  if (!fs::exists(kTestdata / "pytorch")) GTEST_SKIP() << "../shared/testdata is absent";
  ScratchDir dir;
  const std::string run = run_of(dir, "ranks", pytorch_traces());
  expect_same_outputs(run, 1);
  expect_same_outputs(run, 2);
}

// Ranks that fit one origin: each real trace of a GPU run twice. critical_path's has no step
// marker: the run is one step across both hosts, which their summaries cannot give the overview,
// so it is read whole for it.
TEST(HostSummary, RepeatedRealRanksGiveTheFullRunsOutputs) {
  if (!fs::exists(kTestdata / "pytorch")) GTEST_SKIP() << "../shared/testdata is absent";
  for (const auto& [name, read_whole] : std::vector<std::pair<std::string, std::set<std::string_view>>>{
           {"ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", {}},
           {"nccl_parser_config__nccl_data.json.gz", {}},
           {"df_index_resolver__df_index_resolver.json.gz", {}},
           // Its steps come from its repeated kernels: the summaries stand for it.
           {"critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz", {}}}) {
    ScratchDir dir;
    const std::string run = run_of(dir, "twice", {kTestdata / "pytorch" / name, kTestdata / "pytorch" / name});
    expect_same_outputs(run, 2, read_whole);
  }
}

TEST(HostSummary, ARunMixingXSpaceAndPyTorchGivesTheFullRunsOutputs) {
  if (!fs::exists(kTestdata / "tensorflow")) GTEST_SKIP() << "../shared/testdata is absent";
  ScratchDir dir;
  const std::string run = run_of(dir, "mixed",
                                 {kTestdata / "tensorflow/gpu_multi_worker.xplane.pb",
                                  kTestdata / "pytorch/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                  kTestdata / "pytorch/nccl_parser_config__nccl_data.json.gz"});
  // Recorded years apart, the PyTorch ranks cannot join the TensorFlow host's origin: they are
  // named as the full load names them.
  expect_same_outputs(run, 2);
}

TEST(HostSummary, SyntheticWorkersGiveTheFullRunsOutputs) {
  ScratchDir dir;
  const std::string run = dir / "plugins/profile/run";
  fs::create_directories(run);
  // Each worker starts a little later than the one before: the summaries' times are shifted
  // to the first one's origin.
  auto started_later = [](tensorflow::profiler::XSpace space, int64_t by_ns) {
    for (auto& plane : *space.mutable_planes())
      for (auto& line : *plane.mutable_lines()) line.set_timestamp_ns(line.timestamp_ns() + by_ns);
    return space;
  };
  testing::write_xspace(run + "/straggler.xplane.pb",
                        testing::training_space({.steps = 12, .input_wait_ms = 80, .compute_ms = 40, .loader = false}));
  testing::write_xspace(run + "/healthy.xplane.pb",
                        started_later(testing::training_space({.steps = 12, .input_wait_ms = 5}), 1'234'567));
  testing::write_xspace(run + "/few_steps.xplane.pb",
                        started_later(testing::training_space({.steps = 3}), 987'654'321));
  expect_same_outputs(run, 1);
  expect_same_outputs(run, 3);
}

// A host without steps (here a loader alone) beside a host with steps: the run has the steps
// of the one, and the other's whole profile is no step of it, as when read whole.
TEST(HostSummary, AHostWithoutStepsBesideOneWithStepsAddsNoPseudoStep) {
  ScratchDir dir;
  const std::string run = dir / "plugins/profile/run";
  fs::create_directories(run);
  tensorflow::profiler::XSpace loader_only = testing::training_space({.steps = 12});
  loader_only.mutable_planes(0)->mutable_lines()->DeleteSubrange(0, 1);  // the step thread
  testing::write_xspace(run + "/loader.xplane.pb", loader_only);
  testing::write_xspace(run + "/trainer.xplane.pb", testing::training_space({.steps = 12}));
  expect_same_outputs(run, 1);
  expect_same_outputs(run, 2);
}

TEST(HostSummary, ACorruptRankIsNamedAndTheOthersAreSummarised) {
  if (!fs::exists(kTestdata / "pytorch")) GTEST_SKIP() << "../shared/testdata is absent";
  ScratchDir dir;
  const fs::path good = kTestdata / "pytorch/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  std::vector<fs::path> files = {good, good, good};
  const fs::path bad = fs::path(dir.path()) / "bad.json";
  std::ofstream(bad) << "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": ";
  files.insert(files.begin() + 1, bad);
  const std::string run = run_of(dir, "with_bad_rank", files);
  RunSummary summary;
  model::LoadError error;
  EXPECT_FALSE(load_run_summary({run, "", "", {}, 2}, kAllParts, &summary, &error));
  EXPECT_EQ(fs::path(error.path).filename(), "rank1.pt.trace.json");
  EXPECT_FALSE(error.problem.empty());
  EXPECT_EQ(error.problem.find('\n'), std::string::npos);
  EXPECT_EQ(summary.hosts(), 3u);
  expect_same_outputs(run, 2);
}

}  // namespace
}  // namespace mlprof::analysis
