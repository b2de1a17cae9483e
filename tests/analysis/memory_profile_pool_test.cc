// The pool allocator example (examples/pool_allocator) run as a user runs it: the memory
// profile of what it recorded must give the peak and the fragmentation its own counters
// predict, and `mlprof report --tool memory_profile` must show them in every format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "analysis/memory_profile.h"
#include "cli/cli_runner.h"
#include "model/load_profile.h"
#include "model/xspace_builder.h"

namespace mlprof::analysis {
namespace {

using mlprof::testing::CliResult;
using mlprof::testing::run_mlprof;

// What the example prints about its pool.
struct PoolReport {
  uint64_t allocations = 0, deallocations = 0;
  int64_t reserved = 0, step = -1, in_use = 0, free = 0, largest_free_chunk = 0;
  double fragmentation_pct = -1;
};

class PoolAllocatorRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new mlprof::testing::TempDir();
    const std::string out = dir_->path() + "/stdout";
    const std::string cmd = std::string(POOL_ALLOCATOR) + " --logdir '" + dir_->path() + "/logdir' --run-name pool_run --steps 6 >'" + out + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::istringstream lines(mlprof::testing::read_file(out));
    for (std::string line; std::getline(lines, line);) {
      std::sscanf(line.c_str(), "pool \"pool\": %" SCNu64 " allocations, %" SCNu64 " deallocations, reserved %" SCNd64,
                  &report_.allocations, &report_.deallocations, &report_.reserved);
      std::sscanf(line.c_str(),
                  "at the peak (step %" SCNd64 "): in_use=%" SCNd64 " free=%" SCNd64 " largest_free_chunk=%" SCNd64
                  " fragmentation_pct=%lf",
                  &report_.step, &report_.in_use, &report_.free, &report_.largest_free_chunk, &report_.fragmentation_pct);
    }
  }
  static void TearDownTestSuite() { delete dir_; }

  std::string logdir() const { return dir_->path() + "/logdir"; }

  static mlprof::testing::TempDir* dir_;
  static PoolReport report_;
};
mlprof::testing::TempDir* PoolAllocatorRun::dir_ = nullptr;
PoolReport PoolAllocatorRun::report_;

TEST_F(PoolAllocatorRun, ProfileGivesThePoolsOwnPeakAndFragmentation) {
  const PoolReport& r = report_;
  ASSERT_GT(r.allocations, 0u) << "the example printed no counters";
  ASSERT_GT(r.fragmentation_pct, 1.0) << "the workload is meant to fragment the pool";

  model::Profile profile;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({logdir(), "", ""}, &profile, &error)) << error.path << ": " << error.problem;
  const MemoryProfile m = compute_memory_profile(profile);
  ASSERT_EQ(m.memory_ids.size(), 1u);
  const MemorySummary& s = m.memory_ids[0].summary;
  EXPECT_EQ(s.memory_id, "pool");
  EXPECT_EQ(s.num_allocs, r.allocations);
  EXPECT_EQ(s.num_deallocs, r.deallocations);
  EXPECT_EQ(s.capacity_bytes, r.reserved);
  EXPECT_EQ(s.peak_heap_bytes, r.in_use);
  EXPECT_EQ(s.lifetime_peak_heap_bytes, r.in_use);
  EXPECT_EQ(s.heap_bytes, r.in_use);
  EXPECT_EQ(s.stack_bytes, 0);
  EXPECT_EQ(s.free_bytes, r.free);
  EXPECT_NEAR(s.fragmentation_pct, 100.0 * double(r.free - r.largest_free_chunk) / double(r.free), 1e-9);
  EXPECT_NEAR(s.fragmentation_pct, r.fragmentation_pct, 1e-6);
  EXPECT_EQ(s.peak_step, r.step);

  // Everything alive at the peak was allocated in the profile, and adds up to the heap.
  const auto& rows = m.memory_ids[0].breakdown;
  int64_t alive = 0;
  for (const auto& row : rows) {
    EXPECT_NE(row.op, kAllocatedBeforeProfile);
    EXPECT_FALSE(row.region_type.empty());
    alive += row.allocation_bytes;
  }
  EXPECT_EQ(alive, r.in_use);
  // What the pool said about each block came through: op, region, data type and shape.
  bool workspace = false;
  for (const auto& row : rows)
    workspace |= row.op.ends_with("/workspace") && row.region_type == "temp" && row.data_type == "half" &&
                 row.shape.starts_with("[8,");
  EXPECT_TRUE(workspace);
  // The timeline's points carry the pool's counters, whose fragmentation they must agree with.
  for (const auto& p : m.memory_ids[0].timeline)
    EXPECT_EQ(p.stack_bytes + p.heap_bytes + p.free_bytes, r.reserved);
}

TEST_F(PoolAllocatorRun, ReportInEveryFormat) {
  const std::string path = "'" + logdir() + "'";
  const CliResult json = run_mlprof("report " + path + " --tool memory_profile --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["memory_ids"].size(), 1u);
  const auto& id = j["memory_ids"][0];
  for (const char* key : {"num_allocs", "num_deallocs", "peak_heap_bytes", "peak_time_ms", "stack_bytes", "heap_bytes",
                          "free_bytes", "fragmentation_pct"})
    EXPECT_TRUE(id["summary"].contains(key)) << key;
  EXPECT_EQ(id["summary"]["peak_heap_bytes"], report_.in_use);
  EXPECT_LE(id["timeline"].size(), 1000u);
  EXPECT_FALSE(id["breakdown"].empty());

  const CliResult text = run_mlprof("report " + path + " --tool memory_profile");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const size_t summary = text.out.find("Peak memory in use"), table = text.out.find("Alive at the peak");
  ASSERT_NE(summary, std::string::npos) << text.out;
  ASSERT_NE(table, std::string::npos) << text.out;
  EXPECT_LT(summary, table);
  EXPECT_NE(text.out.find("fragmentation"), std::string::npos);

  const CliResult csv = run_mlprof("report " + path + " --tool memory_profile --format csv --filter layer5 --sort requested");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header, "memory_id,op,allocation_bytes,requested_bytes,occurrences,region_type,data_type,shape");
  size_t rows = 0;
  while (std::getline(lines, line)) {
    EXPECT_NE(line.find("layer5"), std::string::npos) << line;
    ++rows;
  }
  EXPECT_GT(rows, 0u);

  EXPECT_EQ(run_mlprof("report " + path + " --tool memory_profile --sort size").exit_code, 1);
  const CliResult unknown = run_mlprof("report " + path + " --tool memory_profile --memory-id GPU_9_bfc");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("GPU_9_bfc"), std::string::npos);
}

}  // namespace
}  // namespace mlprof::analysis
