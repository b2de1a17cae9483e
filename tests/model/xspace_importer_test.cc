// The XSpace importer against hand-built files: columns, nesting, stats, annotation names,
// kinds, several hosts, and bad input.
#include <gtest/gtest.h>

#include "model/load_profile.h"
#include "model/xspace/importer.h"
#include "model/xspace_builder.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

tensorflow::profiler::XSpace nested_space() {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("worker0");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* thread = host.line(42, "main", 1000);
  // Written out of order on purpose: the importer sorts each line.
  host.event(thread, "inner", 20 * kPsPerUs, 10 * kPsPerUs, {{"k", int64_t(7)}});
  host.event(thread, "outer", 0, 100 * kPsPerUs, {{"step_num", int64_t(3)}, {"_r", int64_t(1)}});
  host.event(thread, "leaf", 22 * kPsPerUs, 2 * kPsPerUs);
  host.event(thread, "after", 100 * kPsPerUs, 5 * kPsPerUs);
  host.event(thread, "Iterator::Prefetch#id=5,shape=(1,2)#", 50 * kPsPerUs, 10 * kPsPerUs);
  auto gpu = add_plane(&space, 2, "/device:GPU:3");
  gpu.plane_stat("core_count", int64_t(80));
  auto* stream = gpu.line(7, "Stream #7(Compute)", 1002);
  gpu.event(stream, "kernel", 0, 5 * kPsPerUs, {{"correlation_id", uint64_t(9)}, {"d", 2.5}, {"s", std::string("x")}});
  gpu.line(int64_t(int32_t(0xdeadbeefu)), "Steps", 1002);
  gpu.line(int64_t(int32_t(0xdeadbeefu)) + 3, "TensorFlow Ops", 1002);
  return space;
}

EventIndex find_event(const Profile& p, std::string_view name) {
  for (EventIndex e = 0; e < p.num_events(); ++e)
    if (p.name(e) == name) return e;
  ADD_FAILURE() << "no event " << name;
  return 0;
}

TEST(XSpaceImporter, ReadsColumnsNestingAndStats) {
  const std::string bytes = nested_space().SerializeAsString();
  Profile p;
  std::string error;
  ASSERT_TRUE(import_xspace_bytes(bytes.data(), bytes.size(), "worker0", &p, &error)) << error;
  ASSERT_EQ(p.hosts.size(), 1u);
  EXPECT_EQ(p.strings.view(p.hosts[0].hostname), "worker0");
  ASSERT_EQ(p.planes.size(), 2u);
  EXPECT_EQ(p.planes[0].kind, PlaneKind::kHostThreads);
  EXPECT_EQ(p.planes[1].kind, PlaneKind::kDevice);
  EXPECT_EQ(p.strings.view(p.planes[1].device_type), "GPU");
  EXPECT_EQ(p.planes[1].device_ordinal, 3u);
  EXPECT_EQ(p.plane_stat(1, kCoreCount)->as_int(), 80);
  ASSERT_EQ(p.lines.size(), 4u);
  EXPECT_EQ(p.lines[0].kind, LineKind::kThread);
  EXPECT_EQ(p.lines[1].kind, LineKind::kStream);
  EXPECT_EQ(p.lines[2].kind, LineKind::kSteps);
  EXPECT_EQ(p.lines[3].kind, LineKind::kFrameworkOps);
  EXPECT_EQ(p.origin_ns, 1000);
  ASSERT_EQ(p.num_events(), 6u);

  // Sorted by start on the line.
  const Line& thread = p.lines[0];
  for (EventIndex e = thread.first_event + 1; e < thread.first_event + thread.num_events; ++e)
    EXPECT_LE(p.start_ps(e - 1), p.start_ps(e));

  const EventIndex outer = find_event(p, "outer"), inner = find_event(p, "inner"),
                   leaf = find_event(p, "leaf"), after = find_event(p, "after"),
                   prefetch = find_event(p, "Iterator::Prefetch"), kernel = find_event(p, "kernel");
  EXPECT_EQ(p.events.parent[outer], kNone);
  EXPECT_EQ(p.events.parent[inner], outer);
  EXPECT_EQ(p.events.parent[leaf], inner);
  EXPECT_EQ(p.events.parent[prefetch], outer);
  EXPECT_EQ(p.events.parent[after], kNone);  // starts exactly where outer ends
  EXPECT_EQ(p.start_ps(inner), 20 * kPsPerUs);
  EXPECT_EQ(p.duration_ps(outer), 100 * kPsPerUs);
  EXPECT_EQ(p.start_ps(kernel), 2000);  // its line starts 2 ns after the origin

  // Stats followed their events through the sort.
  EXPECT_EQ(p.stat(outer, kStepNum)->as_int(), 3);
  EXPECT_EQ(p.stat(outer, kIsRoot)->as_int(), 1);
  EXPECT_EQ(p.stat(inner, p.strings.find("k"))->as_int(), 7);
  EXPECT_FALSE(p.stat(leaf, kStepNum).has_value());
  EXPECT_EQ(p.stat(kernel, kCorrelationId)->as_uint(), 9u);
  EXPECT_DOUBLE_EQ(p.stat(kernel, p.strings.find("d"))->as_double(), 2.5);
  EXPECT_EQ(p.string_of(*p.stat(kernel, p.strings.find("s"))), "x");
  // Annotation arguments became stats of the name.
  EXPECT_EQ(p.stat(prefetch, kId)->as_int(), 5);
  EXPECT_EQ(p.string_of(*p.stat(prefetch, p.strings.find("shape"))), "(1,2)");
}

