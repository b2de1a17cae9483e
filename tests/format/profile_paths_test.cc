// Which files of a folder make a run's hosts.
#include "format/profile_paths.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/scratch_dir.h"

namespace mlprof::format {
namespace {

void touch(const std::string& path) { std::ofstream(path) << "x"; }

std::vector<std::string> hosts_of(const std::string& dir) {
  const ProfileLocation loc = find_profiles(dir);
  EXPECT_EQ(loc.error, "");
  std::vector<std::string> hosts;
  if (loc.runs.size() == 1)
    for (const HostFile& h : loc.runs[0].hosts) hosts.push_back(h.host);
  return hosts;
}

TEST(ProfilePaths, RankTracesIgnoreOtherJsonInTheFolder) {
  testing::ScratchDir dir;
  touch(dir.path() + "/worker0.1700000000.pt.trace.json.gz");
  touch(dir.path() + "/worker1.1700000000.pt.trace.json");
  touch(dir.path() + "/config.json");
  touch(dir.path() + "/metrics.json.gz");
  EXPECT_EQ(hosts_of(dir.path()), (std::vector<std::string>{"worker0.1700000000", "worker1.1700000000"}));
}

// What is not read is said: a user who points at a folder of traces learns which were left out.
TEST(ProfilePaths, OtherJsonLeftOutIsNamed) {
  testing::ScratchDir dir;
  touch(dir.path() + "/worker0.1700000000.pt.trace.json.gz");
  touch(dir.path() + "/metrics.json.gz");
  touch(dir.path() + "/config.json");
  const ProfileLocation loc = find_profiles(dir.path());
  ASSERT_EQ(loc.runs.size(), 1u);
  EXPECT_EQ(loc.runs[0].left_out, (std::vector<std::string>{dir.path() + "/config.json", dir.path() + "/metrics.json.gz"}));
  const std::string note = left_out_note(loc.runs[0]);
  EXPECT_NE(note.find("2 other .json(.gz) files were left out"), std::string::npos) << note;
  EXPECT_NE(note.find(dir.path() + "/config.json"), std::string::npos) << note;
  EXPECT_EQ(note.find('\n'), std::string::npos) << "one line";
}

TEST(ProfilePaths, NothingLeftOutWhenPlainJsonIsAllThereIs) {
  testing::ScratchDir dir;
  touch(dir.path() + "/rank0.json");
  const ProfileLocation loc = find_profiles(dir.path());
  ASSERT_EQ(loc.runs.size(), 1u);
  EXPECT_TRUE(loc.runs[0].left_out.empty());
  EXPECT_EQ(left_out_note(loc.runs[0]), "");
}

TEST(ProfilePaths, PlainJsonCountsWhenItIsAllThereIs) {
  testing::ScratchDir dir;
  touch(dir.path() + "/rank0.json");
  touch(dir.path() + "/rank1.json.gz");
  EXPECT_EQ(hosts_of(dir.path()), (std::vector<std::string>{"rank0", "rank1"}));
}

TEST(ProfilePaths, AHostWithXSpaceAndTraceJsonIsReadFromTheXSpace) {
  testing::ScratchDir dir;
  touch(dir.path() + "/host.xplane.pb");
  touch(dir.path() + "/host.trace.json.gz");
  touch(dir.path() + "/other.trace.json.gz");
  touch(dir.path() + "/notes.json");
  const ProfileLocation loc = find_profiles(dir.path());
  ASSERT_EQ(loc.runs.size(), 1u);
  ASSERT_EQ(loc.runs[0].hosts.size(), 2u);
  EXPECT_EQ(loc.runs[0].hosts[0].host, "host");
  EXPECT_EQ(loc.runs[0].hosts[0].kind, ProfileFileKind::kXSpace);
  EXPECT_EQ(loc.runs[0].hosts[1].host, "other");
  EXPECT_EQ(loc.runs[0].hosts[1].kind, ProfileFileKind::kPyTorchJson);
}

// "The newest run" is the newest by time, whatever the runs are named: a run named by the user
// ("baseline", which sorts after any time) against runs named by their time.
void write_run(const std::string& logdir, const std::string& run, int year_of_file) {
  const std::string dir = logdir + "/plugins/profile/" + run;
  std::filesystem::create_directories(dir);
  touch(dir + "/host.xplane.pb");
  std::tm t{};
  t.tm_year = year_of_file - 1900;
  t.tm_mday = 1;
  t.tm_isdst = -1;
  const auto when = std::chrono::system_clock::from_time_t(std::mktime(&t));
  std::filesystem::last_write_time(dir + "/host.xplane.pb", std::chrono::file_clock::from_sys(when));
}

std::string newest_run(const std::string& logdir) {
  std::string error;
  const ProfileLocation loc = find_profiles(logdir);
  const RunLocation* run = select_run(loc, "", &error);
  return run == nullptr ? error : run->name;
}

TEST(ProfilePaths, TheNewestRunIsTheNewestByTime) {
  testing::ScratchDir dir;
  write_run(dir.path(), "baseline", 2024);               // written in 2024
  write_run(dir.path(), "2025_06_01_12_00_00", 2030);    // named for June 2025 (a copy made later)
  EXPECT_EQ(newest_run(dir.path()), "2025_06_01_12_00_00");
  write_run(dir.path(), "after", 2026);
  EXPECT_EQ(newest_run(dir.path()), "after");
  write_run(dir.path(), "2027_01_01_00_00_00", 2001);
  EXPECT_EQ(newest_run(dir.path()), "2027_01_01_00_00_00");
  // Runs by name are still listed in name order.
  const ProfileLocation loc = find_profiles(dir.path());
  ASSERT_EQ(loc.runs.size(), 4u);
  EXPECT_EQ(loc.runs.back().name, "baseline");
}

}  // namespace
}  // namespace mlprof::format
