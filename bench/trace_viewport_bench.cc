// The trace viewer at scale (docs/ARCHITECTURE.md §6: 100 M events answer a viewport query in ≤ 100 ms).
// Builds a synthetic profile straight into the model (16 threads, each a run of parents with
// three children), indexes it, prints the bytes per event of model and index, and times
// viewport queries over the whole trace, 1/10000 of it and 1 ms of it,
// panning a little between queries so no two are the same. Each query's time is given as
// wall time and as the thread's CPU time: on a busy machine the wall time also counts the
// time other processes had the core.
//   trace_viewport_bench [EVENTS]   (default 100000000)
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/trace_viewer/trace_index.h"
#include "model/profile.h"

namespace {

using Clock = std::chrono::steady_clock;
using mlprof::model::EventIndex;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Each group: a parent of 3.6 µs with three 1 µs children, one group every 4 µs.
mlprof::model::Profile synthetic_profile(size_t events, size_t threads) {
  mlprof::model::Profile p;
  mlprof::model::Host host;
  host.name = p.strings.intern("bench");
  host.num_planes = 1;
  p.hosts.push_back(host);
  mlprof::model::Plane plane;
  plane.name = p.strings.intern("/host:CPU");
  plane.kind = mlprof::model::PlaneKind::kHostThreads;
  plane.num_lines = uint32_t(threads);
  p.planes.push_back(plane);
  for (int n = 0; n < 4; ++n) p.names.push_back({p.strings.intern("op" + std::to_string(n)), mlprof::model::kEmptyString, {}});
  auto& ev = p.events;
  ev.reserve(events);
  ev.first_stat.reserve(events + 1);
  const size_t per_line = events / threads / 4 * 4;
  for (size_t t = 0; t < threads; ++t) {
    mlprof::model::Line line;
    line.name = p.strings.intern("thread " + std::to_string(t));
    line.id = int64_t(t + 1);
    line.kind = mlprof::model::LineKind::kThread;
    line.first_event = uint32_t(ev.size());
    line.num_events = uint32_t(per_line);
    p.lines.push_back(line);
    for (size_t g = 0; g < per_line / 4; ++g) {
      const int64_t t0 = int64_t(g) * 4'000'000 + int64_t(t) * 1000;
      const EventIndex parent = EventIndex(ev.size());
      for (int c = 0; c < 4; ++c) {
        ev.start_ps.push_back(c == 0 ? t0 : t0 + 100'000 + (c - 1) * 1'200'000);
        ev.duration_ps.push_back(c == 0 ? 3'600'000 : 1'000'000);
        ev.name.push_back(uint32_t(c));
        ev.parent.push_back(c == 0 ? mlprof::model::kNone : parent);
        ev.first_stat.push_back(0);
      }
    }
  }
  ev.first_stat.push_back(0);
  return p;
}

struct Timing {
  double p50 = 0, p99 = 0;          // wall
  double cpu_p50 = 0, cpu_p99 = 0;  // the thread's CPU time
  size_t boxes = 0;
};

Timing time_queries(const mlprof::analysis::TraceIndex& index, int64_t span, int64_t begin, int runs) {
  std::vector<double> ms, cpu;
  std::vector<mlprof::analysis::TraceBox> boxes;
  Timing t;
  for (int r = 0; r < runs; ++r) {
    const int64_t start = begin + span / 200 * (r % 10);  // pan by half a percent each time
    const mlprof::analysis::TraceViewport view{start, start + span, 2000};
    const auto t0 = Clock::now();
    const double cpu0 = thread_cpu_ms();
    size_t returned = 0;
    for (const auto& track : index.tracks())
      for (const auto& row : track.rows) {
        boxes.clear();
        index.query_row(row, view, boxes);
        returned += boxes.size();
      }
    ms.push_back(ms_since(t0));
    cpu.push_back(thread_cpu_ms() - cpu0);
    t.boxes = returned;
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  t.p50 = ms[ms.size() / 2];
  t.p99 = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  t.cpu_p50 = cpu[cpu.size() / 2];
  t.cpu_p99 = cpu[std::min(cpu.size() - 1, cpu.size() * 99 / 100)];
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000'000;
  auto t0 = Clock::now();
  const mlprof::model::Profile p = synthetic_profile(events, 16);
  const double build_model_ms = ms_since(t0);
  t0 = Clock::now();
  const mlprof::analysis::TraceIndex index(p);
  const double build_index_ms = ms_since(t0);
  size_t rows = 0;
  for (const auto& t : index.tracks()) rows += t.rows.size();
  std::printf("trace_viewport_bench: events %zu, tracks %zu, rows %zu, model %.2f GB (built in %.1f s), index %.2f GB\n",
              p.num_events(), index.tracks().size(), rows, p.bytes_used() / 1e9, build_model_ms / 1e3,
              index.bytes_used() / 1e9);
  const double n = double(p.num_events());
  std::printf("trace_viewport_bench: memory per event: model %.1f B + index %.2f B = %.1f B (target <= 40)\n",
              p.bytes_used() / n, index.bytes_used() / n, (p.bytes_used() + index.bytes_used()) / n);
  std::printf("trace_viewport_bench: index build %.2f s (%.1f ns per event)\n", build_index_ms / 1e3,
              build_index_ms * 1e6 / double(p.num_events()));
  const int64_t span = index.end_ps() - index.begin_ps();
  const Timing full = time_queries(index, span, index.begin_ps(), 50);
  std::printf("trace_viewport_bench: full-range query (2000 px, %zu boxes): p50 %.2f ms, p99 %.2f ms (CPU p50 %.2f ms, p99 %.2f ms)\n",
              full.boxes, full.p50, full.p99, full.cpu_p50, full.cpu_p99);
  const Timing zoomed = time_queries(index, span / 10000, index.begin_ps() + span / 2, 200);
  std::printf("trace_viewport_bench: zoomed query (1/10000 of the trace, 2000 px, %zu boxes): p50 %.3f ms, p99 %.3f ms (CPU p50 %.3f ms, p99 %.3f ms)\n",
              zoomed.boxes, zoomed.p50, zoomed.p99, zoomed.cpu_p50, zoomed.cpu_p99);
  const Timing one_ms = time_queries(index, 1'000'000'000, index.begin_ps() + span / 3, 200);
  std::printf("trace_viewport_bench: 1 ms query (2000 px, %zu boxes): p50 %.3f ms, p99 %.3f ms (CPU p50 %.3f ms, p99 %.3f ms)\n",
              one_ms.boxes, one_ms.p50, one_ms.p99, one_ms.cpu_p50, one_ms.cpu_p99);
  return 0;
}
