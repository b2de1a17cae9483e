// What `mlprof report` and `mlprof diff` take and say beside the analysis: an option the tool does
// not take is refused before the run is read, and a file of the run that is not read is named.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"

namespace fs = std::filesystem;
using mlprof::testing::run_mlprof;

namespace {

// --filter belongs to memory_profile; elsewhere it would change nothing, so it is refused in
// one line naming the tool and the flag, as the registry refuses any option a tool lacks. The
// run is not read first: the path need not exist.
TEST(CliOptions, AnOptionTheToolDoesNotTakeIsRefused) {
  struct Case {
    const char* tool;
    const char* option;
  };
  for (const Case c : {Case{"kernel_stats", "--filter Conv"}, Case{"overview_page", "--scope steps"},
                       Case{"memory_profile", "--hta-rounding"}, Case{"gpu_idle_time", "--filter Conv"}}) {
    const auto r = run_mlprof(std::string("report /nonexistent/run --tool ") + c.tool + " " + c.option);
    const std::string flag = std::string(c.option).substr(0, std::string(c.option).find(' '));
    EXPECT_EQ(r.exit_code, 1) << c.tool << " " << c.option;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, std::string("mlprof: tool '") + c.tool + "' has no option '" + flag + "'\n");
  }
}

// A run directory with a trace and a config .json beside it: diff, like report, says the config
// was left out (once per run read), and still compares.
TEST(CliOptions, DiffNamesTheFilesItLeavesOut) {
  const fs::path logdir = fs::temp_directory_path() / ("mlprof_left_out_" + std::to_string(::getpid()));
  const fs::path run = logdir / "plugins" / "profile" / "r1";
  fs::create_directories(run);
  std::ofstream(run / "h.pt.trace.json") << R"({"traceEvents": [{"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]})";
  std::ofstream(run / "config.json") << "{}";
  const std::string note = "mlprof: note: " + run.string() + ": 1 other .json(.gz) file was left out";
  for (const std::string& command : {"report " + logdir.string(), "diff " + logdir.string() + " " + run.string()}) {
    const auto r = run_mlprof(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    const size_t notes = std::count(r.err.begin(), r.err.end(), '\n');
    EXPECT_EQ(notes, command.starts_with("diff") ? 2u : 1u) << command << ": " << r.err;
    EXPECT_EQ(r.err.rfind(note, 0), 0u) << command << ": " << r.err;
    EXPECT_NE(r.err.find((run / "config.json").string()), std::string::npos) << r.err;
  }
  fs::remove_all(logdir);
}

}  // namespace
