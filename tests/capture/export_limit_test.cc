// The exporter when the XSpace would be too large to read back: the latest events are left
// out, what remains fits, and a warning says so. The real limit is protobuf's 2 GiB; here a
// small one stands in for it.
#include <gtest/gtest.h>

#include <filesystem>

#include "capture/arena.h"
#include "capture/arena_capture.h"
#include "capture/recorder.h"
#include "capture/xspace_export.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {
namespace {

constexpr uint64_t kSessionId = 1000;

// Records `count` events into a fresh arena, as a session would, and closes it.
Arena* record_into_arena(int count, ClockPair* start, ClockPair* stop) {
  Arena* arena = Arena::create(kSessionId, uint64_t{16} << 20);
  g_arena.store(arena);
  g_epoch.store(kSessionId);
  *start = read_clock_pair();
  for (int i = 0; i < count; ++i) {
    const uint64_t begin = now_ticks();
    internal::record_literal(i % 2 == 0 ? "even" : "odd", begin, now_ticks());
  }
  *stop = read_clock_pair();
  g_epoch.store(0);
  arena->close();
  g_arena.store(nullptr);
  return arena;
}

TEST(ExportLimit, LeavesOutTheLatestEventsToFit) {
  ClockPair start, stop;
  Arena* arena = record_into_arena(100000, &start, &stop);
  mlprof::testing::ScratchDir dir;
  CaptureToExport capture = arena_capture(arena, start, stop, start);

  ExportCounts all;
  std::string error;
  ASSERT_TRUE(export_xspace(capture, dir / "all.xplane.pb", &all, &error)) << error;
  EXPECT_EQ(all.events, 100000u);
  const uint64_t full_size = std::filesystem::file_size(dir / "all.xplane.pb");

  capture.max_file_bytes = full_size / 3;
  ExportCounts part;
  ASSERT_TRUE(export_xspace(capture, dir / "part.xplane.pb", &part, &error)) << error;
  EXPECT_LE(std::filesystem::file_size(dir / "part.xplane.pb"), capture.max_file_bytes);
  EXPECT_GT(part.events, 100000u / 4);
  EXPECT_LT(part.events, 100000u / 2);

  tensorflow::profiler::XSpace space;
  ASSERT_TRUE(format::read_xspace(dir / "part.xplane.pb", &space, &error)) << error;
  ASSERT_EQ(space.warnings_size(), 1);
  EXPECT_NE(space.warnings(0).find("left out the " + std::to_string(100000 - part.events) + " events"),
            std::string::npos) << space.warnings(0);
  const auto& line = space.planes(0).lines(0);
  ASSERT_EQ(uint64_t(line.events_size()), part.events);
  // The earliest events are the ones kept, in order.
  tensorflow::profiler::XSpace whole;
  ASSERT_TRUE(format::read_xspace(dir / "all.xplane.pb", &whole, &error)) << error;
  for (int i = 0; i < line.events_size(); ++i) {
    ASSERT_EQ(line.events(i).offset_ps(), whole.planes(0).lines(0).events(i).offset_ps());
  }
  arena->release();
}

}  // namespace
}  // namespace mlprof::capture
