// Bad input to `mlprof info` and `mlprof run`: one line on stderr naming the path and the problem,
// exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"
#include <nlohmann/json.hpp>

#include "xplane.pb.h"

namespace fs = std::filesystem;
using mlprof::testing::run_mlprof;

namespace {

class CliBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mlprof_bad_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }

  // Exit 2 and exactly one stderr line that names the path and says `problem`.
  // A refused input leaves nothing on stdout, unless the command reports what it could read.
  static void expect_one_line_error(const mlprof::testing::CliResult& r, const std::string& path,
                                    const std::string& problem, bool stdout_empty = true) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
    if (stdout_empty) EXPECT_EQ(r.out, "");
  }

  fs::path dir_;
};

std::string valid_xspace_bytes() {
  tensorflow::profiler::XSpace space;
  auto* plane = space.add_planes();
  plane->set_name("/host:CPU");
  auto& md = (*plane->mutable_event_metadata())[1];
  md.set_id(1);
  md.set_name("a_fairly_long_event_name_so_that_truncation_cuts_inside_a_field");
  auto* line = plane->add_lines();
  line->set_name("main");
  line->set_timestamp_ns(1700000000000000000);
  for (int i = 0; i < 50; ++i) {
    auto* e = line->add_events();
    e->set_metadata_id(1);
    e->set_offset_ps(i * 1000000);
    e->set_duration_ps(500000);
  }
  space.add_hostnames("host");
  return space.SerializeAsString();
}

TEST_F(CliBadInput, EmptyFile) {
  const auto p = write("empty.xplane.pb", "");
  expect_one_line_error(run_mlprof("info " + p), p, "empty file");
}

TEST_F(CliBadInput, TruncatedXSpace) {
  const std::string bytes = valid_xspace_bytes();
  const auto p = write("cut.xplane.pb", bytes.substr(0, bytes.size() / 2 + 3));
  expect_one_line_error(run_mlprof("info " + p), p, "truncated or corrupt");
}

TEST_F(CliBadInput, TextFile) {
  const auto p = write("notes.xplane.pb", "hello, this is a text file\nnot a profile at all\n");
  const auto r = run_mlprof("info " + p);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(p), std::string::npos) << r.err;
}

TEST_F(CliBadInput, MissingPath) {
  const std::string p = (dir_ / "does_not_exist").string();
  expect_one_line_error(run_mlprof("info " + p), p, "no such file or directory");
}

TEST_F(CliBadInput, EmptyLogdirSaysWhereItLooked) {
  fs::create_directories(dir_ / "plugins" / "profile");
  const auto r = run_mlprof("info " + dir_.string());
  expect_one_line_error(r, dir_.string(), "no profile found");
  EXPECT_NE(r.err.find("plugins/profile"), std::string::npos) << r.err;
}

TEST_F(CliBadInput, EmptyDirectory) {
  const auto r = run_mlprof("info " + dir_.string());
  expect_one_line_error(r, dir_.string(), "no profile found");
}

// A corrupt host among good ones: the report is of the good ones, the bad one is named in one
// line and the exit status says the run was not read whole; with the hosts read at once or not.
TEST_F(CliBadInput, CorruptHostAmongGoodOnes) {
  const std::string bytes = valid_xspace_bytes();
  write("a.xplane.pb", bytes);
  write("c.xplane.pb", bytes);
  const auto bad = write("b.xplane.pb", bytes.substr(0, bytes.size() / 2 + 3));
  for (const char* jobs : {"1", "2"}) {
    const auto r = run_mlprof("report " + dir_.string() + " --tool pod_viewer --jobs " + jobs);
    expect_one_line_error(r, bad, "truncated or corrupt", /*stdout_empty=*/false);
    EXPECT_NE(r.out.find("2 host(s), 100 events"), std::string::npos) << r.out;
  }
}

TEST_F(CliBadInput, ValidFileIsListed) {
  const auto p = write("host.xplane.pb", valid_xspace_bytes());
  const auto r = run_mlprof("info " + p);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host CPU \"/host:CPU\": 50 events on 1 thread\n"), std::string::npos) << r.out;
}

// A logdir `mlprof run` cannot write is refused before the program runs (which would
// otherwise run unprofiled and exit 0).
TEST_F(CliBadInput, RunIntoALogdirThatCannotBeWritten) {
  const auto file = write("a_file", "not a directory");
  const std::string logdir = file + "/logdir";
  const std::string marker = (dir_ / "ran").string();
  const auto r = run_mlprof("run --logdir " + logdir + " -- touch " + marker);
  expect_one_line_error(r, logdir, "cannot write there");
  EXPECT_FALSE(fs::exists(marker)) << "the program ran";
}

// `mlprof run --run-name R` where R already holds this host's profile: refused before the program
// runs, which would otherwise run unprofiled or overwrite the earlier run.
TEST_F(CliBadInput, RunIntoARunNameThatIsTaken) {
  const std::string logdir = (dir_ / "logs").string();
  ASSERT_EQ(run_mlprof("run --logdir " + logdir + " --run-name baseline -- true").exit_code, 0);
  const std::string marker = (dir_ / "ran").string();
  const auto r = run_mlprof("run --logdir " + logdir + " --run-name baseline -- touch " + marker);
  expect_one_line_error(r, "baseline", "taken");
  EXPECT_FALSE(fs::exists(marker)) << "the program ran";
}

