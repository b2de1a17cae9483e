// memory_profile on hand-built allocation sequences whose peak, live set at the peak and
// fragmentation are known, written the way each source writes them (TensorFlow's stats on
// the event or in a TraceMe-encoded name, a user allocator that reports only sizes, PyTorch's
// events nested in the op that allocated).
#include <gtest/gtest.h>

#include <optional>

#include "analysis/memory_profile.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using testing::kPsPerMs;
using testing::PlaneBuilder;
using testing::StatArg;

// One allocator event; the builder adds the allocator's state (heap = the running sum,
// free = capacity − stack − heap) unless told not to.
struct Step {
  bool allocation;
  uint64_t address;
  int64_t bytes;
  std::string op = "", region = "", data_type = "", shape = "";
  std::optional<double> fragmentation = std::nullopt;    // TensorFlow's fraction
  std::optional<int64_t> largest_free_chunk = std::nullopt;
  int64_t requested = -1;
};

struct SequenceShape {
  std::string allocator = "GPU_0_bfc";
  int64_t capacity = 10000;
  int64_t stack = 100;
  int64_t lifetime_peak = 9000;
  bool report_state = true;  // bytes_allocated / bytes_available / bytes_reserved
  int64_t heap_before = 0;   // allocated before the profile began
};

// Events 1 ms apart on one thread of /host:CPU.
void add_sequence(PlaneBuilder& host, tensorflow::profiler::XLine* line, const std::vector<Step>& steps,
                  const SequenceShape& shape, int64_t first_ms = 1) {
  int64_t heap = shape.heap_before;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    heap += s.allocation ? s.bytes : -s.bytes;
    std::vector<StatArg> stats = {{"allocator_name", shape.allocator},
                                  {"addr", s.address},
                                  {"allocation_bytes", s.bytes},
                                  {"requested_bytes", s.requested >= 0 ? s.requested : s.bytes},
                                  {"id", int64_t(7)}};
    if (shape.report_state) {
      stats.push_back({"bytes_reserved", shape.stack});
      stats.push_back({"bytes_allocated", heap});
      stats.push_back({"bytes_available", shape.capacity - shape.stack - heap});
      stats.push_back({"peak_bytes_in_use", shape.lifetime_peak});
    }
    if (s.fragmentation) stats.push_back({"fragmentation", *s.fragmentation});
    if (s.largest_free_chunk) stats.push_back({"largest_free_chunk", *s.largest_free_chunk});
    if (!s.op.empty()) stats.push_back({"tf_op", s.op});
    if (!s.region.empty()) stats.push_back({"region_type", s.region});
    if (!s.data_type.empty()) stats.push_back({"data_type", s.data_type});
    if (!s.shape.empty()) stats.push_back({"shape", s.shape});
    host.event(line, s.allocation ? "MemoryAllocation" : "MemoryDeallocation", (first_ms + int64_t(i)) * kPsPerMs, 0,
               stats);
  }
}

// Peak at E (heap 7500): A, B, D and E are alive; A and D are one kind of tensor of conv1.
std::vector<Step> known_sequence() {
  return {
      {true, 0xA, 1000, "conv1", "output", "float", "[10,25]", 0.0, std::nullopt, 990},
      {true, 0xB, 3000, "conv2", "output", "float", "[30,25]", 0.1},
      {true, 0xC, 500, "relu", "temp", "half", "[5,50]", 0.1},
      {false, 0xC, 500, "relu", "temp", "half", "[5,50]", 0.2},
      {true, 0xD, 1000, "conv1", "output", "float", "[10,25]", 0.2, std::nullopt, 1000},
      {true, 0xE, 2500, "matmul", "temp", "float", "[25,25]", 0.25},
      {false, 0xB, 3000, "conv2", "output", "float", "[30,25]", 0.3},
      {false, 0xE, 2500, "matmul", "temp", "float", "[25,25]", 0.1},
  };
}

model::Profile profile_of(const std::vector<Step>& steps, const SequenceShape& shape = {}) {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "executor", 1'700'000'000'000'000'000);
  add_sequence(host, line, steps, shape);
  return testing::import_space(space);
}

