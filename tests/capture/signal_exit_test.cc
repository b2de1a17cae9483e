// A session is written when SIGINT, SIGTERM or SIGHUP ends the program, and the program then
// ends by that signal, as without mlprof; a run name is taken by one capture at a time.
// Real processes (signal_child.cc), signalled and read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "capture/signal_process.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"

namespace mlprof {
namespace {

namespace fs = std::filesystem;
using testing::SignalProcess;

std::vector<std::string> files_under(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (entry.path().string().ends_with(suffix)) files.push_back(entry.path().string());
  }
  return files;
}

// Events per name in one XSpace file; {"": -1} when it cannot be read.
std::map<std::string, int> event_counts(const std::string& path) {
  tensorflow::profiler::XSpace space;
  std::string error;
  if (!format::read_xspace(path, &space, &error)) return {{"", -1}};
  std::map<std::string, int> counts;
  for (const auto& plane : space.planes()) {
    for (const auto& line : plane.lines()) {
      for (const auto& e : line.events()) ++counts[plane.event_metadata().at(e.metadata_id()).name()];
    }
  }
  return counts;
}

int lines_in(const std::string& text) { return int(std::count(text.begin(), text.end(), '\n')); }

std::string signal_name(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : signal == SIGHUP ? "SIGHUP" : "?";
}

struct Case {
  int signal;
  const char* how;  // "program": mlprof::start; "environment": MLPROF_LOGDIR
};

class SignalEndsTheProgram : public ::testing::TestWithParam<Case> {};

TEST_P(SignalEndsTheProgram, TheRunIsWrittenAndTheProgramEndsByTheSignal) {
  const Case c = GetParam();
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const bool environment = std::string(c.how) == "environment";
  SignalProcess child(environment ? std::vector<std::string>{MLPROF_SIGNAL_CHILD, "environment"}
                                  : std::vector<std::string>{MLPROF_SIGNAL_CHILD, "program", logdir},
                      environment ? std::vector<std::string>{"MLPROF_LOGDIR=" + logdir} : std::vector<std::string>{},
                      dir / "err.txt");
  ASSERT_TRUE(child.wait_for_line("ready")) << child.stderr_text();
  child.send(c.signal);
  const int status = child.wait();
  ASSERT_NE(status, -1) << "the program did not end";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == c.signal) << "status " << status;
  const auto files = files_under(logdir, ".xplane.pb");
  ASSERT_EQ(files.size(), 1u) << child.stderr_text();
  EXPECT_EQ(event_counts(files[0])["before_signal"], 1000);
  EXPECT_TRUE(files_under(logdir, ".tmp").empty());
  EXPECT_TRUE(files_under(logdir, ".lock").empty());
  const std::string err = child.stderr_text();
  EXPECT_EQ(lines_in(err), 1) << err;
  EXPECT_NE(err.find("got " + signal_name(c.signal) + " during a profiling session: wrote " + files[0]),
            std::string::npos)
      << err;
}

INSTANTIATE_TEST_SUITE_P(Signals, SignalEndsTheProgram,
                         ::testing::Values(Case{SIGINT, "program"}, Case{SIGTERM, "program"}, Case{SIGHUP, "program"},
                                           Case{SIGINT, "environment"}, Case{SIGTERM, "environment"}),
                         [](const auto& info) { return signal_name(info.param.signal).substr(3) + "_" + info.param.how; });

// A program that handles SIGTERM itself keeps it: it returns from main(), and the exit writes the run.
TEST(SignalTheProgramHandles, IsLeftToTheProgramAndTheRunIsWrittenAtExit) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  SignalProcess child({MLPROF_SIGNAL_CHILD, "own-handler", logdir}, {}, dir / "err.txt");
  ASSERT_TRUE(child.wait_for_line("ready")) << child.stderr_text();
  child.send(SIGTERM);
  const int status = child.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << ": " << child.stderr_text();
  const auto files = files_under(logdir, ".xplane.pb");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(event_counts(files[0])["before_signal"], 1000);
  EXPECT_NE(child.stderr_text().find("the program exited during a profiling session: wrote"), std::string::npos);
}

// The same signal twice within a second (sent to mlprof run and to its process group, say) is
// one request: the run is written.
TEST(SecondSignal, TheSameSignalAtOnceIsOneRequest) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  SignalProcess child({MLPROF_SIGNAL_CHILD, "big", logdir}, {}, dir / "err.txt");
  ASSERT_TRUE(child.wait_for_line("ready", std::chrono::seconds(60))) << child.stderr_text();
  child.send(SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  child.send(SIGTERM);
  const int status = child.wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  const auto files = files_under(logdir, ".xplane.pb");
  ASSERT_EQ(files.size(), 1u) << child.stderr_text();
  EXPECT_EQ(event_counts(files[0])["before_signal"], 1000);
  EXPECT_EQ(child.stderr_text().find("abandoned"), std::string::npos) << child.stderr_text();
}

// Another signal during the write abandons it: the program ends at once, by a signal, and leaves
// no torn file: either the whole run (the write was done) or nothing of it.
TEST(SecondSignal, AnotherSignalDuringTheWriteLeavesNoTornFile) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  SignalProcess child({MLPROF_SIGNAL_CHILD, "big", logdir}, {}, dir / "err.txt");
  ASSERT_TRUE(child.wait_for_line("ready", std::chrono::seconds(60))) << child.stderr_text();
  child.send(SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  child.send(SIGINT);
  const int status = child.wait();
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  const std::string err = child.stderr_text();
  EXPECT_EQ(lines_in(err), 1) << err;
  const auto files = files_under(logdir, ".xplane.pb");
  if (err.find("abandoned") != std::string::npos) {
    EXPECT_TRUE(files.empty());
    EXPECT_TRUE(files_under(logdir, ".tmp").empty());
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(logdir + "/plugins/profile", ec))
      ADD_FAILURE() << "left behind: " << entry.path();
  } else {
    ASSERT_EQ(files.size(), 1u) << err;
    EXPECT_EQ(event_counts(files[0])["bulk"], 4'000'000);
  }
}

// Two programs that start a session with the same run_name at once: one takes it, the other is
// refused in one line, and the one run holds the first one's profile.
TEST(RunName, TwoCapturesNamingOneRunAtOnceOneIsRefused) {
  for (int trial = 0; trial < 10; ++trial) {
    testing::ScratchDir dir;
    const std::string logdir = dir / "logs";
    SignalProcess first({MLPROF_SIGNAL_CHILD, "named", logdir, "same"}, {}, dir / "err1.txt");
    SignalProcess second({MLPROF_SIGNAL_CHILD, "named", logdir, "same"}, {}, dir / "err2.txt");
    const std::string out = first.all_output() + second.all_output();
    const int status1 = first.wait(), status2 = second.wait();
    ASSERT_TRUE(WIFEXITED(status1) && WIFEXITED(status2));
    EXPECT_NE(out.find("start: ok\nstop: ok\n"), std::string::npos) << out;
    EXPECT_NE(out.find("start: mlprof::start: run_name 'same' is taken: "), std::string::npos) << out;
    EXPECT_EQ(lines_in(out), 3) << out;
    const auto files = files_under(logdir, ".xplane.pb");
    ASSERT_EQ(files.size(), 1u) << "trial " << trial;
    EXPECT_EQ(event_counts(files[0])["named_work"], 10);
    EXPECT_TRUE(files_under(logdir, ".lock").empty());
  }
}

}  // namespace
}  // namespace mlprof