TEST(CliUsage, VersionAndHelp) {
  auto r = run_mlprof("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("mlprof "), std::string::npos);
  r = run_mlprof("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("info"), std::string::npos);
  r = run_mlprof("info --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("PATH"), std::string::npos);
}

TEST(CliUsage, UnknownOptionIsUsageError) {
  EXPECT_EQ(run_mlprof("info --no-such-option x").exit_code, 1);
  EXPECT_EQ(run_mlprof("").exit_code, 1);
}

// Usage errors are one line on stderr, "mlprof: ", saying what was wrong; exit 1.
TEST(CliUsage, UnknownCommandIsNamedWithTheCommands) {
  const auto r = run_mlprof("bogus");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlprof: unknown command \"bogus\" (commands: info, report, diff, serve, convert, run, capture)\n");
  EXPECT_EQ(r.out, "");
}

TEST(CliUsage, ACommandsUsageErrorIsOneLineNamingTheCommand) {
  for (const char* args : {"report", "report x --format xml", "diff onlyone", ""}) {
    const auto r = run_mlprof(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("mlprof: ", 0), 0u) << args << ": " << r.err;
  }
  EXPECT_EQ(run_mlprof("report").err.rfind("mlprof: report: PATH is required", 0), 0u);
  EXPECT_NE(run_mlprof("").err.find("no command given"), std::string::npos);
}

// Every command that reads profiles says it takes all of them, PyTorch traces included.
TEST(CliUsage, PathHelpNamesEveryKindOfProfile) {
  for (const char* command : {"info", "report", "diff", "convert"}) {
    const auto r = run_mlprof(std::string(command) + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    for (const char* kind : {"logdir", "run directory", ".xplane.pb", "PyTorch trace .json(.gz)"})
      EXPECT_NE(r.out.find(kind), std::string::npos) << command << " --help lacks " << kind << ":\n" << r.out;
  }
}

}  // namespace

namespace {

// A GPU profile whose names are cut in the middle of a character and whose stats hold binary
// bytes, as some XSpace writers make them.
std::string xspace_with_bad_text(int64_t kernel_duration_ps) {
  tensorflow::profiler::XSpace space;
  auto* plane = space.add_planes();
  plane->set_id(1);
  plane->set_name("/device:GPU:0");
  auto& kernel = (*plane->mutable_event_metadata())[1];
  kernel.set_id(1);
  kernel.set_name("volta_sgemm_\xE2\x82");
  auto& stat = (*plane->mutable_stat_metadata())[7];
  stat.set_id(7);
  stat.set_name("blob\xFF");
  auto* line = plane->add_lines();
  line->set_id(7);
  line->set_name("Stream #7(Compute)");
  line->set_timestamp_ns(1700000000000000000);
  for (int i = 0; i < 4; ++i) {
    auto* e = line->add_events();
    e->set_metadata_id(1);
    e->set_offset_ps(int64_t(i) * 2000000);
    e->set_duration_ps(i == 3 ? kernel_duration_ps : 1000000);
    auto* s = e->add_stats();
    s->set_metadata_id(7);
    s->set_bytes_value(std::string("\x00\xff\x10", 3));
  }
  space.add_hostnames("host");
  return space.SerializeAsString();
}

}  // namespace

TEST_F(CliBadInput, NamesThatAreNotUtf8AreReplacedAndSaidOnce) {
  const std::string path = write("bad_text.xplane.pb", xspace_with_bad_text(1000000));
  for (const char* tool : {"overview_page", "framework_op_stats", "kernel_stats", "trace_viewer"}) {
    const auto r = run_mlprof("report " + path + " --tool " + tool + " --format json");
    EXPECT_EQ(r.exit_code, 0) << tool << ": " << r.err;
    const auto json = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << tool;
  }
  const auto ops = run_mlprof("report " + path + " --tool kernel_stats --format json");
  EXPECT_NE(ops.out.find("volta_sgemm_\xEF\xBF\xBD"), std::string::npos) << ops.out.substr(0, 400);
  const auto info = run_mlprof("info " + path);
  EXPECT_NE(info.out.find("2 names or text values hold bytes that are not UTF-8"), std::string::npos) << info.out;
  const auto diff = run_mlprof("diff " + path + " " + path + " --format json");
  EXPECT_EQ(diff.exit_code, 0) << diff.err;
  const std::string chrome = (dir_ / "out.json").string();
  const auto converted = run_mlprof("convert " + path + " --to chrome -o " + chrome);
  EXPECT_EQ(converted.exit_code, 0) << converted.err;
  EXPECT_FALSE(nlohmann::json::parse(mlprof::testing::read_file(chrome), nullptr, false).is_discarded());
}

TEST_F(CliBadInput, DurationsPastWhatTheModelHoldsAreRefused) {
  const std::string path = write("forged.xplane.pb", xspace_with_bad_text(INT64_MAX - 10));
  const auto r = run_mlprof("report " + path + " --tool kernel_stats");
  expect_one_line_error(r, path, "longer than the 20 hours an event may last");
}
