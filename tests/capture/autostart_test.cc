// Profiling with no code change: MLPROF_LOGDIR and friends, read when the library loads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "format/scratch_dir.h"
#include "format/xspace_reader.h"

namespace mlprof {
namespace {

namespace fs = std::filesystem;

struct ChildResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ChildResult run_child(const std::string& environment, const std::string& args,
                      const testing::ScratchDir& dir) {
  const std::string command = "env -u MLPROF_LOGDIR -u MLPROF_STEPS -u MLPROF_DURATION_MS -u MLPROF_SERVER_PORT " +
                              environment + " '" + MLPROF_AUTOSTART_CHILD + "' " + args + " >'" +
                              (dir / "out.txt") + "' 2>'" + (dir / "err.txt") + "'";
  ChildResult r;
  const int status = std::system(command.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_all(dir / "out.txt");
  r.err = read_all(dir / "err.txt");
  return r;
}

std::vector<fs::path> xplane_files(const std::string& logdir) {
  std::vector<fs::path> files;
  if (!fs::exists(logdir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(logdir)) {
    if (entry.path().string().ends_with(".xplane.pb")) files.push_back(entry.path());
  }
  return files;
}

// The step_num of every "train" event in a host file.
std::vector<int64_t> train_steps(const fs::path& file) {
  tensorflow::profiler::XSpace space;
  std::string error;
  EXPECT_TRUE(format::read_xspace(file.string(), &space, &error)) << error;
  std::vector<int64_t> steps;
  if (space.planes_size() == 0) return steps;
  const auto& host = space.planes(0);
  for (const auto& line : host.lines()) {
    for (const auto& e : line.events()) {
      if (host.event_metadata().at(e.metadata_id()).name() != "train") continue;
      for (const auto& s : e.stats()) {
        if (host.stat_metadata().at(s.metadata_id()).name() == "step_num") steps.push_back(s.int64_value());
      }
    }
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

TEST(AutoStart, EnvironmentStartsASessionWrittenAtExit) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const ChildResult child = run_child("MLPROF_LOGDIR='" + logdir + "'", "", dir);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_NE(child.out.find("active: 1"), std::string::npos) << child.out;
  const auto files = xplane_files(logdir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(child.err.find("mlprof: wrote " + files[0].string()), std::string::npos) << child.err;

  tensorflow::profiler::XSpace space;
  std::string error;
  ASSERT_TRUE(format::read_xspace(files[0].string(), &space, &error)) << error;
  int64_t events = 0;
  for (const auto& line : space.planes(0).lines()) events += line.events_size();
  EXPECT_EQ(events, 12);  // 6 steps, 6 work scopes
}

TEST(AutoStart, StepsAndLevelComeFromTheEnvironment) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const ChildResult child = run_child(
      "MLPROF_LOGDIR='" + logdir + "' MLPROF_STEPS=2:3 MLPROF_HOST_TRACER_LEVEL=1", "", dir);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  const auto files = xplane_files(logdir);
  ASSERT_EQ(files.size(), 1u) << child.err;
  EXPECT_EQ(train_steps(files[0]), (std::vector<int64_t>{2, 3}));
}

// `mlprof run` on a program that starts its own session: the program's start() and stop()
// choose what is recorded; the environment's session ends unwritten, saying so in one line.
TEST(AutoStart, AProgramsOwnSessionTakesOver) {
  testing::ScratchDir dir;
  const std::string environment_logdir = dir / "env_logs", own_logdir = dir / "own_logs";
  const ChildResult child = run_child("MLPROF_LOGDIR='" + environment_logdir + "'", "start '" + own_logdir + "'", dir);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_NE(child.out.find("start: ok\n"), std::string::npos) << child.out;
  EXPECT_NE(child.out.find("active: 0\n"), std::string::npos) << child.out;
  const auto files = xplane_files(own_logdir);
  ASSERT_EQ(files.size(), 1u) << child.err;
  EXPECT_NE(child.out.find("stop: " + files[0].string() + "\n"), std::string::npos) << child.out;
  EXPECT_EQ(train_steps(files[0]), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(xplane_files(environment_logdir).empty());
  EXPECT_EQ(child.err, "mlprof: the program starts its own profiling session (writing to " + own_logdir +
                           "); the one MLPROF_LOGDIR started (writing to " + environment_logdir + ") ends unwritten\n");
}

TEST(AutoStart, NothingHappensWithoutMlprofLogdir) {
  testing::ScratchDir dir;
  const ChildResult child = run_child("MLPROF_STEPS=1:2", "", dir);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_NE(child.out.find("active: 0"), std::string::npos) << child.out;
  EXPECT_TRUE(child.err.empty()) << child.err;
}

TEST(AutoStart, AServerPortWithoutTheRpcLibraryIsNamed) {
  testing::ScratchDir dir;
  const ChildResult child = run_child("MLPROF_SERVER_PORT=6009", "", dir);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_EQ(child.err,
            "mlprof: MLPROF_SERVER_PORT=6009 is set, but this program does not load libmlprof_rpc "
            "(link mlprof::rpc to start the profiler server): no server\n");
}

TEST(AutoStart, BadValuesAreReportedAndIgnored) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "logs";
  const ChildResult child =
      run_child("MLPROF_LOGDIR='" + logdir + "' MLPROF_STEPS=soon MLPROF_DURATION_MS=-4", "", dir);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_NE(child.err.find("ignoring MLPROF_STEPS=soon"), std::string::npos) << child.err;
  EXPECT_NE(child.err.find("ignoring MLPROF_DURATION_MS=-4"), std::string::npos) << child.err;
  EXPECT_EQ(xplane_files(logdir).size(), 1u);
}

}  // namespace
}  // namespace mlprof
