// `mlprof run` around a program's end: it reports the run the program wrote and no other,
// fails when the write failed, passes signals on and ends as the program did, takes the program
// down when it is killed, and refuses a run name another capture is writing.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "capture/signal_process.h"
#include "cli/cli_runner.h"

namespace fs = std::filesystem;
using mlprof::testing::run_mlprof;
using mlprof::testing::SignalProcess;

namespace {

class CliRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mlprof_run_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    logdir_ = (dir_ / "logs").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> xplane_files() const {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(logdir_, ec))
      if (e.path().string().ends_with(".xplane.pb")) files.push_back(e.path().string());
    return files;
  }

  // `mlprof run ARGS -- run_target TARGET_ARGS`, started and left running.
  std::unique_ptr<SignalProcess> start(const std::string& target_args) {
    std::vector<std::string> argv{mlprof::testing::mlprof_binary(), "run", "--logdir", logdir_, "--", MLPROF_RUN_TARGET};
    for (size_t at = 0; at < target_args.size();) {
      const size_t space = target_args.find(' ', at);
      argv.push_back(target_args.substr(at, space - at));
      at = space == std::string::npos ? target_args.size() : space + 1;
    }
    return std::make_unique<SignalProcess>(argv, std::vector<std::string>{}, (dir_ / "err.txt").string());
  }

  fs::path dir_;
  std::string logdir_;
};

bool process_gone(pid_t pid, std::chrono::seconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    if (!(stat >> pid_field >> name >> state) || state == "Z") return true;  // gone, or ended and not yet reaped
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A write that fails at the program's exit (its logdir became a file): one line says why,
// mlprof run exits 2 although the program exited 0, and the older run is not offered.
TEST_F(CliRun, AFailedWriteIsNonZeroAndPointsAtNoOlderRun) {
  ASSERT_EQ(run_mlprof("run --logdir " + logdir_ + " --run-name older -- " + MLPROF_RUN_TARGET + " sleep-ms 0").exit_code, 0);
  const auto r = run_mlprof("run --logdir " + logdir_ + " -- " + MLPROF_RUN_TARGET + " remove " + logdir_);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("mlprof: cannot create directory " + logdir_), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("read the profile"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1 + int(r.err.find("not installed") != std::string::npos)) << r.err;
}

// The hint names the run this program wrote, not the newest by name.
TEST_F(CliRun, TheHintNamesTheRunWritten) {
  ASSERT_EQ(run_mlprof("run --logdir " + logdir_ + " --run-name zzz_sorts_last -- " + MLPROF_RUN_TARGET + " sleep-ms 0").exit_code, 0);
  const auto r = run_mlprof("run --logdir " + logdir_ + " -- " + MLPROF_RUN_TARGET + " sleep-ms 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto files = xplane_files();
  ASSERT_EQ(files.size(), 2u);
  const std::string written = fs::path(files[0]).parent_path().filename() == "zzz_sorts_last"
                                  ? fs::path(files[1]).parent_path().string()
                                  : fs::path(files[0]).parent_path().string();
  EXPECT_NE(r.err.find("mlprof run: read the profile with: mlprof report " + written + "\n"), std::string::npos) << r.err;
}

// --python-tracer-level reaches the program as MLPROF_PYTHON_TRACER_LEVEL, which the mlprof
// Python package reads (tests/python/test_run_python_tracer.py runs a Python program so); not
// given, the program's environment decides.
TEST_F(CliRun, ThePythonTracerLevelReachesTheProgram) {
  const std::string target = std::string(" -- ") + MLPROF_RUN_TARGET + " env MLPROF_PYTHON_TRACER_LEVEL";
  auto r = run_mlprof("run --logdir " + logdir_ + " --python-tracer-level 1" + target);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  r = run_mlprof("run --logdir " + logdir_ + target);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "unset\n");
  r = run_mlprof("run --logdir " + logdir_ + " --python-tracer-level 2" + target);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--python-tracer-level"), std::string::npos) << r.err;
}

// SIGTERM (a scheduler's) and SIGINT sent to mlprof run: the program gets it, writes its run and
// ends by it, and so does mlprof run.
TEST_F(CliRun, SignalsGoOnToTheProgramAndMlprofRunEndsAsItDid) {
  for (int signal : {SIGTERM, SIGINT, SIGHUP}) {
    fs::remove_all(logdir_);
    auto run = start("wait");
    ASSERT_TRUE(run->wait_for_line("ready")) << run->stderr_text();
    run->send(signal);
    const int status = run->wait();
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "signal " << signal << ": status " << status;
    const auto files = xplane_files();
    ASSERT_EQ(files.size(), 1u) << run->stderr_text();
    EXPECT_NE(run->stderr_text().find("read the profile with: mlprof report " + fs::path(files[0]).parent_path().string()),
              std::string::npos)
        << run->stderr_text();
  }
}

// SIGKILL of mlprof run (which cannot pass it on) takes the program down: it gets SIGTERM and
// writes its run, rather than running on without mlprof.
TEST_F(CliRun, KillingMlprofRunEndsTheProgram) {
  auto run = start("wait");
  ASSERT_TRUE(run->wait_for_line("ready")) << run->stderr_text();
  const std::string out = run->all_output(std::chrono::milliseconds(100));
  const pid_t program = pid_t(std::stol(out));
  ASSERT_GT(program, 0) << out;
  run->send(SIGKILL);
  run->wait();
  EXPECT_TRUE(process_gone(program, std::chrono::seconds(30))) << "the program runs on";
  for (int i = 0; i < 100 && xplane_files().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(xplane_files().size(), 1u);
}

// Two `mlprof run --run-name same` at once: one runs, the other is refused in one line before
// its program starts.
TEST_F(CliRun, TwoRunsNamingOneRunAtOnceOneIsRefused) {
  std::vector<std::string> argv{mlprof::testing::mlprof_binary(), "run", "--logdir", logdir_, "--run-name", "same",
                                "--", MLPROF_RUN_TARGET, "sleep-ms", "1000"};
  SignalProcess a(argv, {}, (dir_ / "a.txt").string());
  // Once a's program holds the name (its reservation file is there), b asks for it.
  const auto reserved = [&] {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(logdir_ + "/plugins/profile", ec))
      if (e.path().filename().string().starts_with(".same.")) return true;
    return false;
  };
  for (int i = 0; i < 1000 && !reserved(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(reserved()) << a.stderr_text();
  SignalProcess b(argv, {}, (dir_ / "b.txt").string());
  const int status_b = b.wait(), status_a = a.wait();
  EXPECT_TRUE(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0) << a.stderr_text();
  EXPECT_TRUE(WIFEXITED(status_b) && WEXITSTATUS(status_b) == 2) << b.stderr_text();
  EXPECT_NE(b.stderr_text().find("mlprof run: --run-name same: taken: process "), std::string::npos) << b.stderr_text();
  EXPECT_EQ(xplane_files().size(), 1u);
}

}  // namespace
