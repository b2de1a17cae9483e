// Framework ops as the exporter reads them back: the packed OpRecord keeps every field (the
// sequence number, beyond 32 bits too, the forward thread, the inputs, the flags, a name with
// no id), nested ops nest, the high bits of an op's start come from the OpTimeRecord before
// it, an op that outlasts the 32-bit tick count ends where it ended (OpEndRecord), and one
// still open at the stop ends there.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "capture/arena.h"
#include "capture/arena_capture.h"
#include "capture/input_description.h"
#include "capture/op_recorder.h"
#include "capture/recorder.h"
#include "capture/xspace_export.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {
namespace {

constexpr uint64_t kSessionId = 2000;

size_t encode_three(const void*, char* out, size_t capacity, bool* truncated) noexcept {
  InputWriter w(out, capacity);
  w.integer(3);
  *truncated = w.truncated();
  return w.size();
}

// Ends the test's session by hand, as stop() would, before the arena is exported.
void stop_recording(Arena* arena) {
  internal::g_trace_level.store(0);
  g_epoch.store(0);
  arena->close();
  g_arena.store(nullptr);
}

// Exports the capture and reads the file back.
tensorflow::profiler::XSpace export_and_read(const CaptureToExport& capture) {
  mlprof::testing::ScratchDir dir;
  ExportCounts counts;
  std::string error;
  tensorflow::profiler::XSpace space;
  EXPECT_TRUE(export_xspace(capture, dir / "ops.xplane.pb", &counts, &error)) << error;
  EXPECT_TRUE(format::read_xspace(dir / "ops.xplane.pb", &space, &error)) << error;
  return space;
}

struct Event {
  int64_t offset_ps, duration_ps;
  std::map<std::string, std::string> stats;
};

TEST(OpRecords, EveryFieldReadsBack) {
  // A clock pair long before now, so that an op can begin 2^33 ticks ago within the capture.
  const ClockPair a = read_clock_pair();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const ClockPair b = read_clock_pair();
  const double ns_per_tick = double(b.monotonic_ns - a.monotonic_ns) / double(b.ticks - a.ticks);
  constexpr uint64_t kLongTicks = uint64_t{1} << 33;
  ClockPair start = b;
  start.ticks -= 2 * kLongTicks;
  start.monotonic_ns -= int64_t(2 * kLongTicks * ns_per_tick);
  start.unix_ns -= int64_t(2 * kLongTicks * ns_per_tick);

  Arena* arena = Arena::create(kSessionId, uint64_t{16} << 20);
  g_arena.store(arena);
  g_epoch.store(kSessionId);
  internal::g_trace_level.store(3);
  OpStack* s = internal::this_thread_op_stack();
  ASSERT_NE(s, nullptr);

  auto named = [](const char* text) { return internal::OpNameRef{text, register_op_name(text)}; };
  internal::op_begin(*s, named("plain"), kInfo, 5, 0, 0);
  internal::op_begin(*s, named("nested backward"), kInfo, (int64_t{1} << 40) + 7, 42, kOpBackward);
  EXPECT_EQ(internal::op_end(), 1);
  EXPECT_EQ(internal::op_end(), 0);
  internal::op_begin(*s, named("with inputs"), kInfo, -1, 0, kOpFactory, encode_three, nullptr, 64);
  internal::op_end();
  internal::op_begin(*s, {"no name id", 0}, kInfo, 9, 0, 0, encode_three, nullptr, 64);
  internal::op_end();
  // As if "long" had begun 2^33 ticks ago: its time record (written since the thread's
  // latest is forgotten) says so, and the op after it needs one of its own again.
  t_state.op_time_high = kNoOpTimeHigh;
  internal::op_begin(*s, named("long"), kInfo, -1, 0, 0);
  OpFrame& long_frame = s->frames[0];
  ASSERT_NE(long_frame.record, nullptr);
  auto* time_record = reinterpret_cast<uint64_t*>(long_frame.record) - 1;
  ASSERT_EQ(typed_record_kind(*time_record), kOpTimeRecord);
  ASSERT_GE(op_time_high(*time_record), 2u);
  *time_record = op_time_record(op_time_high(*time_record) - 2);
  long_frame.start -= kLongTicks;
  const uint64_t long_start = long_frame.start;
  internal::op_end();
  const uint64_t long_end = now_ticks();
  t_state.op_time_high = kNoOpTimeHigh;
  internal::op_begin(*s, named("still open"), kInfo, -1, 0, 0);
  // Well before the stop: an op whose end got lost would end there instead.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  const ClockPair stop = read_clock_pair();
  stop_recording(arena);
  const tensorflow::profiler::XSpace space = export_and_read(arena_capture(arena, start, stop, a));
  internal::op_end();  // the op left open, after its session
  arena->release();
  ASSERT_GT(space.planes_size(), 0);
  const auto& plane = space.planes(0);
  std::map<std::string, Event> events;
  for (const auto& line : plane.lines())
    for (const auto& e : line.events()) {
      Event& out = events[plane.event_metadata().at(e.metadata_id()).name()];
      out.offset_ps = e.offset_ps();
      out.duration_ps = e.duration_ps();
      for (const auto& st : e.stats()) {
        const std::string& key = plane.stat_metadata().at(st.metadata_id()).name();
        if (st.has_int64_value()) out.stats[key] = std::to_string(st.int64_value());
        else if (st.has_uint64_value()) out.stats[key] = std::to_string(st.uint64_value());
        else if (st.has_ref_value()) out.stats[key] = plane.stat_metadata().at(st.ref_value()).name();
      }
    }
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events["plain"].stats["sequence_number"], "5");
  EXPECT_EQ(events["no name id"].stats["sequence_number"], "9");
  EXPECT_EQ(events["no name id"].stats["shape"], "(3)");
  EXPECT_GE(events["no name id"].offset_ps, events["with inputs"].offset_ps);
  EXPECT_EQ(events["nested backward"].stats["sequence_number"], std::to_string((int64_t{1} << 40) + 7));
  EXPECT_EQ(events["nested backward"].stats["fwd_thread_id"], "42");
  EXPECT_GE(events["nested backward"].offset_ps, events["plain"].offset_ps);
  EXPECT_LE(events["nested backward"].offset_ps + events["nested backward"].duration_ps,
            events["plain"].offset_ps + events["plain"].duration_ps);
  EXPECT_EQ(events["with inputs"].stats.count("sequence_number"), 0u);
  EXPECT_EQ(events["with inputs"].stats["shape"], "(3)");
  EXPECT_EQ(events["plain"].stats.count("shape"), 0u);
  const double long_ps = double(long_end - long_start) * ns_per_tick * 1000;
  EXPECT_NEAR(double(events["long"].duration_ps), long_ps, long_ps * 0.005);
  EXPECT_NEAR(double(events["long"].offset_ps), double(long_start - start.ticks) * ns_per_tick * 1000,
              long_ps * 0.005);
  // Open at the stop: it ends there.
  const Event& open = events["still open"];
  EXPECT_NEAR(double(open.offset_ps + open.duration_ps),
              double(stop.monotonic_ns - start.monotonic_ns) * 1000, 0.01 * 2 * kLongTicks * ns_per_tick * 1000);
}

