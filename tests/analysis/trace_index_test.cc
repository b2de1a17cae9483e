// The viewport query on hand-built lines: exact events and merged boxes for a few viewports,
// and the same answer as a plain scan on a long row with a wide event among narrow ones; the
// compact forms the index keeps (row events in 1, 2 or 4 bytes, block maxima in 16 bits).
#include <gtest/gtest.h>

#include "analysis/trace_viewer/trace_index.h"
#include "analysis/trace_viewer/trace_range_summary.h"
#include "analysis/trace_viewer/trace_search.h"
#include "analysis/trace_test_profile.h"

namespace mlprof {
namespace {

using analysis::TraceBox;
using analysis::TraceIndex;
using analysis::TraceViewport;

// One thread whose events are given as (start, duration) in ps, named e0, e1, ...
model::Profile one_line(const std::vector<std::pair<int64_t, int64_t>>& events) {
  tensorflow::profiler::XSpace space;
  auto host = testing::add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "t", 0);
  for (size_t i = 0; i < events.size(); ++i) host.event(line, "e" + std::to_string(i), events[i].first, events[i].second);
  const std::string bytes = space.SerializeAsString();
  model::Profile p;
  std::string error;
  EXPECT_TRUE(model::import_xspace_bytes(bytes.data(), bytes.size(), "h", &p, &error)) << error;
  return p;
}

// Boxes as text: "name@start+dur" for events, "N×start+dur" for merged boxes.
std::vector<std::string> query(const model::Profile& p, const TraceIndex& index, int64_t start, int64_t end, uint32_t width) {
  std::vector<TraceBox> boxes;
  EXPECT_EQ(index.tracks().size(), 1u);
  EXPECT_EQ(index.tracks()[0].rows.size(), 1u);
  index.query_row(index.tracks()[0].rows[0], TraceViewport{start, end, width}, boxes);
  std::vector<std::string> out;
  for (const TraceBox& b : boxes) {
    const std::string where = std::to_string(b.start_ps) + "+" + std::to_string(b.duration_ps);
    out.push_back(b.event != model::kNone ? std::string(p.name(b.event)) + "@" + where
                                          : std::to_string(b.count) + "x" + where);
  }
  return out;
}

class ViewportTest : public ::testing::Test {
 protected:
  // 100 ps per pixel in the first viewport ([0, 1000) at 10 px).
  model::Profile p = one_line({{0, 250},      // e0: wide
                               {300, 10},     // e1..e3: narrow, one column
                               {320, 10},
                               {340, 10},
                               {410, 10},     // e4, e5: narrow, one column
                               {430, 10},
                               {520, 10},     // e6: narrow, alone before a wide one in its column
                               {540, 160},    // e7: wide
                               {950, 250},    // e8: wide, past the viewport's end
                               {1500, 100}}); // e9: outside
  TraceIndex index{p};
};

TEST_F(ViewportTest, WideEventsAndMergedRunsOfNarrowOnes) {
  EXPECT_EQ(query(p, index, 0, 1000, 10),
            (std::vector<std::string>{"e0@0+250", "3x300+50", "2x410+30", "e6@520+10", "e7@540+160", "e8@950+250"}));
}

TEST_F(ViewportTest, ZoomedInNarrowEventsBecomeEvents) {
  EXPECT_EQ(query(p, index, 300, 400, 10), (std::vector<std::string>{"e1@300+10", "e2@320+10", "e3@340+10"}));
}

TEST_F(ViewportTest, ZoomedOutEverythingMergesByColumn) {
  EXPECT_EQ(query(p, index, 0, 2000, 2), (std::vector<std::string>{"9x0+1200", "e9@1500+100"}));
}

TEST_F(ViewportTest, EventsStartingBeforeTheViewportAreKept) {
  EXPECT_EQ(query(p, index, 200, 600, 4), (std::vector<std::string>{"e0@0+250", "3x300+50", "2x410+30", "e6@520+10", "e7@540+160"}));
  EXPECT_EQ(index.begin_ps(), 0);
  EXPECT_EQ(index.end_ps(), 1600);
}

TEST(TraceIndex, LongRowSkipsNarrowRunsButFindsTheWideEvent) {
  std::vector<std::pair<int64_t, int64_t>> events;
  for (int64_t i = 0; i < 10000; ++i) {
    if (i >= 5000 && i < 5300) continue;
    events.push_back({i * 100, 10});
  }
  events.push_back({500000, 29000});  // one wide event where 300 narrow ones would be
  const model::Profile p = one_line(events);
  const TraceIndex index(p);
  std::vector<TraceBox> boxes;
  index.query_row(index.tracks()[0].rows[0], TraceViewport{0, 1000000, 100}, boxes);
  ASSERT_EQ(boxes.size(), 50u + 1u + 47u);
  uint64_t total = 0;
  for (size_t i = 0; i < boxes.size(); ++i) {
    total += boxes[i].count;
    if (i == 50) {
      EXPECT_EQ(boxes[i].start_ps, 500000);
      EXPECT_EQ(boxes[i].duration_ps, 29000);
      EXPECT_NE(boxes[i].event, model::kNone);
    } else {
      EXPECT_EQ(boxes[i].count, 100u) << i;
      EXPECT_EQ(boxes[i].duration_ps, 9910) << i;
    }
  }
  EXPECT_EQ(total, 9701u);
}

TEST(TraceIndex, NestedAndOverlappingEventsGetRowsByLaneAndDepth) {
  const model::Profile p = testing::trace_test_profile();
  const TraceIndex index(p);
  // main (3 depths), worker (depth 0 of lane 0, and lane 1), the stream.
  ASSERT_EQ(index.tracks().size(), 3u);
  EXPECT_EQ(index.tracks()[0].rows.size(), 3u);
  ASSERT_EQ(index.tracks()[1].rows.size(), 2u);
  EXPECT_EQ(index.tracks()[1].rows[1].lane, 1);
  EXPECT_EQ(p.name(index.tracks()[1].rows[1].events[0]), "overlapping_b");
}

TEST(TraceRowEvents, KeepsEveryIndexWhateverTheGaps) {
  for (const uint32_t gap : {1u, 7u, 300u, 70'000u}) {
    std::vector<model::EventIndex> events;
    for (uint32_t i = 0; i < 100; ++i) events.push_back(5 + i * gap + i / 10);
    const analysis::TraceRowEvents row(events);
    ASSERT_EQ(row.size(), events.size());
    for (size_t k = 0; k < events.size(); ++k) ASSERT_EQ(row[k], events[k]) << "gap " << gap << ", position " << k;
    // Blocks of 32 spanning under 256 indices take a byte per event.
    if (gap == 1) {
      EXPECT_LT(row.bytes_used(), 100u + 4 * 4 + 1);
    }
  }
  EXPECT_EQ(analysis::TraceRowEvents(std::vector<model::EventIndex>()).size(), 0u);
}

TEST(TraceIndex, DurationCeilingIsNeverBelowTheDurationAndClose) {
  for (const int64_t d : {int64_t(0), int64_t(1), int64_t(1023), int64_t(1024), int64_t(1025), int64_t(999'999),
                          int64_t(3'600'000), int64_t(1) << 40, (int64_t(1) << 40) + 1, INT64_MAX / 2}) {
    const int64_t c = analysis::decode_duration_ceiling(analysis::encode_duration_ceiling(d));
    EXPECT_GE(c, d);
    EXPECT_LE(double(c), double(d) * (1 + 1.0 / 512) + 1) << d;
  }
  EXPECT_EQ(analysis::decode_duration_ceiling(analysis::encode_duration_ceiling(1000)), 1000);
  EXPECT_LT(analysis::encode_duration_ceiling(1000), analysis::encode_duration_ceiling(5000));
}

TEST(TraceSearch, FindsNamesIgnoringCaseInTimeOrder) {
  const model::Profile p = testing::trace_test_profile();
  const auto r = analysis::search_trace(p, "OVERLAPPING", 10);
  ASSERT_EQ(r.total, 2u);
  EXPECT_EQ(p.name(r.events[0]), "overlapping_a");
  EXPECT_EQ(p.name(r.events[1]), "overlapping_b");
  EXPECT_EQ(analysis::search_trace(p, "a", 1).events.size(), 1u);
  EXPECT_EQ(p.name(analysis::search_trace(p, "a", 1).events[0]), "train");
}

// The longest first, and the scope: the GPU's kernel alone on device tracks, the host's events
// alone on host threads.
TEST(TraceSearch, SortsByDurationAndKeepsToTheScope) {
  const model::Profile p = testing::trace_test_profile();
  const auto all = analysis::search_trace(p, "", 10);
  EXPECT_EQ(all.total, 0u);
  const auto longest = analysis::search_trace(p, "a", 100, analysis::TraceSearchScope::kAll, analysis::TraceSearchOrder::kLongest);
  ASSERT_GE(longest.events.size(), 2u);
  for (size_t i = 1; i < longest.events.size(); ++i)
    EXPECT_GE(p.duration_ps(longest.events[i - 1]), p.duration_ps(longest.events[i]));
  const auto top = analysis::search_trace(p, "a", 1, analysis::TraceSearchScope::kAll, analysis::TraceSearchOrder::kLongest);
  ASSERT_EQ(top.events.size(), 1u);
  EXPECT_EQ(top.events[0], longest.events[0]);
  EXPECT_EQ(p.name(top.events[0]), "train");  // 100 µs
  EXPECT_EQ(top.total, 6u);  // train, forward, cudaLaunchKernel, overlapping_a and _b, kernel_a
  EXPECT_EQ(top.total, longest.total);
  const auto device = analysis::search_trace(p, "a", 100, analysis::TraceSearchScope::kDevice);
  const auto host = analysis::search_trace(p, "a", 100, analysis::TraceSearchScope::kHost);
  ASSERT_EQ(device.total, 1u);
  EXPECT_EQ(p.name(device.events[0]), "kernel_a");
  EXPECT_EQ(host.total, 5u);
  for (auto e : device.events) EXPECT_EQ(p.planes[p.line_of(e).plane].kind, model::PlaneKind::kDevice) << p.name(e);
  for (auto e : host.events) EXPECT_EQ(p.planes[p.line_of(e).plane].kind, model::PlaneKind::kHostThreads) << p.name(e);
}

// Two events on the worker thread that overlap without nesting (100..130 and 120..150 µs): from
// 120 µs the time is the later one's, so the track sums to the range's 50 µs, not 60.
TEST(TraceRangeSummary, SplitsPartlyOverlappingEventsByTheLaterStart) {
  const model::Profile p = testing::trace_test_profile();
  const auto s = analysis::summarize_trace_range(p, 100 * testing::kPsPerUs, 150 * testing::kPsPerUs, {}, 10);
  EXPECT_EQ(s.tracks, 1u);  // the worker thread (train ends as the range begins)
  EXPECT_EQ(s.busy_ps, 50 * testing::kPsPerUs);
  int64_t a = -1, b = -1;
  for (const auto& n : s.names) {
    if (n.name == "overlapping_a") a = n.self_ps;
    if (n.name == "overlapping_b") b = n.self_ps;
  }
  EXPECT_EQ(a, 20 * testing::kPsPerUs);
  EXPECT_EQ(b, 30 * testing::kPsPerUs);
}

}  // namespace
}  // namespace mlprof