TEST(MemoryProfile, KnownPeakLiveSetAndFragmentation) {
  const MemoryProfile m = compute_memory_profile(profile_of(known_sequence()));
  ASSERT_EQ(m.memory_ids.size(), 1u);
  const MemorySummary& s = m.memory_ids[0].summary;
  EXPECT_EQ(s.memory_id, "GPU_0_bfc");
  EXPECT_EQ(s.num_allocs, 5u);
  EXPECT_EQ(s.num_deallocs, 3u);
  EXPECT_EQ(s.heap_bytes, 7500);
  EXPECT_EQ(s.stack_bytes, 100);
  EXPECT_EQ(s.peak_heap_bytes, 7600);      // stack + heap
  EXPECT_EQ(s.free_bytes, 2400);
  EXPECT_EQ(s.capacity_bytes, 10000);
  EXPECT_DOUBLE_EQ(s.fragmentation_pct, 25.0);
  EXPECT_DOUBLE_EQ(double(s.peak_time_ps) / double(kPsPerMs), 6.0);  // the sixth event, at 6 ms
  EXPECT_EQ(s.peak_step, 7);
  EXPECT_EQ(s.lifetime_peak_heap_bytes, 9000);
  EXPECT_EQ(s.live_allocations, 4u);

  const auto& rows = m.memory_ids[0].breakdown;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op, "conv2");
  EXPECT_EQ(rows[0].allocation_bytes, 3000);
  EXPECT_EQ(rows[1].op, "matmul");
  EXPECT_EQ(rows[1].allocation_bytes, 2500);
  EXPECT_EQ(rows[1].region_type, "temp");
  EXPECT_EQ(rows[2].op, "conv1");
  EXPECT_EQ(rows[2].allocation_bytes, 2000);
  EXPECT_EQ(rows[2].requested_bytes, 1990);
  EXPECT_EQ(rows[2].occurrences, 2u);
  EXPECT_EQ(rows[2].data_type, "float");
  EXPECT_EQ(rows[2].shape, "[10,25]");
  EXPECT_EQ(rows[2].region_type, "output");
}

TEST(MemoryProfile, TimelineCarriesEachEventAndTheStateAfterIt) {
  const MemoryProfile m = compute_memory_profile(profile_of(known_sequence()));
  const auto& t = m.memory_ids[0].timeline;
  ASSERT_EQ(t.size(), 8u);  // fewer than 1,000 events: all of them
  EXPECT_FALSE(t[3].allocation);
  EXPECT_EQ(t[3].op, "relu");
  EXPECT_EQ(t[3].heap_bytes, 4000);
  EXPECT_EQ(t[3].free_bytes, 10000 - 100 - 4000);
  EXPECT_DOUBLE_EQ(t[3].fragmentation_pct, 20.0);
  EXPECT_EQ(t[3].allocation_bytes, 500);
  EXPECT_EQ(t[3].shape, "[5,50]");
  EXPECT_EQ(t[3].address, 0xCu);
  const nlohmann::json j = to_json(m);
  const auto& p = j["memory_ids"][0]["timeline"][3];
  EXPECT_EQ(p["event"], "deallocation");
  EXPECT_EQ(p["allocation_bytes"], -500);  // frees are negative, as TensorBoard shows them
  EXPECT_EQ(p["requested_bytes"], -500);
  EXPECT_EQ(p["memory_in_use_bytes"], 4100);
  EXPECT_EQ(p["step"], 7);
}

TEST(MemoryProfile, LargestFreeChunkGivesTheFragmentation) {
  // Free 5000 after the allocation, of which the largest chunk holds 1250: 75 % fragmented.
  SequenceShape shape;
  shape.stack = 0;
  const MemoryProfile m = compute_memory_profile(
      profile_of({{true, 0x1, 5000, "op", "", "", "", std::nullopt, int64_t(1250)}}, shape));
  EXPECT_DOUBLE_EQ(m.memory_ids[0].summary.fragmentation_pct, 75.0);
  EXPECT_EQ(m.memory_ids[0].summary.free_bytes, 5000);
}