// An op read just before its session's tick base (a core whose clock lags, a thread that read
// the clock as the session began) has all 32 high bits of its time set: it still gets its own
// OpTimeRecord, and the ops after it in the segment are read back.
TEST(OpRecords, AnOpBeforeTheTickBaseLeavesTheSegmentReadable) {
  const ClockPair start = read_clock_pair();
  Arena* arena = Arena::create(kSessionId + 1, uint64_t{16} << 20);
  // Ahead of the first op's clock by less than 2^32 ticks: its 32 high bits are all set.
  arena->set_tick_base(start.ticks + (uint64_t{1} << 31));
  g_arena.store(arena);
  g_epoch.store(kSessionId + 1);
  internal::g_trace_level.store(2);
  OpStack* s = internal::this_thread_op_stack();
  ASSERT_NE(s, nullptr);
  internal::op_begin(*s, {"before the base", register_op_name("before the base")}, kInfo, -1, 0, 0);
  internal::op_end();
  ASSERT_EQ(t_state.op_time_high, uint64_t{UINT32_MAX});
  // From here on the clock is past the base, as it soon is in a real session.
  t_state.tick_base = start.ticks - (uint64_t{1} << 30);
  arena->set_tick_base(t_state.tick_base);
  internal::op_begin(*s, {"after", register_op_name("after")}, kInfo, -1, 0, 0);
  internal::op_end();

  const ClockPair stop = read_clock_pair();
  stop_recording(arena);
  const tensorflow::profiler::XSpace space = export_and_read(arena_capture(arena, start, stop, start));
  arena->release();
  ASSERT_GT(space.planes_size(), 0);
  std::vector<std::string> names;
  for (const auto& line : space.planes(0).lines())
    for (const auto& e : line.events()) names.push_back(space.planes(0).event_metadata().at(e.metadata_id()).name());
  EXPECT_NE(std::find(names.begin(), names.end(), "after"), names.end());
}

}  // namespace
}  // namespace mlprof::capture
