// `mlprof capture` as a user runs it, against real worker processes, then `mlprof report
// --tool pod_viewer` on what it wrote.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cli/cli_runner.h"
#include "format/scratch_dir.h"
#include "rpc/worker_process.h"

namespace mlprof {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::WorkerProcess;
using testing::run_mlprof;

bool has_profile_empty_event_file(const std::string& logdir) {
  for (const auto& entry : fs::directory_iterator(logdir))
    if (entry.path().string().ends_with(".profile-empty")) return true;
  return false;
}

TEST(CaptureCommand, CapturesThreeWorkersIntoOneRunThatThePodViewerShows) {
  ScratchDir dir;
  WorkerProcess a({}), b({}), c({});
  const std::string logdir = dir / "logs";
  const auto capture = run_mlprof("capture grpc://" + a.address() + "," + b.address() + "," + c.address() +
                                  " --logdir " + logdir + " --duration-ms 500 --retries 1");
  ASSERT_EQ(capture.exit_code, 0) << capture.out << capture.err;
  EXPECT_NE(capture.out.find("3 of 3 workers captured"), std::string::npos) << capture.out;
  for (const auto* w : {&a, &b, &c}) EXPECT_NE(capture.out.find(w->address()), std::string::npos) << capture.out;
  EXPECT_TRUE(has_profile_empty_event_file(logdir));

  const auto report = run_mlprof("report " + logdir + " --tool pod_viewer --format json");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto pod = nlohmann::json::parse(report.out);
  EXPECT_EQ(pod["worker_count"], 3);
  ASSERT_EQ(pod["workers"].size(), 3u);
  for (const auto& w : pod["workers"]) EXPECT_GT(w["step_count"].get<int>(), 0) << w.dump();
  EXPECT_FALSE(pod["slowest_worker"].is_null());

  const auto text = run_mlprof("report " + logdir + " --tool pod_viewer");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Slowest worker"), std::string::npos) << text.out;
}

TEST(CaptureCommand, DeadWorkerFailsTheExitCodeAndIsNamed) {
  ScratchDir dir;
  WorkerProcess alive({}), dead({});
  dead.kill();
  const auto capture = run_mlprof("capture " + alive.address() + "," + dead.address() + " --logdir " + dir.path() +
                                  " --duration-ms 200 --retries 0");
  EXPECT_EQ(capture.exit_code, 2) << capture.out << capture.err;
  EXPECT_NE(capture.out.find("1 of 2 workers captured"), std::string::npos) << capture.out;
  EXPECT_NE(capture.err.find(dead.address()), std::string::npos) << capture.err;
  EXPECT_EQ(capture.err.find(alive.address()), std::string::npos) << capture.err;
}

// A port with nothing listening: the table says "failed" and the error comes once, whole, on
// stderr, however narrow the terminal.
TEST(CaptureCommand, UnreachableWorkerErrorIsShownOnceWhole) {
  ScratchDir dir;
  ::setenv("COLUMNS", "60", 1);
  const auto capture = run_mlprof("capture 127.0.0.1:1 --logdir " + dir.path() + " --duration-ms 100 --retries 0");
  ::unsetenv("COLUMNS");
  EXPECT_EQ(capture.exit_code, 2) << capture.out << capture.err;
  EXPECT_NE(capture.out.find("failed"), std::string::npos) << capture.out;
  EXPECT_EQ(capture.out.find("unavailable"), std::string::npos) << capture.out;
  EXPECT_EQ(std::count(capture.err.begin(), capture.err.end(), '\n'), 1) << capture.err;
  EXPECT_EQ(capture.err.rfind("mlprof: capture: 127.0.0.1:1: unavailable (is the worker running", 0), 0u)
      << capture.err;
}

TEST(CaptureCommand, BadAddressesAreUsageErrors) {
  ScratchDir dir;
  const auto no_port = run_mlprof("capture localhost --logdir " + dir.path() + " --duration-ms 100");
  EXPECT_EQ(no_port.exit_code, 1);
  EXPECT_NE(no_port.err.find("HOST:PORT"), std::string::npos) << no_port.err;
  const auto no_duration = run_mlprof("capture localhost:1 --logdir " + dir.path());
  EXPECT_EQ(no_duration.exit_code, 1);
}

}  // namespace
}  // namespace mlprof
