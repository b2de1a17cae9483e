// Faults around a session: the program exits with it running, the logdir cannot be
// written, the file size limit is too small, and the program forks.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "capture/load_scale.h"
#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"
#include "mlprof/mlprof.h"

// A child forked from this multi-threaded test must not die at once under ThreadSanitizer,
// nor sleep the second it waits at exit by default. It does nothing else there (forked_child):
// GCC 12's ThreadSanitizer runtime does not hold its allocator and stack depot across fork
// (LLVM added that in 2024, pull request 96600), so a child that allocates can wait forever
// on a lock a parent thread held, and a thread created in the child breaks its bookkeeping
// ("dup thread with used id"). The plain build runs the child's checks.
extern "C" const char* __tsan_default_options() { return "die_after_fork=0:atexit_sleep_ms=0"; }

namespace mlprof {
namespace {

namespace fs = std::filesystem;

struct ChildResult {
  int exit_code = -1;  // -1: ended by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ChildResult run_child(const std::string& args, const testing::ScratchDir& dir) {
  const std::string command = "env -u MLPROF_LOGDIR -u MLPROF_STEPS -u MLPROF_DURATION_MS '" +
                              std::string(MLPROF_FAULT_CHILD) + "' " + args + " >'" + (dir / "out.txt") +
                              "' 2>'" + (dir / "err.txt") + "'";
  ChildResult r;
  const int status = std::system(command.c_str());
  if (WIFEXITED(status)) {
    // The shell reports a child ended by signal N as exit status 128 + N.
    if (WEXITSTATUS(status) > 128) r.signal = WEXITSTATUS(status) - 128;
    else r.exit_code = WEXITSTATUS(status);
  }
  r.out = read_all(dir / "out.txt");
  r.err = read_all(dir / "err.txt");
  return r;
}

std::vector<std::string> files_under(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
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

// exit(), a return from main(), exit() from another thread and quick_exit(), each with a
// session running and a thread still annotating: the run is written and stderr says so in
// one line.
class AtExit : public ::testing::TestWithParam<const char*> {};

TEST_P(AtExit, TheRunIsWrittenAndStderrSaysSo) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const ChildResult child = run_child(std::string(GetParam()) + " '" + logdir + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.err;
  const std::string path = logdir + "/plugins/profile/at_exit/child.xplane.pb";
  EXPECT_EQ(files_under(logdir, ".xplane.pb"), std::vector<std::string>{path});
  EXPECT_TRUE(files_under(logdir, ".tmp").empty());
  const auto counts = event_counts(path);
  EXPECT_EQ(counts.count(""), 0u) << path << " is not readable";
  EXPECT_EQ(counts.count("main_work") ? counts.at("main_work") : 0, 500);
  EXPECT_EQ(lines_in(child.err), 1) << child.err;
  EXPECT_TRUE(child.err.starts_with("mlprof: the program exited during a profiling session: wrote " + path + " ("))
      << child.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, AtExit, ::testing::Values("exit", "return", "exit-thread", "quick-exit"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

TEST(AtExitFault, ALogdirThatBecameUnwritableIsOneLineOnStderr) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const ChildResult child = run_child("exit-logdir-gone '" + logdir + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.err;
  EXPECT_EQ(lines_in(child.err), 1) << child.err;
  EXPECT_TRUE(child.err.starts_with("mlprof: the program exited during a profiling session, which could not be "
                                    "written: cannot create directory " + logdir + ": "))
      << child.err;
}

TEST(WriteFault, AnUnwritableLogdirIsRefusedAtStartAndTheProgramGoesOn) {
  testing::ScratchDir dir;
  std::ofstream(dir / "file") << "x";
  const std::string logdir = dir / "file/logs";  // beneath a regular file: even root cannot
  const std::string good = dir / "good";
  const ChildResult child = run_child("unwritable '" + logdir + "' '" + good + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.err;
  EXPECT_EQ(child.out, "start: mlprof::start: cannot write to the logdir " + logdir + ": Not a directory\n"
                       "again: ok (10 events)\ndone\n");
  EXPECT_EQ(child.err, "");
  EXPECT_EQ(event_counts(good + "/plugins/profile/again/child.xplane.pb"), (std::map<std::string, int>{{"again_work", 10}}));
}

TEST(WriteFault, ALogdirThatBecameUnwritableIsReportedAtStopAndTheProgramGoesOn) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const std::string good = dir / "good";
  const ChildResult child = run_child("logdir-gone '" + logdir + "' '" + good + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.err;
  EXPECT_TRUE(child.out.starts_with("stop: mlprof: cannot create directory " + logdir + ": ")) << child.out;
  EXPECT_TRUE(child.out.ends_with(" (0 events)\nagain: ok (10 events)\ndone\n")) << child.out;
  EXPECT_EQ(lines_in(child.out), 3) << child.out;
  EXPECT_EQ(child.err, "");
  EXPECT_EQ(event_counts(good + "/plugins/profile/again/child.xplane.pb"), (std::map<std::string, int>{{"again_work", 10}}));
}

// mlprof::Profile, the README's C++ example: a session that cannot start, or whose run cannot be
// written, is said in one line on stderr; status() says so; the program goes on.
TEST(ProfileScope, AFailedStartIsOneLineOnStderr) {
  testing::ScratchDir dir;
  std::ofstream(dir / "file") << "x";
  const std::string logdir = dir / "file/logs";
  const ChildResult child = run_child("profile-unwritable '" + logdir + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.err;
  EXPECT_EQ(child.out, "status: failed\ndone\n");
  EXPECT_EQ(child.err, "mlprof::Profile: not profiling: cannot write to the logdir " + logdir + ": Not a directory\n");
}

TEST(ProfileScope, AFailedWriteIsOneLineOnStderr) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const ChildResult child = run_child("profile-logdir-gone '" + logdir + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.err;
  EXPECT_EQ(child.out, "status: ok\ndone\n");
  EXPECT_EQ(lines_in(child.err), 1) << child.err;
  EXPECT_TRUE(child.err.starts_with("mlprof::Profile: cannot create directory " + logdir)) << child.err;
}

// A full disk, simulated by a file size limit (ulimit -f) the profile exceeds: with SIGXFSZ
// ignored (writes fail with EFBIG) or left alone (a write past the limit ends the program).
class FileLimit : public ::testing::TestWithParam<const char*> {};

TEST_P(FileLimit, TheWriteFailsCleanlyAndTheProgramGoesOn) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const std::string good = dir / "good";
  const ChildResult child =
      run_child("file-limit '" + logdir + "' '" + good + "' " + GetParam(), dir);
  ASSERT_EQ(child.exit_code, 0) << "signal " << child.signal << "\n" << child.out << child.err;
  const std::string path = logdir + "/plugins/profile/too_big/child.xplane.pb";
  const std::string first_line = child.out.substr(0, child.out.find('\n'));
  EXPECT_TRUE(first_line.starts_with("stop: mlprof: cannot write " + path + ": the profile (")) << first_line;
  EXPECT_TRUE(first_line.ends_with(" bytes) is larger than the file size limit (ulimit -f: 65536 bytes) (0 events)"))
      << first_line;
  EXPECT_EQ(child.out.substr(first_line.size() + 1), "again: ok (10 events)\ndone\n");
  // Nothing that looks like a profile, not even an empty run directory.
  EXPECT_TRUE(files_under(logdir, ".xplane.pb").empty());
  EXPECT_TRUE(files_under(logdir, ".tmp").empty());
  EXPECT_FALSE(fs::exists(logdir + "/plugins/profile/too_big"));
  EXPECT_EQ(event_counts(good + "/plugins/profile/again/child.xplane.pb"), (std::map<std::string, int>{{"again_work", 10}}));
}

INSTANTIATE_TEST_SUITE_P(Sigxfsz, FileLimit, ::testing::Values("ignore", "default"));

// --- fork() ---

ProfilerOptions options(const std::string& run_name) {
  ProfilerOptions o;
  o.run_name = run_name;
  o.host_name = "testhost";
  return o;
}

// Waits for a child; kills it and says so if it takes longer than `limit`.
int wait_child(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;  // hung
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The child's part: the parent's session is not its own; it may profile on its own. Exit
// codes say which step failed.
[[noreturn]] void forked_child(const std::string& logdir) {
  if (testing::kUnderThreadSanitizer) _exit(0);  // see __tsan_default_options above
  if (is_active()) std::exit(10);
  for (int i = 0; i < 100; ++i) MLPROF_TRACE("child_before_start");  // recorded nowhere
  if (stop().status.ok()) std::exit(11);                              // no session to stop
  if (!start(logdir, options("child")).ok()) std::exit(12);
  for (int i = 0; i < 100; ++i) MLPROF_TRACE("child_work");
  const RunInfo run = stop();
  if (!run.status.ok()) std::exit(13);
  if (run.events != 100) std::exit(14);
  // LeakSanitizer would check the child at exit, and find what the parent's other threads
  // held when it forked (their stacks are not in the child): not leaks of the child's.
  if (testing::kUnderSanitizer) _exit(0);
  std::exit(0);  // runs the library's exit handler too: it must write nothing
}

TEST(Fork, TheChildNeitherWritesTheParentsRunNorHangs) {
  constexpr int kWriters = 4;
  const int per_writer = testing::load_size(20000, 4000);
  constexpr int kForks = 5;
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir / "parent", options("parent")).ok());
  std::atomic<int> writers_started{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      writers_started.fetch_add(1);
      for (int i = 0; i < per_writer; ++i) {
        MLPROF_TRACE("parent_work");
        if (i % 64 == 0) std::this_thread::yield();  // spread the writing over the forks
      }
    });
  }
  while (writers_started.load() < kWriters) std::this_thread::yield();
  std::vector<int> child_results;
  for (int f = 0; f < kForks; ++f) {
    MLPROF_TRACE("parent_fork");
    const pid_t pid = fork();
    if (pid == 0) forked_child(dir / ("child" + std::to_string(f)));
    ASSERT_GT(pid, 0);
    child_results.push_back(wait_child(pid, std::chrono::seconds(60)));
  }
  for (auto& t : writers) t.join();
  const RunInfo run = stop();
  EXPECT_EQ(child_results, std::vector<int>(kForks, 0)) << "-2: hung; 10-14: see forked_child";
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_EQ(run.dropped, 0u);
  EXPECT_EQ(event_counts(run.xspace_path),
            (std::map<std::string, int>{{"parent_fork", kForks}, {"parent_work", kWriters * per_writer}}));
  EXPECT_EQ(files_under(dir / "parent", ".xplane.pb").size(), 1u);
  if (testing::kUnderThreadSanitizer) return;  // the children started no session
  for (int f = 0; f < kForks; ++f) {
    const std::string child_dir = dir / ("child" + std::to_string(f));
    EXPECT_EQ(files_under(child_dir, ".xplane.pb"), std::vector<std::string>{child_dir + "/plugins/profile/child/testhost.xplane.pb"});
    EXPECT_EQ(event_counts(child_dir + "/plugins/profile/child/testhost.xplane.pb"),
              (std::map<std::string, int>{{"child_work", 100}}));
  }
}

// Resident memory in KiB, from /proc/self/status.
long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(Fork, TheChildGivesBackTheParentsCaptureMemory) {
  if (testing::kUnderSanitizer) GTEST_SKIP() << "the sanitizers' shadow memory blurs resident sizes";
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options("big")).ok());
  for (int i = 0; i < 1'500'000; ++i) MLPROF_TRACE("fill");  // 36 MB of records
  const long parent_kib = resident_kib();
  const pid_t pid = fork();
  if (pid == 0) _exit(resident_kib() + 24 * 1024 < parent_kib ? 0 : 1);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(wait_child(pid, std::chrono::seconds(60)), 0) << "the parent's capture memory is resident in the child";
  const RunInfo run = stop();
  EXPECT_EQ(run.events, 1'500'000u);
}

// fork() while another thread starts and stops sessions (so locks of the session, the arena
// and the thread names may be held at that moment): every child can still profile.
TEST(Fork, ChildrenForkedWhileSessionsStartAndStopCanProfile) {
  const int forks = testing::load_size(20, 8);
  testing::ScratchDir dir;
  std::atomic<bool> quit{false};
  std::thread cycler([&] {
    for (int c = 0; !quit.load(); ++c) {
      if (!start(dir / "parent", options("cycle_" + std::to_string(c % 4))).ok()) continue;
      set_thread_name("cycler " + std::to_string(c));
      for (int i = 0; i < 200; ++i) MLPROF_TRACE("cycle_work");
      stop();
    }
  });
  std::vector<int> child_results;
  for (int f = 0; f < forks; ++f) {
    const pid_t pid = fork();
    if (pid == 0) forked_child(dir / ("child" + std::to_string(f)));
    ASSERT_GT(pid, 0);
    child_results.push_back(wait_child(pid, std::chrono::seconds(60)));
  }
  quit = true;
  cycler.join();
  EXPECT_EQ(child_results, std::vector<int>(forks, 0)) << "-2: hung; 10-14: see forked_child";
  if (testing::kUnderThreadSanitizer) return;  // the children started no session
  for (int f = 0; f < forks; ++f) {
    EXPECT_EQ(event_counts(dir / ("child" + std::to_string(f)) + "/plugins/profile/child/testhost.xplane.pb"),
              (std::map<std::string, int>{{"child_work", 100}}));
  }
}

}  // namespace
}  // namespace mlprof
