// Lines of threads the OS gave the same id: the kernel hands an exited thread's id to a new
// thread, sooner on machines with a small pid_max. Each thread keeps a line of its own.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "capture/arena.h"
#include "capture/arena_capture.h"
#include "capture/recorder.h"
#include "capture/thread_name.h"
#include "capture/xspace_export.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {
namespace {

constexpr uint64_t kSessionId = 2000;

TEST(ThreadLines, ThreadsGivenTheSameIdKeepTheirOwnLinesAndNames) {
  Arena* arena = Arena::create(kSessionId, uint64_t{4} << 20);
  ASSERT_NE(arena, nullptr);
  thread_names_capture_begins();  // names stay until the export, as in a session
  g_arena.store(arena);
  g_epoch.store(kSessionId);
  const ClockPair start = read_clock_pair();
  auto thread_writing = [](const char* name, int events) {
    std::thread([=] {
      set_thread_name(name);
      for (int i = 0; i < events; ++i) internal::record_literal("work", now_ticks(), now_ticks());
    }).join();
  };
  thread_writing("first", 3);
  thread_writing("second", 5);
  thread_writing("third", 2);
  const ClockPair stop = read_clock_pair();
  g_epoch.store(0);
  arena->close();
  g_arena.store(nullptr);
  // Each thread, exiting, gave its chunk's free space to the next: one chunk, three segments.
  ASSERT_EQ(arena->chunks_taken(), 1u);
  // As if the OS had given all three threads one id.
  const ChunkHeader* chunk = arena->chunk(0);
  const char* p = reinterpret_cast<const char*>(chunk + 1);
  const char* end = reinterpret_cast<const char*>(chunk) + chunk->published.load();
  uint32_t shared_tid = 0;
  int segments = 0;
  while (p < end) {
    if (*reinterpret_cast<const uint64_t*>(p) == kThreadSegment) {
      auto* segment = const_cast<ThreadSegmentRecord*>(reinterpret_cast<const ThreadSegmentRecord*>(p));
      if (shared_tid == 0) shared_tid = segment->tid;
      segment->tid = shared_tid;
      ++segments;
      p += sizeof(ThreadSegmentRecord);
    } else {
      p += sizeof(LiteralRecord);
    }
  }
  ASSERT_EQ(segments, 3);

  mlprof::testing::ScratchDir dir;
  CaptureToExport capture = arena_capture(arena, start, stop, start);
  ExportCounts counts;
  std::string error;
  ASSERT_TRUE(export_xspace(capture, dir / "t.xplane.pb", &counts, &error)) << error;
  thread_names_capture_ends();
  arena->release();
  EXPECT_EQ(counts.events, 10u);

  tensorflow::profiler::XSpace space;
  ASSERT_TRUE(format::read_xspace(dir / "t.xplane.pb", &space, &error)) << error;
  std::map<std::string, int> events_by_line;
  for (const auto& line : space.planes(0).lines()) {
    EXPECT_EQ(line.id(), shared_tid);
    events_by_line[line.name()] = line.events_size();
  }
  EXPECT_EQ(events_by_line, (std::map<std::string, int>{{"first", 3}, {"second", 5}, {"third", 2}}));
  // In the order the threads came.
  ASSERT_EQ(space.planes(0).lines_size(), 3);
  EXPECT_EQ(space.planes(0).lines(0).name(), "first");
  EXPECT_EQ(space.planes(0).lines(2).name(), "third");
}

}  // namespace
}  // namespace mlprof::capture