TEST(MemoryProfile, HeapAllocatedBeforeTheProfileIsItsOwnRow) {
  // 4000 bytes were in use when the profile began; one such block (0xF, 1500) is freed late.
  SequenceShape shape;
  shape.heap_before = 4000;
  const MemoryProfile m = compute_memory_profile(profile_of(
      {{true, 0x1, 1000, "a"}, {true, 0x2, 2000, "b"}, {false, 0x2, 2000, "b"}, {false, 0xF, 1500}}, shape));
  const MemoryIdProfile& id = m.memory_ids[0];
  EXPECT_EQ(id.summary.heap_bytes, 7000);
  ASSERT_EQ(id.breakdown.size(), 3u);
  EXPECT_EQ(id.breakdown[0].op, kAllocatedBeforeProfile);
  EXPECT_EQ(id.breakdown[0].allocation_bytes, 4000);
  EXPECT_EQ(id.breakdown[0].occurrences, 1u);  // the one the profile saw freed
  int64_t total = 0;
  for (const auto& r : id.breakdown) total += r.allocation_bytes;
  EXPECT_EQ(total, id.summary.heap_bytes);
}

TEST(MemoryProfile, AllocatorThatReportsOnlySizes) {
  // record_allocation with just address and bytes: the heap follows the blocks.
  SequenceShape shape;
  shape.report_state = false;
  const MemoryProfile m = compute_memory_profile(
      profile_of({{true, 0x1, 100}, {true, 0x2, 300}, {false, 0x1, 100}, {true, 0x3, 50}, {false, 0x2, 300}}, shape));
  const MemorySummary& s = m.memory_ids[0].summary;
  EXPECT_EQ(s.peak_heap_bytes, 400);
  EXPECT_EQ(s.heap_bytes, 400);
  EXPECT_EQ(s.free_bytes, 0);
  EXPECT_EQ(s.lifetime_peak_heap_bytes, 400);
  EXPECT_EQ(m.memory_ids[0].timeline.back().heap_bytes, 50);
}

TEST(MemoryProfile, TraceMeEncodedNamesAndTensorFlowDataTypes) {
  // TensorFlow writes the stats into the name (MemoryAllocation#k=v,...#) and data_type as
  // its DataType number (19: half).
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "executor", 1'700'000'000'000'000'000);
  host.event(line,
             "MemoryAllocation#allocator_name=gpu_host_bfc,bytes_allocated=4096,bytes_available=4096,"
             "allocation_bytes=4096,requested_bytes=4000,addr=77,tf_op=embedding/Gather,region_type=output,"
             "data_type=19,shape=[4,16],id=3#",
             kPsPerMs, 0);
  const MemoryProfile m = compute_memory_profile(testing::import_space(space));
  ASSERT_EQ(m.memory_ids.size(), 1u);
  const MemoryIdProfile& id = m.memory_ids[0];
  EXPECT_EQ(id.summary.memory_id, "gpu_host_bfc");
  EXPECT_EQ(id.summary.peak_heap_bytes, 4096);
  EXPECT_EQ(id.summary.capacity_bytes, 8192);
  EXPECT_EQ(id.summary.peak_step, 3);
  ASSERT_EQ(id.breakdown.size(), 1u);
  EXPECT_EQ(id.breakdown[0].op, "embedding/Gather");
  EXPECT_EQ(id.breakdown[0].data_type, "half");
  EXPECT_EQ(id.breakdown[0].shape, "[4,16]");  // commas inside brackets do not split
  EXPECT_EQ(id.breakdown[0].requested_bytes, 4000);
}

TEST(MemoryProfile, OpIsTheEnclosingEventWhenNoneIsNamed) {
  // PyTorch's [memory] instants sit inside the op that allocated.
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "python", 1'700'000'000'000'000'000);
  host.event(line, "aten::empty", 0, 10 * testing::kPsPerUs);
  host.event(line, "MemoryAllocation", 5 * testing::kPsPerUs, 0,
             {{"allocator_name", std::string("cuda:0")}, {"addr", uint64_t(1)}, {"allocation_bytes", uint64_t(512)},
              {"bytes_allocated", int64_t(512)}});
  const MemoryProfile m = compute_memory_profile(testing::import_space(space));
  ASSERT_EQ(m.memory_ids.size(), 1u);
  ASSERT_EQ(m.memory_ids[0].breakdown.size(), 1u);
  EXPECT_EQ(m.memory_ids[0].breakdown[0].op, "aten::empty");
}

