// Writes a logdir with known content for the server and browser tests:
//
//   LOGDIR/plugins/profile/input_bound/trainer.xplane.pb   10 steps of 100 to 104 ms; the
//       training thread waits 60 to 64 ms per step for its next batch (Iterator::Prefetch):
//       HIGHLY input-bound.
//   LOGDIR/plugins/profile/healthy/{trainer,worker1}.xplane.pb   10 steps of 100 to 104 ms
//       with a 2 to 6 ms input wait: not input-bound. Two hosts, for the host picker.
//
// Each step, on the "train" thread: Iterator::Prefetch (input wait), forward (aten::addmm,
// aten::relu), backward (aten::mm), optimizer_update. On the "input_loader" thread:
// Iterator::Prefetch::Map containing Iterator::Prefetch::Map::FileRead. Times are exact, so
// tests can assert the numbers the tools derive from them.
//
//   usage: write_fixture_logdir LOGDIR
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "xplane.pb.h"

namespace {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;

constexpr int64_t kPsPerMs = 1'000'000'000;
constexpr int64_t kStartNs = 1'700'000'000'000'000'000;  // 2023-11-14, ns since the epoch
constexpr int kSteps = 10;
constexpr int64_t kStepMs = 100;     // without the input wait's jitter
constexpr int64_t kStepPeriodMs = 110;

// Interns event and stat names into a plane's metadata.
class PlaneWriter {
 public:
  explicit PlaneWriter(XPlane* plane) : plane_(plane) {}

  XLine* add_line(int64_t id, const std::string& name) {
    XLine* line = plane_->add_lines();
    line->set_id(id);
    line->set_display_id(id);
    line->set_name(name);
    line->set_timestamp_ns(kStartNs);
    return line;
  }

  // An event [begin_ms, end_ms) from the line's start; fractions of a ms are fine.
  XEvent* add_event(XLine* line, const std::string& name, double begin_ms, double end_ms) {
    XEvent* e = line->add_events();
    e->set_metadata_id(event_id(name));
    e->set_offset_ps(static_cast<int64_t>(begin_ms * kPsPerMs));
    e->set_duration_ps(static_cast<int64_t>((end_ms - begin_ms) * kPsPerMs));
    return e;
  }

  void add_int_stat(XEvent* e, const std::string& name, int64_t value) {
    auto* s = e->add_stats();
    s->set_metadata_id(stat_id(name));
    s->set_int64_value(value);
  }

 private:
  int64_t event_id(const std::string& name) {
    auto [it, added] = event_ids_.emplace(name, int64_t(event_ids_.size() + 1));
    if (added) {
      auto& md = (*plane_->mutable_event_metadata())[it->second];
      md.set_id(it->second);
      md.set_name(name);
    }
    return it->second;
  }
  int64_t stat_id(const std::string& name) {
    auto [it, added] = stat_ids_.emplace(name, int64_t(stat_ids_.size() + 1));
    if (added) {
      auto& md = (*plane_->mutable_stat_metadata())[it->second];
      md.set_id(it->second);
      md.set_name(name);
    }
    return it->second;
  }

  XPlane* plane_;
  std::map<std::string, int64_t> event_ids_;
  std::map<std::string, int64_t> stat_ids_;
};

// Milliseconds each step spends in its parts; they add up to kStepMs.
struct StepShape {
  double input_wait, forward, addmm, relu, backward, mm, optimizer;
};

XSpace make_space(const std::string& host, const StepShape& s) {
  XSpace space;
  space.add_hostnames(host);
  XPlane* plane = space.add_planes();
  plane->set_id(1);
  plane->set_name("/host:CPU");
  PlaneWriter w(plane);
  XLine* train = w.add_line(101, "train");
  XLine* loader = w.add_line(102, "input_loader");
  for (int step = 0; step < kSteps; ++step) {
    const double t = double(step * kStepPeriodMs);
    const double wait = s.input_wait + double((step * 7) % 5);  // 0 to 4 ms more, for a lively chart
    XEvent* root = w.add_event(train, "train", t, t + kStepMs + (wait - s.input_wait));
    w.add_int_stat(root, "step_num", step);
    w.add_int_stat(root, "_r", 1);
    double at = t;
    w.add_event(train, "Iterator::Prefetch", at, at + wait);
    at += wait;
    w.add_event(train, "forward", at, at + s.forward);
    w.add_event(train, "aten::addmm", at + 0.5, at + 0.5 + s.addmm);
    w.add_event(train, "aten::relu", at + 0.5 + s.addmm, at + 0.5 + s.addmm + s.relu);
    at += s.forward;
    w.add_event(train, "backward", at, at + s.backward);
    w.add_event(train, "aten::mm", at + 0.5, at + 0.5 + s.mm);
    at += s.backward;
    w.add_event(train, "optimizer_update", at, at + s.optimizer);

    // The loader prepares the next batch while this step runs.
    const double read = s.input_wait > 10 ? 50 : 4;
    w.add_event(loader, "Iterator::Prefetch::Map", t, t + read + 8);
    w.add_event(loader, "Iterator::Prefetch::Map::FileRead", t + 1, t + 1 + read);
  }
  return space;
}

bool write(const std::filesystem::path& file, const XSpace& space) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  return space.SerializeToOstream(&out) && out.good();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOGDIR\n", argv[0]);
    return 1;
  }
  const std::filesystem::path runs = std::filesystem::path(argv[1]) / "plugins" / "profile";
  const StepShape input_bound{60, 15, 10, 3, 20, 16, 5};
  const StepShape healthy{2, 40, 30, 8, 50, 45, 8};
  bool ok = write(runs / "input_bound" / "trainer.xplane.pb", make_space("trainer", input_bound)) &&
            write(runs / "healthy" / "trainer.xplane.pb", make_space("trainer", healthy)) &&
            write(runs / "healthy" / "worker1.xplane.pb", make_space("worker1", healthy));
  if (!ok) {
    std::fprintf(stderr, "write_fixture_logdir: cannot write under %s\n", runs.c_str());
    return 2;
  }
  return 0;
}
