// Steps: a program that marks them (StepTrace) keeps its own; one that marks none gets them
// inferred from its training loop, numbered by iteration, nesting its ops.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "mlprof/mlprof.h"
#include "mlprof/torch.h"
#include "tiny_model.h"
#include "xspace_events.h"

namespace mlprof::testing {
namespace {

namespace fs = std::filesystem;

std::vector<HostEvent> run_session(const std::function<void()>& body) {
  const fs::path dir = fs::temp_directory_path() / ("mlprof_torch_steps_" + std::to_string(getpid()));
  fs::remove_all(dir);
  EXPECT_TRUE(start(dir.string()).ok());
  body();
  const RunInfo run = stop();
  EXPECT_TRUE(run.status.ok()) << run.status.message();
  std::vector<HostEvent> events = read_host_events(run.xspace_path);
  fs::remove_all(dir);
  return events;
}

TEST(TorchSteps, ProgramStepMarkersAreKept) {
  TinyNet net;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01));
  const auto events = run_session([&] {
    for (int64_t step = 0; step < 4; ++step) {
      StepTrace s("train", step);
      train(net, optimizer, 1);
    }
  });
  std::set<int64_t> train_steps;
  for (const HostEvent& e : events) {
    EXPECT_NE(e.name, "inferred step");
    if (e.name == "train") train_steps.insert(e.number("step_num"));
  }
  EXPECT_EQ(train_steps, (std::set<int64_t>{0, 1, 2, 3}));
}

TEST(TorchSteps, InferredFromTheTrainingLoop) {
  TinyNet net;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01));
  const auto events = run_session([&] { train(net, optimizer, 5); });
  std::vector<const HostEvent*> steps;
  for (const HostEvent& e : events)
    if (e.name == "inferred step") steps.push_back(&e);
  // Iterations 1 to 3 end inside the session (the first begins before any backward pass is
  // seen, the last has no next one to end it).
  ASSERT_EQ(steps.size(), 3u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i]->number("step_num"), int64_t(i + 1));
    EXPECT_EQ(steps[i]->number("_r"), 1);
  }
  // Each step holds one forward convolution and its backward pass.
  for (const HostEvent* s : steps) {
    int conv = 0, conv_backward = 0;
    for (const HostEvent& e : events) {
      if (e.line_id != s->line_id || e.begin_ps < s->begin_ps || e.end_ps > s->end_ps) continue;
      conv += e.name == "aten::conv2d";
      conv_backward += e.name == "ConvolutionBackward0";
    }
    EXPECT_EQ(conv, 1);
    EXPECT_EQ(conv_backward, 1);
  }
}

}  // namespace
}  // namespace mlprof::testing
