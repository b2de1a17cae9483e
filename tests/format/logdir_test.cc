#include "format/logdir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "format/run_reservation.h"
#include "format/scratch_dir.h"

namespace mlprof::format {
namespace {

namespace fs = std::filesystem;

TEST(Logdir, RunNameIsLocalTimeWithUnderscores) {
  const std::string name = run_name_at(std::time(nullptr));
  EXPECT_TRUE(std::regex_match(name, std::regex(R"(\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2})"))) << name;
}

TEST(Logdir, ColonsInHostNamesBecomeUnderscores) {
  EXPECT_EQ(host_for_file_name("10.0.0.1:6009"), "10.0.0.1_6009");
  EXPECT_EQ(host_for_file_name("worker-3"), "worker-3");
}

TEST(Logdir, PrepareRunCreatesTheLayoutAndTheEventFile) {
  mlprof::testing::ScratchDir dir;
  const std::string logdir = dir / "logs/nested";
  RunLocation where;
  std::string error;
  ASSERT_TRUE(prepare_run(logdir, "my_run", "host:1234", 1700000000, &where, &error)) << error;
  EXPECT_EQ(where.run_dir, logdir + "/plugins/profile/my_run");
  EXPECT_EQ(where.xspace_path, logdir + "/plugins/profile/my_run/host_1234.xplane.pb");
  EXPECT_TRUE(fs::is_directory(where.run_dir));
  EXPECT_TRUE(fs::exists(logdir + "/events.out.tfevents.1700000000.host_1234.profile-empty"));
}

TEST(Logdir, DefaultRunNameIsTheTimeAndNeverOverwritesAnEarlierRun) {
  mlprof::testing::ScratchDir dir;
  const std::time_t now = 1700000000;
  RunLocation first, second;
  std::string error;
  ASSERT_TRUE(prepare_run(dir.path(), "", "h", now, &first, &error)) << error;
  EXPECT_EQ(first.run_dir, dir.path() + "/plugins/profile/" + run_name_at(now));
  std::ofstream(first.xspace_path) << "x";
  ASSERT_TRUE(prepare_run(dir.path(), "", "h", now, &second, &error)) << error;
  EXPECT_EQ(second.run_dir, dir.path() + "/plugins/profile/" + run_name_at(now + 1));
}

// A job's run is new: a second whose run exists (another job's files, whatever their hosts)
// or is reserved by a live process is skipped.
TEST(Logdir, ANewRunSkipsSecondsWhoseRunExistsOrIsReserved) {
  mlprof::testing::ScratchDir dir;
  const std::time_t now = 1700000000;
  fs::create_directories(dir.path() + "/plugins/profile/" + run_name_at(now));
  std::ofstream(dir.path() + "/plugins/profile/" + run_name_at(now) + "/h.0.xplane.pb") << "x";
  std::string error;
  EXPECT_EQ(reserve_new_run(dir.path(), "h", now, &error), run_name_at(now + 1)) << error;
  EXPECT_TRUE(fs::exists(run_reservation_path(dir.path(), run_name_at(now + 1), "h")));
  release_run(dir.path(), run_name_at(now + 1), "h");
  // Reserved for this host by another live process (process 1): the second after it.
  std::ofstream(run_reservation_path(dir.path(), run_name_at(now + 1), "h")) << "1\n";
  EXPECT_EQ(reserve_new_run(dir.path(), "h", now, &error), run_name_at(now + 2)) << error;
}

TEST(Logdir, UnwritableLogdirIsAClearError) {
  mlprof::testing::ScratchDir dir;
  std::ofstream(dir / "a_file") << "x";
  RunLocation where;
  std::string error;
  EXPECT_FALSE(prepare_run(dir / "a_file/logs", "", "h", 1700000000, &where, &error));
  EXPECT_NE(error.find("a_file/logs"), std::string::npos) << error;
  EXPECT_FALSE(prepare_run("", "", "h", 1700000000, &where, &error));
  EXPECT_FALSE(error.empty());
}

TEST(Logdir, WriteFileAtomicallyLeavesNoTemporary) {
  mlprof::testing::ScratchDir dir;
  std::string error;
  ASSERT_TRUE(write_file_atomically(dir / "f.bin", "abc", &error)) << error;
  EXPECT_EQ(fs::file_size(dir / "f.bin"), 3u);
  EXPECT_FALSE(fs::exists(dir / "f.bin.tmp"));
}

}  // namespace
}  // namespace mlprof::format