TEST(MemoryProfile, OneMemoryIdPerAllocatorLargestPeakFirst) {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* a = host.line(1, "t1", 1'700'000'000'000'000'000);
  auto* b = host.line(2, "t2", 1'700'000'000'000'000'000);
  SequenceShape small, large;
  small.allocator = "cpu";
  large.allocator = "GPU_0_bfc";
  add_sequence(host, a, {{true, 1, 100}, {false, 1, 100}}, small);
  add_sequence(host, b, {{true, 1, 5000}}, large);
  add_sequence(host, a, {{true, 2, 200}}, small, 10);  // the same allocator on the same thread, later
  const MemoryProfile m = compute_memory_profile(testing::import_space(space));
  ASSERT_EQ(m.memory_ids.size(), 2u);
  EXPECT_EQ(m.memory_ids[0].summary.memory_id, "GPU_0_bfc");
  EXPECT_EQ(m.memory_ids[1].summary.memory_id, "cpu");
  EXPECT_EQ(m.memory_ids[1].summary.num_allocs, 2u);
  EXPECT_EQ(m.memory_ids[1].summary.peak_heap_bytes, 100 + 200);  // stack 100 + heap 200

  MemoryProfileOptions only_cpu;
  only_cpu.memory_id = "cpu";
  const MemoryProfile one = compute_memory_profile(testing::import_space(space), only_cpu);
  ASSERT_EQ(one.memory_ids.size(), 1u);
  EXPECT_EQ(one.memory_ids[0].summary.memory_id, "cpu");
}

// One allocator's events recorded on two threads, interleaved in time: read in time order,
// not thread by thread (thread by thread, B's free would come before its allocation).
model::Profile two_thread_profile() {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* t1 = host.line(1, "t1", 1'700'000'000'000'000'000);
  auto* t2 = host.line(2, "t2", 1'700'000'000'000'000'000);
  SequenceShape sizes_only;
  sizes_only.report_state = false;  // the heap then follows the allocations, so their order shows
  add_sequence(host, t1, {{true, 0xA, 1000}}, sizes_only, 1);
  add_sequence(host, t1, {{false, 0xB, 3000}}, sizes_only, 4);
  add_sequence(host, t2, {{true, 0xB, 3000}, {true, 0xC, 500}}, sizes_only, 2);
  return testing::import_space(space);
}

TEST(MemoryProfile, OneAllocatorOnSeveralThreadsIsReadInTimeOrder) {
  const MemoryProfile m = compute_memory_profile(two_thread_profile());
  EXPECT_TRUE(m.warnings.empty());
  ASSERT_EQ(m.memory_ids.size(), 1u);
  const MemoryIdProfile& id = m.memory_ids[0];
  EXPECT_EQ(id.summary.peak_heap_bytes, 4500);
  EXPECT_EQ(id.summary.peak_time_ps, 3 * kPsPerMs);
  EXPECT_EQ(id.summary.live_allocations, 3u);
  std::vector<int64_t> heap;
  for (const MemoryTimelinePoint& p : id.timeline) heap.push_back(p.heap_bytes);
  EXPECT_EQ(heap, (std::vector<int64_t>{1000, 4000, 4500, 1500}));
}

