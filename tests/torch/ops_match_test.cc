// The ops mlprof records for a small model are the ops LibTorch's own (legacy autograd)
// profiler records for the same code: the same names, as many times each.
#include <gtest/gtest.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <filesystem>
#include <map>
#include <string>

#include "mlprof/mlprof.h"
#include "mlprof/torch.h"
#include "tiny_model.h"
#include "xspace_events.h"

namespace mlprof::testing {
namespace {

namespace fs = std::filesystem;
using torch::autograd::profiler::ProfilerConfig;
using torch::autograd::profiler::ProfilerState;

std::string scratch_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / ("mlprof_torch_" + std::string(name) + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir.string();
}

bool is_capture_event(const std::string& name) {
  return name == "inferred step" || name == "MemoryAllocation" || name == "MemoryDeallocation";
}

std::map<std::string, int> ops_recorded_by_mlprof(TinyNet& net, torch::optim::Optimizer& opt, int level,
                                                  std::vector<HostEvent>* events) {
  ProfilerOptions options;
  options.host_tracer_level = level;
  options.run_name = "ops";
  EXPECT_TRUE(start(scratch_dir("ops"), options).ok());
  train(net, opt, 3);
  const RunInfo run = stop();
  EXPECT_TRUE(run.status.ok()) << run.status.message();
  std::map<std::string, int> counts;
  for (HostEvent& e : read_host_events(run.xspace_path)) {
    if (!is_capture_event(e.name)) ++counts[e.name];
    events->push_back(std::move(e));
  }
  return counts;
}

std::map<std::string, int> ops_recorded_by_libtorch(TinyNet& net, torch::optim::Optimizer& opt) {
  torch::autograd::profiler::enableProfilerLegacy(ProfilerConfig(ProfilerState::CPU));
  train(net, opt, 3);
  std::map<std::string, int> counts;
  for (const auto& thread_events : torch::autograd::profiler::disableProfilerLegacy())
    for (const auto& e : thread_events)
      if (e.kindStr() == "push") ++counts[e.name()];
  return counts;
}

class TorchOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(0);
    train(net_, optimizer_, 1);  // lazy initialisation (optimizer state) happens outside the comparison
  }
  TinyNet net_;
  torch::optim::Adam optimizer_{net_->parameters(), torch::optim::AdamOptions(1e-3)};
};

TEST_F(TorchOpsTest, SameOpsAsLibTorchProfiler) {
  std::vector<HostEvent> events;
  const auto ours = ops_recorded_by_mlprof(net_, optimizer_, 2, &events);
  const auto theirs = ops_recorded_by_libtorch(net_, optimizer_);
  ASSERT_GT(theirs.size(), 20u);
  EXPECT_EQ(ours, theirs);
}

TEST_F(TorchOpsTest, OpsCarrySequenceNumbersAndBackwardLinks) {
  std::vector<HostEvent> events;
  ops_recorded_by_mlprof(net_, optimizer_, 2, &events);
  int forward_with_sequence = 0, backward_with_forward_thread = 0;
  for (const HostEvent& e : events) {
    if (e.name == "aten::conv2d" && e.has("sequence_number")) ++forward_with_sequence;
    if (e.name == "ConvolutionBackward0" && e.has("fwd_thread_id") && e.has("sequence_number"))
      ++backward_with_forward_thread;
  }
  EXPECT_EQ(forward_with_sequence, 3);
  EXPECT_EQ(backward_with_forward_thread, 3);
}

TEST_F(TorchOpsTest, Level3RecordsInputShapesAndTypes) {
  std::vector<HostEvent> events;
  ops_recorded_by_mlprof(net_, optimizer_, 3, &events);
  int addmm = 0;
  for (const HostEvent& e : events) {
    if (e.name != "aten::addmm") continue;
    // TensorFlow's form: element type and shape of each tensor input, then the scalars.
    EXPECT_EQ(e.stats.at("shape"), "(float[2],float[2,64],float[64,2],1,1)");
    ++addmm;
  }
  EXPECT_EQ(addmm, 3);
  // At level 2 the shapes are not taken (they cost LibTorch a copy of every op's inputs).
  events.clear();
  ops_recorded_by_mlprof(net_, optimizer_, 2, &events);
  for (const HostEvent& e : events) EXPECT_FALSE(e.has("shape")) << e.name;
}

// Each kind of input, on both sides of what the short path of the input encoding takes (dims
// below 64, ints in [-64, 64)): the text is the same either way. Expected values are
// TensorFlow's form of each op's inputs, as written by hand from the op's schema.
TEST(TorchInputShapes, EveryKindOfInputOnBothSidesOfTheShortPath) {
  const torch::Tensor wide = torch::zeros({4, 70}), small = torch::ones({63}), longs = torch::ones({2, 3}, torch::kLong);
  ProfilerOptions options;
  options.host_tracer_level = 3;
  options.run_name = "shapes";
  ASSERT_TRUE(start(scratch_dir("shapes"), options).ok());
  (void)wide.narrow(-1, 0, 1);                       // a dim of 70, then small negative and positive ints
  (void)at::add(small, small, 100);                  // dims of 63, then an int past the short path
  (void)at::add(small, small, -64);                  // the least int it takes
  (void)at::add(small, small, -64);                  // the same inputs again: repeated, not written
  (void)longs.sum(std::vector<int64_t>{0, 1}, true);  // an int list, a bool, a None (dtype)
  (void)at::mul(small, 2.5);                         // a double
  const RunInfo run = stop();
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  std::map<std::string, std::vector<std::string>> shapes;
  for (const HostEvent& e : read_host_events(run.xspace_path))
    if (e.has("shape")) shapes[e.name].push_back(e.stats.at("shape"));
  EXPECT_EQ(shapes["aten::narrow"], std::vector<std::string>{"(float[4,70],-1,0,1)"});
  EXPECT_EQ(shapes["aten::add"], (std::vector<std::string>{"(float[63],float[63],100)", "(float[63],float[63],-64)",
                                                             "(float[63],float[63],-64)"}));
  EXPECT_EQ(shapes["aten::sum"], std::vector<std::string>{"(int64[2,3],[0,1],true,)"});  // None is left empty
  ASSERT_FALSE(shapes["aten::mul"].empty());
  EXPECT_EQ(shapes["aten::mul"].front(), "(float[63],2.5)");
}

}  // namespace
}  // namespace mlprof::testing
