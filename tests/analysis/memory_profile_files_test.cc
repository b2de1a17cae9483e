// memory_profile on real files: TensorFlow's (its BFC allocators' MemoryAllocation events)
// and PyTorch's ("[memory]" events mapped by the PyTorch importer). The numbers pinned here
// were read from the files themselves, so that a regression shows.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>

#include "analysis/memory_profile.h"
#include "model/pytorch/importer.h"
#include "model/xspace/importer.h"

namespace mlprof::analysis {
namespace {

const std::string kTensorFlowFile = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";
const std::string kPyTorchFile = std::string(MLPROF_TESTDATA) + "/pytorch/df_index_resolver__df_index_resolver.json.gz";

const MemoryIdProfile* find_id(const MemoryProfile& m, const std::string& id) {
  for (const auto& x : m.memory_ids)
    if (x.summary.memory_id == id) return &x;
  return nullptr;
}

TEST(MemoryProfileFiles, TensorFlowBfcAllocators) {
  if (!std::filesystem::exists(kTensorFlowFile))
    GTEST_SKIP() << "TensorFlow test data not found at " << kTensorFlowFile << " (needs ../shared/testdata)";
  model::Profile profile;
  std::string error;
  ASSERT_TRUE(model::import_xspace_file(kTensorFlowFile, "worker", &profile, &error)) << error;
  const MemoryProfile m = compute_memory_profile(profile);

  // Four allocators: three GPUs' BFC allocators and the pinned host one; 1,859 allocations and
  // 634 deallocations in all (counted in the file's events).
  ASSERT_EQ(m.memory_ids.size(), 4u);
  uint64_t allocs = 0, deallocs = 0;
  for (const auto& id : m.memory_ids) allocs += id.summary.num_allocs, deallocs += id.summary.num_deallocs;
  EXPECT_EQ(allocs, 1859u);
  EXPECT_EQ(deallocs, 634u);

  const MemoryIdProfile* gpu4 = find_id(m, "GPU_4_bfc");
  const MemoryIdProfile* host = find_id(m, "gpu_host_bfc");
  ASSERT_NE(gpu4, nullptr);
  ASSERT_NE(host, nullptr);
  ASSERT_NE(find_id(m, "GPU_1_bfc"), nullptr);
  ASSERT_NE(find_id(m, "GPU_6_bfc"), nullptr);
  EXPECT_EQ(gpu4->summary.num_allocs + gpu4->summary.num_deallocs, 969u);
  EXPECT_EQ(host->summary.num_allocs + host->summary.num_deallocs, 536u);

  // The peak and what was alive there add up: the breakdown's bytes are the heap at the peak.
  for (const auto& id : m.memory_ids) {
    const MemorySummary& s = id.summary;
    EXPECT_EQ(s.peak_heap_bytes, s.stack_bytes + s.heap_bytes) << s.memory_id;
    EXPECT_EQ(s.capacity_bytes, s.stack_bytes + s.heap_bytes + s.free_bytes) << s.memory_id;
    EXPECT_GE(s.lifetime_peak_heap_bytes, s.heap_bytes) << s.memory_id;
    int64_t alive = 0;
    for (const auto& r : id.breakdown) alive += r.allocation_bytes;
    EXPECT_EQ(alive, s.heap_bytes) << s.memory_id;
    EXPECT_LE(id.timeline.size(), 1000u);
  }
  // The peaks (no stack on GPUs: all heap), largest first.
  EXPECT_EQ(m.memory_ids[0].summary.memory_id, "GPU_6_bfc");
  EXPECT_EQ(m.memory_ids[0].summary.peak_heap_bytes, 6210111488);
  EXPECT_EQ(gpu4->summary.peak_heap_bytes, 6208853760);
  EXPECT_NEAR(double(gpu4->summary.peak_time_ps) / 1e9, 1938.363, 0.001);
  EXPECT_EQ(gpu4->summary.capacity_bytes, 15477102400);
  EXPECT_NEAR(gpu4->summary.fragmentation_pct, 0.0283, 0.0001);
  EXPECT_EQ(gpu4->summary.live_allocations, 554u);
  EXPECT_EQ(find_id(m, "GPU_1_bfc")->summary.peak_heap_bytes, 4013344768);
  EXPECT_EQ(host->summary.peak_heap_bytes, 605952);
  EXPECT_EQ(host->summary.lifetime_peak_heap_bytes, 134217728);  // its peak_bytes_in_use, before the profile
  // TensorFlow's DataType numbers read as names.
  bool half = false;
  for (const auto& r : gpu4->breakdown) half |= r.data_type == "half";
  EXPECT_TRUE(half);
}

// The largest "Total Allocated" of each device's [memory] events, and their counts, read
// from the JSON text itself (not through the importer).
struct DeviceMemory {
  int64_t max_total_allocated = 0;
  uint64_t allocations = 0, frees = 0;
};

int64_t number_after(const std::string& text, size_t from, size_t to, const std::string& key) {
  const size_t at = text.find("\"" + key + "\":", from);
  if (at == std::string::npos || at > to) return INT64_MIN;
  return std::strtoll(text.c_str() + at + key.size() + 3, nullptr, 10);
}

std::map<std::pair<int64_t, int64_t>, DeviceMemory> scan_memory_events(const std::string& path) {
  std::string text;
  gzFile f = gzopen(path.c_str(), "rb");
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  gzclose(f);
  std::map<std::pair<int64_t, int64_t>, DeviceMemory> out;
  for (size_t at = text.find("\"[memory]\""); at != std::string::npos; at = text.find("\"[memory]\"", at + 1)) {
    const size_t args = text.find("\"args\"", at), end = text.find('}', args);
    const int64_t bytes = number_after(text, args, end, "Bytes");
    DeviceMemory& d = out[{number_after(text, args, end, "Device Type"), number_after(text, args, end, "Device Id")}];
    d.max_total_allocated = std::max(d.max_total_allocated, number_after(text, args, end, "Total Allocated"));
    (bytes < 0 ? d.frees : d.allocations)++;
  }
  return out;
}

TEST(MemoryProfileFiles, PyTorchPeakIsTheLargestTotalAllocated) {
  if (!std::filesystem::exists(kPyTorchFile))
    GTEST_SKIP() << "PyTorch test data not found at " << kPyTorchFile << " (needs ../shared/testdata)";
  const auto expected = scan_memory_events(kPyTorchFile);
  ASSERT_EQ(expected.size(), 2u);  // the CPU (type 0) and cuda:1 (type 1, id 1)
  model::Profile profile;
  std::string error;
  ASSERT_TRUE(model::import_pytorch_trace_file(kPyTorchFile, "rank1", &profile, &error)) << error;
  const MemoryProfile m = compute_memory_profile(profile);
  ASSERT_EQ(m.memory_ids.size(), 2u);

  const MemoryIdProfile* cuda = find_id(m, "cuda:1");
  ASSERT_NE(cuda, nullptr);
  const DeviceMemory& gpu = expected.at({1, 1});
  EXPECT_EQ(cuda->summary.peak_heap_bytes, gpu.max_total_allocated);
  EXPECT_EQ(cuda->summary.peak_heap_bytes, 6629508096);
  EXPECT_EQ(cuda->summary.num_allocs, gpu.allocations);
  EXPECT_EQ(cuda->summary.num_deallocs, gpu.frees);
  EXPECT_EQ(cuda->summary.stack_bytes, 0);
  // PyTorch's reserved bytes are the heap plus the free memory its cache holds.
  EXPECT_GT(cuda->summary.free_bytes, 0);
  EXPECT_FALSE(cuda->breakdown.empty());
  EXPECT_FALSE(cuda->breakdown.front().op.empty());  // the op the [memory] event sat in

  const MemoryIdProfile* cpu = find_id(m, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->summary.peak_heap_bytes, expected.at({0, -1}).max_total_allocated);
}

}  // namespace
}  // namespace mlprof::analysis
