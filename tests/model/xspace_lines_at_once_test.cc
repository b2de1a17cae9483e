// An XSpace's lines decoded on several threads at once give the model one thread gives: names
// and strings in the same ids, unsorted lines sorted and nested, undeclared metadata and stat
// ids named as before, planes without lines, a second host after a first; and the same errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model/profile_equal.h"
#include "model/xspace_builder.h"
#include "model/xspace/importer.h"

namespace mlprof::model {
namespace {

using testing::add_plane;
using testing::kPsPerUs;

std::string sample_space(int64_t timestamp_ns) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  for (int t = 0; t < 12; ++t) {
    auto* line = host.line(100 + t, "thread " + std::to_string(t), timestamp_ns + t * 1000);
    if (t == 2) line->set_display_name("the loader");
    if (t == 4) continue;  // a line without events
    for (int i = 0; i < 300; ++i) {
      // Unsorted on thread 1: each step written after the op it encloses.
      const int k = t == 1 ? (i % 2 == 0 ? i + 1 : i - 1) : i;
      const bool outer = k % 2 == 0;
      host.event(line, outer ? "step" : "op" + std::to_string(k % 7), k / 2 * 10 * kPsPerUs + (outer ? 0 : kPsPerUs),
                 outer ? 8 * kPsPerUs : 2 * kPsPerUs,
                 {{"long_name", "text " + std::to_string(t) + "/" + std::to_string(k % 11)}, {"flops", int64_t(k)}});
    }
    auto* odd = line->add_events();  // metadata nobody declared, twice
    odd->set_metadata_id(999);
    odd->set_offset_ps(5000 * kPsPerUs);
    auto* stat = odd->add_stats();   // a stat key nobody declared
    stat->set_metadata_id(555);
    stat->set_str_value("odd value " + std::to_string(t % 2));
  }
  add_plane(&space, 2, "/host:metadata");  // no lines
  auto gpu = add_plane(&space, 3, "/device:GPU:0");
  for (int s = 0; s < 3; ++s) {
    auto* line = gpu.line(s, "Stream #" + std::to_string(s), timestamp_ns + 500);
    for (int i = 0; i < 200; ++i)
      gpu.event(line, "kernel" + std::to_string(i % 5), i * 3 * kPsPerUs, kPsPerUs, {{"correlation_id", int64_t(i)}});
  }
  space.add_hostnames("worker");
  return space.SerializeAsString();
}

Profile import(const std::vector<std::string>& hosts, unsigned jobs) {
  Profile p;
  for (size_t h = 0; h < hosts.size(); ++h) {
    std::string error;
    EXPECT_TRUE(import_xspace_bytes(hosts[h].data(), hosts[h].size(), "host" + std::to_string(h), &p, &error, jobs))
        << error;
  }
  return p;
}

TEST(XSpaceLinesAtOnce, SameModelAsOneThread) {
  const std::vector<std::string> hosts = {sample_space(1700000000000000000), sample_space(1700000000000000000 - 7000)};
  const Profile in_turn = import(hosts, 1);
  ASSERT_EQ(in_turn.num_events(), 2u * (11 * 301 + 600));
  for (unsigned jobs : {2u, 3u, 8u, 16u}) {  // 16: more threads than lines
    SCOPED_TRACE(jobs);
    testing::expect_same_profile(import(hosts, jobs), in_turn);
  }
}

TEST(XSpaceLinesAtOnce, RealTensorFlowCapture) {
  const std::string path = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found (needs ../shared/testdata)";
  Profile in_turn, at_once;
  std::string error;
  ASSERT_TRUE(import_xspace_file(path, "w", &in_turn, &error, {}, 1)) << error;
  ASSERT_TRUE(import_xspace_file(path, "w", &at_once, &error, {}, 3)) << error;
  testing::expect_same_profile(at_once, in_turn);
}

TEST(XSpaceLinesAtOnce, SameErrorsAndTheProfileUntouched) {
  const std::string good = sample_space(1700000000000000000);
  tensorflow::profiler::XSpace late;
  late.ParseFromString(good);
  late.mutable_planes(2)->mutable_lines(1)->set_timestamp_ns(INT64_MAX / 2);  // past what the model holds
  const std::string bad_time = late.SerializeAsString();
  for (const std::string& bad : {bad_time, good.substr(0, good.size() * 2 / 3)}) {
    std::string errors[2];
    for (unsigned jobs : {1u, 3u}) {
      Profile p = import({good}, 1);
      const size_t events = p.num_events(), strings = p.strings.size();
      EXPECT_FALSE(import_xspace_bytes(bad.data(), bad.size(), "bad", &p, &errors[jobs > 1], jobs));
      EXPECT_EQ(p.num_events(), events);
      EXPECT_EQ(p.hosts.size(), 1u);
      EXPECT_GE(p.strings.size(), strings);
    }
    EXPECT_EQ(errors[1], errors[0]);
    EXPECT_FALSE(errors[0].empty());
  }
}

// Lines are counted and decoded at once, yet a damaged file gives the error (or the model)
// reading it in turn gives, wherever the damage is.
TEST(XSpaceLinesAtOnce, SameOutcomeWhereverTheFileIsCutOrFlipped) {
  const std::string good = sample_space(1700000000000000000);
  std::vector<std::string> damaged;
  for (size_t at = 1; at < good.size(); at += good.size() / 61 + 1) damaged.push_back(good.substr(0, at));
  for (size_t at = 0; at < good.size(); at += good.size() / 67 + 1) {
    damaged.push_back(good);
    damaged.back()[at] = char(damaged.back()[at] ^ 0x5a);
  }
  for (size_t k = 0; k < damaged.size(); ++k) {
    SCOPED_TRACE(k);
    const std::string& bytes = damaged[k];
    Profile in_turn, at_once;
    std::string in_turn_error, at_once_error;
    const bool in_turn_ok = import_xspace_bytes(bytes.data(), bytes.size(), "h", &in_turn, &in_turn_error, 1);
    const bool at_once_ok = import_xspace_bytes(bytes.data(), bytes.size(), "h", &at_once, &at_once_error, 3);
    ASSERT_EQ(at_once_ok, in_turn_ok) << in_turn_error << " / " << at_once_error;
    EXPECT_EQ(at_once_error, in_turn_error);
    if (in_turn_ok) testing::expect_same_profile(at_once, in_turn);
  }
}

}  // namespace
}  // namespace mlprof::model