TEST(XSpaceImporter, RefValuesAndMetadataStats) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* line = host.line(1, "t", 0);
  auto* e = host.event(line, "op", 0, 10);
  auto* s = e->add_stats();
  s->set_metadata_id(host.stat_metadata("tf_op"));
  s->set_ref_value(uint64_t(host.stat_metadata("model/dense:MatMul")));
  auto& meta = (*host.plane()->mutable_event_metadata())[host.event_metadata("op")];
  auto* ms = meta.add_stats();
  ms->set_metadata_id(host.stat_metadata("long_name"));
  ms->set_str_value("the long name");
  const std::string bytes = space.SerializeAsString();
  Profile p;
  std::string error;
  ASSERT_TRUE(import_xspace_bytes(bytes.data(), bytes.size(), "h", &p, &error)) << error;
  EXPECT_EQ(p.string_of(*p.stat(0, kTfOp)), "model/dense:MatMul");
  EXPECT_EQ(p.string_of(*p.stat(0, kLongName)), "the long name");
}

TEST(XSpaceImporter, SeveralHostsShareOneOrigin) {
  TempDir dir;
  const std::string run = dir.path() + "/plugins/profile/2024_01_01_00_00_00";
  tensorflow::profiler::XSpace a, b;
  auto pa = add_plane(&a, 1, "/host:CPU");
  pa.event(pa.line(1, "t", 5000), "a", 0, 10);
  auto pb = add_plane(&b, 1, "/host:CPU");
  pb.event(pb.line(1, "t", 3000), "b", 0, 10);
  write_xspace(run + "/hostA.xplane.pb", a);
  write_xspace(run + "/hostB.xplane.pb", b);

  Profile p;
  LoadError error;
  ASSERT_TRUE(load_profile({dir.path(), "", ""}, &p, &error)) << error.path << ": " << error.problem;
  EXPECT_EQ(p.run, "2024_01_01_00_00_00");
  ASSERT_EQ(p.hosts.size(), 2u);
  EXPECT_EQ(p.strings.view(p.hosts[0].name), "hostA");
  EXPECT_EQ(p.origin_ns, 5000);
  EXPECT_EQ(p.start_ps(0), 0);
  EXPECT_EQ(p.start_ps(1), -2000 * 1000);  // hostB's line started 2 µs earlier
  EXPECT_EQ(p.planes[1].host, 1u);

  Profile only_b;
  ASSERT_TRUE(load_profile({dir.path(), "", "hostB"}, &only_b, &error)) << error.problem;
  ASSERT_EQ(only_b.hosts.size(), 1u);
  EXPECT_EQ(only_b.name(0), "b");

  Profile none;
  EXPECT_FALSE(load_profile({dir.path(), "", "hostC"}, &none, &error));
  EXPECT_NE(error.problem.find("hostA, hostB"), std::string::npos) << error.problem;
  EXPECT_FALSE(load_profile({dir.path(), "no_such_run", ""}, &none, &error));
}

