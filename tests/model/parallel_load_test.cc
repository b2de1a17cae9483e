// The hosts of a run read on several threads give the model that reading them one after
// another gives (real PyTorch ranks and XSpace hosts from ../shared/testdata, with different
// origins); a corrupt rank among good ones is named and left out, the others are read.
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "format/scratch_dir.h"
#include "model/gzip_bytes.h"
#include "model/load_profile.h"
#include "model/profile_equal.h"
#include "model/profile_merge.h"
#include "model/pytorch/importer.h"
#include "model/xspace/export.h"

namespace mlprof::model {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

const std::string kTestdata = MLPROF_TESTDATA;

// Ranks made from two real traces (Kineto 2024, a GPU job and a CPU-only job 54 days apart),
// each copy with its baseTimeNanoseconds moved (some earlier than the first rank, so later
// hosts have negative starts), and one plain JSON among the gzip files.
struct RankSource {
  const char* file;
  int64_t shift_s;
};
const RankSource kRanks[] = {
    {"nccl_parser_config__nccl_data.json.gz", 0},          {"cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 0},
    {"nccl_parser_config__nccl_data.json.gz", -3},         {"cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 7},
    {"nccl_parser_config__nccl_data.json.gz", 86400 * 2},  {"cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", -60},
};

bool have_testdata() { return fs::is_directory(kTestdata + "/pytorch"); }

std::string inflated(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  std::string text;
  char buffer[1 << 16];
  int n;
  while (in != nullptr && (n = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, size_t(n));
  if (in != nullptr) gzclose(in);
  return text;
}

// rank0.pt.trace.json.gz ... in `dir`, one per entry above; the last one plain JSON.
void write_ranks(const fs::path& dir) {
  fs::create_directories(dir);
  for (size_t rank = 0; rank < std::size(kRanks); ++rank) {
    std::string text = inflated(kTestdata + "/pytorch/" + kRanks[rank].file);
    const std::string key = "\"baseTimeNanoseconds\": ";
    const size_t at = text.find(key) + key.size(), end = text.find_first_not_of("0123456789", at);
    ASSERT_NE(at, std::string::npos + key.size());
    const int64_t base = std::stoll(text.substr(at, end - at)) + kRanks[rank].shift_s * 1000000000;
    text.replace(at, end - at, std::to_string(base));
    const bool plain = rank + 1 == std::size(kRanks);
    std::ofstream(dir / ("rank" + std::to_string(rank) + (plain ? ".pt.trace.json" : ".pt.trace.json.gz")),
                  std::ios::binary)
        << (plain ? text : testing::gzip(text));
  }
}

Profile load(const std::string& path, unsigned jobs, bool expect_ok = true, LoadError* error = nullptr) {
  Profile p;
  LoadError e;
  const bool ok = load_profile({path, "", "", {}, jobs}, &p, &e);
  EXPECT_EQ(ok, expect_ok) << e.path << ": " << e.problem;
  if (error) *error = e;
  return p;
}

TEST(ParallelLoad, PyTorchRanksAsInTurn) {
  if (!have_testdata()) GTEST_SKIP() << "PyTorch test data not found at " << kTestdata << " (needs ../shared/testdata)";
  ScratchDir dir;
  write_ranks(dir.path());
  const Profile in_turn = load(dir.path(), 1);
  ASSERT_EQ(in_turn.hosts.size(), std::size(kRanks));
  for (unsigned jobs : {2u, 3u, 8u}) {
    SCOPED_TRACE(jobs);
    testing::expect_same_profile(load(dir.path(), jobs), in_turn);
  }
}

// Hosts written as XSpace from the PyTorch ranks (each with its own origin); and TensorFlow's
// own two-worker capture under three host names.
TEST(ParallelLoad, XSpaceHostsAsInTurn) {
  if (!have_testdata()) GTEST_SKIP() << "test data not found at " << kTestdata << " (needs ../shared/testdata)";
  ScratchDir dir;
  const fs::path ranks = fs::path(dir.path()) / "ranks", run = fs::path(dir.path()) / "run",
                 tensorflow = fs::path(dir.path()) / "tensorflow";
  write_ranks(ranks);
  const Profile source = load(ranks, 1);
  std::string error;
  fs::create_directories(run);
  for (uint32_t h = 0; h < source.hosts.size(); ++h)
    ASSERT_TRUE(write_host_xspace(source, h, run / ("host" + std::to_string(h) + ".xplane.pb"), &error)) << error;
  const Profile in_turn = load(run, 1);
  ASSERT_EQ(in_turn.hosts.size(), source.hosts.size());
  testing::expect_same_profile(load(run, 2), in_turn);
  testing::expect_same_profile(load(run, 5), in_turn);

  fs::create_directories(tensorflow);
  for (const char* name : {"worker_a", "worker_b", "worker_c"})
    fs::copy_file(kTestdata + "/tensorflow/gpu_multi_worker.xplane.pb", tensorflow / (std::string(name) + ".xplane.pb"));
  const Profile workers = load(tensorflow, 1);
  ASSERT_EQ(workers.hosts.size(), 3u);
  testing::expect_same_profile(load(tensorflow, 3), workers);
}

// A truncated rank and one that is not JSON among good ones: the first is named with the
// count of the others, and the good ranks are read as they are without the bad ones.
TEST(ParallelLoad, CorruptRanksAreNamedAndTheOthersRead) {
  if (!have_testdata()) GTEST_SKIP() << "PyTorch test data not found at " << kTestdata << " (needs ../shared/testdata)";
  ScratchDir dir;
  const fs::path good = fs::path(dir.path()) / "good", mixed = fs::path(dir.path()) / "mixed";
  write_ranks(good);
  write_ranks(mixed);
  const fs::path truncated = mixed / "rank1a.pt.trace.json.gz";
  const fs::path not_json = mixed / "rank3a.pt.trace.json";
  std::ifstream in(kTestdata + "/pytorch/" + kRanks[2].file, std::ios::binary);
  const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(truncated, std::ios::binary) << gz.substr(0, gz.size() / 2);
  std::ofstream(not_json) << "this is not a trace";
  const Profile expected = load(good, 1);
  for (unsigned jobs : {1u, 2u, 4u}) {
    SCOPED_TRACE(jobs);
    LoadError error;
    Profile p = load(mixed, jobs, false, &error);
    EXPECT_EQ(p.run, "mixed");
    p.run = expected.run;
    EXPECT_EQ(error.path, truncated.string());
    EXPECT_EQ(error.problem, "truncated gzip data (and 1 more of the run's 8 hosts could not be read)");
    ASSERT_EQ(p.hosts.size(), std::size(kRanks));
    if (jobs > 1) {
      testing::expect_same_profile(p, expected);
    } else {  // in turn, the bad ranks' strings stay interned: compare what the tools read
      EXPECT_EQ(p.events.start_ps, expected.events.start_ps);
      ASSERT_EQ(p.lines.size(), expected.lines.size());
      for (size_t l = 0; l < p.lines.size(); ++l) {
        EXPECT_EQ(p.lines[l].first_event, expected.lines[l].first_event) << "line " << l;
        EXPECT_EQ(p.lines[l].num_events, expected.lines[l].num_events) << "line " << l;
      }
    }
  }
}

TEST(ParallelLoad, ProgressGoesUpToTheEnd) {
  if (!have_testdata()) GTEST_SKIP() << "PyTorch test data not found at " << kTestdata << " (needs ../shared/testdata)";
  ScratchDir dir;
  write_ranks(dir.path());
  std::vector<double> fractions;
  Profile p;
  LoadError error;
  ASSERT_TRUE(load_profile({dir.path(), "", "", [&](double f) { fractions.push_back(f); }, 3}, &p, &error));
  ASSERT_FALSE(fractions.empty());
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
}

// A part appended to an empty profile moves whole: its columns are not copied.
TEST(ParallelLoad, FirstPartMovesWhole) {
  const std::string trace = R"({"traceEvents": [{"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]})";
  Profile part, into;
  std::string error;
  ASSERT_TRUE(import_pytorch_trace_bytes(trace.data(), trace.size(), "h", &part, &error)) << error;
  const int64_t* columns = part.events.start_ps.data();
  into.run = "run";
  ASSERT_TRUE(append_profile(std::move(part), &into, &error));
  EXPECT_EQ(into.events.start_ps.data(), columns);
  EXPECT_EQ(into.run, "run");
  EXPECT_EQ(part.num_events(), 0u);
}

TEST(ParallelLoad, JobsDefaultToTheCores) {
  EXPECT_EQ(default_load_jobs(), std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace mlprof::model
