// The step-range policy (Keras' profile_batch) and auto-stop after a duration.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "mlprof/mlprof.h"

namespace mlprof {
namespace {

using testing::host_events;
using testing::read_run;

ProfilerOptions options() {
  ProfilerOptions o;
  o.run_name = "run";
  o.host_name = "testhost";
  return o;
}

ProfilerOptions step_range(int64_t first, int64_t last) {
  ProfilerOptions o = options();
  o.first_step = first;
  o.last_step = last;
  return o;
}

// The writer thread writes the run on its own; wait for the file to appear.
bool wait_for_file(const std::string& path) {
  for (int i = 0; i < 500; ++i) {
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(StepRange, RecordsFromTheStartOfStepAToTheEndOfStepB) {
  testing::ScratchDir dir;
  const ProfilerOptions o = step_range(3, 5);
  ASSERT_TRUE(start(dir.path(), o).ok());
  EXPECT_TRUE(is_active());
  for (int64_t step = 0; step < 10; ++step) {
    { MLPROF_TRACE("between_steps"); }
    StepTrace s("train", step);
    MLPROF_TRACE("work");
  }
  // Written in the background once step 5 ended, before stop().
  EXPECT_TRUE(wait_for_file(dir / "plugins/profile/run/testhost.xplane.pb"));
  const RunInfo run = stop();
  const auto events = host_events(read_run(run));
  std::vector<int64_t> steps;
  int work = 0, other = 0;
  for (const auto& e : events) {
    if (e.name == "train") steps.push_back(e.stats.at("step_num").int64_value());
    else if (e.name == "work") ++work;
    else ++other;
  }
  EXPECT_EQ(steps, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(work, 3);
  // Work between steps 3 and 5 is recorded too: before steps 4 and 5.
  EXPECT_EQ(other, 2);
}

TEST(StepRange, ARangeThatNeverComesIsAWarning) {
  testing::ScratchDir dir;
  const ProfilerOptions o = step_range(100, 101);
  ASSERT_TRUE(start(dir.path(), o).ok());
  for (int64_t step = 0; step < 5; ++step) StepTrace s("train", step);
  const auto space = read_run(stop());
  EXPECT_TRUE(host_events(space).empty());
  ASSERT_EQ(space.warnings_size(), 1);
  EXPECT_NE(space.warnings(0).find("100..101"), std::string::npos) << space.warnings(0);
}

TEST(StepRange, InvalidRangeIsRejected) {
  testing::ScratchDir dir;
  const ProfilerOptions o = step_range(5, 2);
  const Status s = start(dir.path(), o);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(is_active());
}

TEST(Duration, SessionStopsOnItsOwn) {
  testing::ScratchDir dir;
  ProfilerOptions o = options();
  o.duration_ms = 50;
  ASSERT_TRUE(start(dir.path(), o).ok());
  // Keep annotating until the session has written itself (generous: machines get busy).
  const std::string file = dir / "plugins/profile/run/testhost.xplane.pb";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!std::filesystem::exists(file) && std::chrono::steady_clock::now() < give_up) {
    for (int i = 0; i < 100; ++i) MLPROF_TRACE("busy");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  const RunInfo run = stop();
  const auto space = read_run(run);
  const auto* env = testing::find_plane(space, "Task Environment");
  ASSERT_NE(env, nullptr);
  const uint64_t start_ns = env->stats(0).uint64_value(), stop_ns = env->stats(1).uint64_value();
  EXPECT_GE(stop_ns - start_ns, 50'000'000u);
  EXPECT_GT(run.events, 0u);
}

// A session that ends on its own is over once its run is written; wait for that.
bool wait_until_inactive() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (is_active() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return !is_active();
}

std::vector<int64_t> steps_of(const RunInfo& run) {
  std::vector<int64_t> steps;
  for (const auto& e : host_events(read_run(run))) {
    if (e.name == "train") steps.push_back(e.stats.at("step_num").int64_value());
  }
  return steps;
}

void train(int64_t steps) {
  for (int64_t step = 0; step < steps; ++step) {
    StepTrace s("train", step);
    MLPROF_TRACE("work");
  }
}

TEST(StepRange, ACompleteRangeEndsTheSessionAndStopStillReturnsItsRun) {
  testing::ScratchDir dir;
  const ProfilerOptions o = step_range(1, 2);
  ASSERT_TRUE(start(dir.path(), o).ok());
  train(5);
  ASSERT_TRUE(wait_until_inactive());
  EXPECT_TRUE(std::filesystem::exists(dir / "plugins/profile/run/testhost.xplane.pb"));
  const RunInfo run = stop();
  EXPECT_EQ(run.xspace_path, dir / "plugins/profile/run/testhost.xplane.pb");
  EXPECT_EQ(steps_of(run), (std::vector<int64_t>{1, 2}));
  // Collected once: a second stop() has no session.
  const RunInfo again = stop();
  EXPECT_FALSE(again.status.ok());
  EXPECT_NE(again.status.message().find("no profiling session is running"), std::string::npos);
}

TEST(StepRange, ANewSessionStartsRightAfterTheRangeWithoutStop) {
  testing::ScratchDir dir;
  const ProfilerOptions o = step_range(0, 1);
  ASSERT_TRUE(start(dir.path(), o).ok());
  train(2);
  // No wait and no stop(): the ended session may still be writing its run.
  ProfilerOptions second = options();
  second.run_name = "second";
  const Status status = start(dir.path(), second);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(is_active());
  train(3);
  const RunInfo run = stop();
  EXPECT_EQ(run.run_dir, dir / "plugins/profile/second");
  EXPECT_EQ(steps_of(run), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_FALSE(is_active());
  // The first session's run was written whole all the same.
  RunInfo first;
  first.xspace_path = dir / "plugins/profile/run/testhost.xplane.pb";
  EXPECT_EQ(steps_of(first), (std::vector<int64_t>{0, 1}));
}

TEST(Duration, TheSessionEndsAndANewOneStarts) {
  testing::ScratchDir dir;
  ProfilerOptions o = options();
  o.duration_ms = 20;
  ASSERT_TRUE(start(dir.path(), o).ok());
  ASSERT_TRUE(wait_until_inactive());
  EXPECT_TRUE(std::filesystem::exists(dir / "plugins/profile/run/testhost.xplane.pb"));
  ProfilerOptions second = options();
  second.run_name = "second";
  ASSERT_TRUE(start(dir.path(), second).ok());
  EXPECT_EQ(stop().run_dir, dir / "plugins/profile/second");
  EXPECT_FALSE(stop().status.ok());  // the first session's run was let go by the second start()
}

// stop() may come just before, while or after the session ends on its own thread: each time it
// returns the one run, and the session is over.
TEST(Duration, StopRacingTheSessionsOwnEndReturnsItsRun) {
  testing::ScratchDir dir;
  for (int i = 0; i < 40; ++i) {
    ProfilerOptions o = options();
    o.run_name = "run" + std::to_string(i);
    o.duration_ms = 2;
    ASSERT_TRUE(start(dir.path(), o).ok());
    std::this_thread::sleep_for(std::chrono::microseconds(100 * i));  // 0 to 4 ms
    const RunInfo run = stop();
    ASSERT_TRUE(run.status.ok()) << run.status.message();
    EXPECT_EQ(run.xspace_path, dir / ("plugins/profile/run" + std::to_string(i) + "/testhost.xplane.pb"));
    EXPECT_TRUE(std::filesystem::exists(run.xspace_path));
    EXPECT_FALSE(is_active());
  }
}

}  // namespace
}  // namespace mlprof