TEST(XSpaceImporter, RejectsBadInputWithAReason) {
  TempDir dir;
  const std::string bytes = nested_space().SerializeAsString();
  struct Case {
    std::string name, content, expected;
  };
  const std::vector<Case> cases = {
      {"empty.xplane.pb", "", "empty file"},
      {"truncated.xplane.pb", bytes.substr(0, bytes.size() / 2), "truncated"},
      {"text.xplane.pb", "hello, this is a text file\nwith two lines\n", "not"},
      {"zeros.xplane.pb", std::string(64, '\0'), "not"},
  };
  for (const Case& c : cases) {
    write_file(dir.path() + "/" + c.name, c.content);
    Profile p;
    std::string error;
    EXPECT_FALSE(import_xspace_file(dir.path() + "/" + c.name, c.name, &p, &error)) << c.name;
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.name << ": " << error;
    EXPECT_EQ(p.num_events(), 0u);
    EXPECT_TRUE(p.hosts.empty());
  }
  Profile p;
  std::string error;
  EXPECT_FALSE(import_xspace_file(dir.path() + "/missing.xplane.pb", "m", &p, &error));
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_FALSE(import_xspace_file(dir.path(), "d", &p, &error));
  EXPECT_NE(error.find("directory"), std::string::npos) << error;

  LoadError load_error;
  TempDir empty;
  EXPECT_FALSE(load_profile({empty.path(), "", ""}, &p, &load_error));
  EXPECT_FALSE(load_error.problem.empty());
}

// A name from the file that an error quotes keeps the message one line (found by fuzzing).
TEST(XSpaceImporter, AnErrorQuotesANameOnOneLine) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  host.event(host.line(1, "first", 1000), "a", 0, 1);
  host.event(host.line(2, "input_loa\nder", INT64_MAX), "b", 0, 1);
  const std::string bytes = space.SerializeAsString();
  Profile p;
  std::string error;
  EXPECT_FALSE(import_xspace_bytes(bytes.data(), bytes.size(), "h", &p, &error));
  EXPECT_EQ(error, "line \"input_loa?der\" has a timestamp out of range");
  EXPECT_TRUE(p.hosts.empty());
}

TEST(XSpaceImporter, EveryTruncationAndBitFlipFailsCleanly) {
  const std::string good = nested_space().SerializeAsString();
  for (size_t size = 1; size < good.size(); ++size) {
    Profile p;
    std::string error;
    if (!import_xspace_bytes(good.data(), size, "h", &p, &error)) {
      EXPECT_FALSE(error.empty()) << size;
    }
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x5A);
    Profile p;
    std::string error;
    if (import_xspace_bytes(bad.data(), bad.size(), "h", &p, &error)) {
      // Whatever parsed must be consistent.
      EXPECT_EQ(p.events.first_stat.size(), p.num_events() + 1);
      for (EventIndex e = 0; e < p.num_events(); ++e) ASSERT_TRUE(p.events.parent[e] == kNone || p.events.parent[e] < e);
    } else {
      EXPECT_FALSE(error.empty()) << i;
    }
  }
}

TEST(XSpaceImporter, AFailedHostLeavesTheOthersIntact) {
  const std::string good = nested_space().SerializeAsString();
  Profile p;
  std::string error;
  ASSERT_TRUE(import_xspace_bytes(good.data(), good.size(), "a", &p, &error));
  const size_t events = p.num_events(), names = p.names.size();
  const std::string bad = good.substr(0, good.size() - 3);
  EXPECT_FALSE(import_xspace_bytes(bad.data(), bad.size(), "b", &p, &error));
  EXPECT_EQ(p.num_events(), events);
  EXPECT_EQ(p.names.size(), names);
  EXPECT_EQ(p.hosts.size(), 1u);
  EXPECT_EQ(p.events.first_stat.size(), events + 1);
}

}  // namespace
}  // namespace mlprof::model