// The overview's question alone: the same summaries (bar the live count, which needs the
// breakdown), in the same order.
TEST(MemoryProfile, PeaksAloneMatchTheFullProfile) {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  SequenceShape cpu;
  cpu.allocator = "cpu";
  add_sequence(host, host.line(1, "t1", 1'700'000'000'000'000'000), known_sequence(), {});
  add_sequence(host, host.line(2, "t2", 1'700'000'000'000'000'000), {{true, 1, 300}, {false, 1, 300}}, cpu);
  for (const model::Profile& p : {testing::import_space(space), two_thread_profile()}) {
    const MemoryProfile full = compute_memory_profile(p);
    const std::vector<MemorySummary> peaks = compute_memory_peaks(p);
    ASSERT_EQ(peaks.size(), full.memory_ids.size());
    for (size_t i = 0; i < peaks.size(); ++i) {
      const MemorySummary &a = peaks[i], &b = full.memory_ids[i].summary;
      EXPECT_EQ(a.memory_id, b.memory_id);
      EXPECT_EQ(a.num_allocs, b.num_allocs);
      EXPECT_EQ(a.num_deallocs, b.num_deallocs);
      EXPECT_EQ(a.capacity_bytes, b.capacity_bytes);
      EXPECT_EQ(a.lifetime_peak_heap_bytes, b.lifetime_peak_heap_bytes);
      EXPECT_EQ(a.peak_heap_bytes, b.peak_heap_bytes);
      EXPECT_EQ(a.peak_time_ps, b.peak_time_ps);
      EXPECT_EQ(a.peak_step, b.peak_step);
      EXPECT_EQ(a.stack_bytes, b.stack_bytes);
      EXPECT_EQ(a.heap_bytes, b.heap_bytes);
      EXPECT_EQ(a.free_bytes, b.free_bytes);
      EXPECT_EQ(a.fragmentation_pct, b.fragmentation_pct);
      EXPECT_EQ(a.live_allocations, 0u);
    }
  }
  EXPECT_EQ(compute_memory_peaks(testing::import_space(space))[0].memory_id, "GPU_0_bfc");  // the largest peak first
}

TEST(MemoryProfile, BreakdownSortsAndFilters) {
  const model::Profile p = profile_of(known_sequence());
  MemoryProfileOptions o;
  o.breakdown_sort = "occurrences";
  EXPECT_EQ(compute_memory_profile(p, o).memory_ids[0].breakdown[0].op, "conv1");
  o.breakdown_sort = "op";
  const auto by_name = compute_memory_profile(p, o).memory_ids[0].breakdown;
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_EQ(by_name[0].op, "conv1");
  EXPECT_EQ(by_name[2].op, "matmul");
  o.breakdown_filter = "CONV";
  const auto filtered = compute_memory_profile(p, o).memory_ids[0].breakdown;
  ASSERT_EQ(filtered.size(), 2u);
  EXPECT_EQ(filtered[1].op, "conv2");
  // The summary is the same whatever the table shows.
  EXPECT_EQ(compute_memory_profile(p, o).memory_ids[0].summary.peak_heap_bytes, 7600);
}

TEST(MemoryProfile, JsonAndCsvForms) {
  const MemoryProfile m = compute_memory_profile(profile_of(known_sequence()));
  const nlohmann::json j = to_json(m);
  ASSERT_TRUE(j.contains("memory_ids"));
  const auto& id = j["memory_ids"][0];
  for (const char* key : {"num_allocs", "num_deallocs", "peak_heap_bytes", "peak_time_ms", "stack_bytes", "heap_bytes",
                          "free_bytes", "fragmentation_pct", "capacity_bytes", "lifetime_peak_heap_bytes", "memory_id"})
    EXPECT_TRUE(id["summary"].contains(key)) << key;
  EXPECT_DOUBLE_EQ(id["summary"]["peak_time_ms"].get<double>(), 6.0);
  EXPECT_TRUE(id["timeline"].is_array());
  EXPECT_EQ(id["breakdown"].size(), 3u);
  for (const char* key : {"op", "allocation_bytes", "requested_bytes", "occurrences", "region_type", "data_type", "shape"})
    EXPECT_TRUE(id["breakdown"][0].contains(key)) << key;
  EXPECT_EQ(to_csv(m),
            "memory_id,op,allocation_bytes,requested_bytes,occurrences,region_type,data_type,shape\n"
            "GPU_0_bfc,conv2,3000,3000,1,output,float,\"[30,25]\"\n"
            "GPU_0_bfc,matmul,2500,2500,1,temp,float,\"[25,25]\"\n"
            "GPU_0_bfc,conv1,2000,1990,2,output,float,\"[10,25]\"\n");
}

TEST(MemoryProfile, NoMemoryEvents) {
  const MemoryProfile m = compute_memory_profile(testing::import_space(testing::training_space({})));
  EXPECT_TRUE(m.memory_ids.empty());
  EXPECT_EQ(to_json(m)["memory_ids"].size(), 0u);
}

}  // namespace
}  // namespace mlprof::analysis
