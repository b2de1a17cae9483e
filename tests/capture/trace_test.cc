// The SDK as a program uses it: sessions, annotations, levels, metadata, steps, threads.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "capture/record_format.h"
#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "mlprof/mlprof.h"

namespace mlprof {
namespace {

using testing::host_events;
using testing::names_of;
using testing::read_run;
using testing::ReadEvent;
using Names = std::vector<std::string>;

ProfilerOptions options_with_level(int level) {
  ProfilerOptions o;
  o.host_tracer_level = level;
  o.run_name = "run";
  o.host_name = "testhost";
  return o;
}

TEST(Session, WritesTheRunWhereTheLayoutSays) {
  testing::ScratchDir dir;
  ProfilerOptions o = options_with_level(2);
  o.host_name = "worker:7";
  ASSERT_TRUE(start(dir.path(), o).ok());
  EXPECT_TRUE(is_active());
  { MLPROF_TRACE("work"); }
  const RunInfo run = stop();
  EXPECT_FALSE(is_active());
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_EQ(run.run_dir, dir.path() + "/plugins/profile/run");
  EXPECT_EQ(run.xspace_path, dir.path() + "/plugins/profile/run/worker_7.xplane.pb");
  EXPECT_EQ(run.events, 1u);
  EXPECT_EQ(run.dropped, 0u);
  bool event_file = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    event_file |= entry.path().filename().string().ends_with(".worker_7.profile-empty");
  }
  EXPECT_TRUE(event_file);

  const auto space = read_run(run);
  ASSERT_EQ(space.hostnames_size(), 1);
  EXPECT_EQ(space.hostnames(0), "worker:7");
  const auto* env = testing::find_plane(space, "Task Environment");
  ASSERT_NE(env, nullptr);
  ASSERT_EQ(env->stats_size(), 2);
  EXPECT_EQ(env->stat_metadata().at(env->stats(0).metadata_id()).name(), "profile_start_time");
  EXPECT_EQ(env->stat_metadata().at(env->stats(1).metadata_id()).name(), "profile_stop_time");
  EXPECT_LT(env->stats(0).uint64_value(), env->stats(1).uint64_value());
  EXPECT_EQ(space.warnings_size(), 0);
}

// A process of a job (RANK and WORLD_SIZE set, as torchrun and torch.distributed set them)
// records both on its Task Environment plane, read when the file is written, so the readers
// name it by its rank as they do a PyTorch trace's distributedInfo.
TEST(Session, AJobsProcessRecordsItsRankAndTheJobsSize) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  { MLPROF_TRACE("work"); }
  setenv("RANK", "3", 1);
  setenv("WORLD_SIZE", "8", 1);
  const RunInfo run = stop();
  unsetenv("RANK");
  unsetenv("WORLD_SIZE");
  const auto space = read_run(run);
  const auto* env = testing::find_plane(space, "Task Environment");
  ASSERT_NE(env, nullptr);
  std::map<std::string, int64_t> stats;
  for (const auto& s : env->stats()) stats[env->stat_metadata().at(s.metadata_id()).name()] = s.int64_value();
  EXPECT_EQ(stats["rank"], 3);
  EXPECT_EQ(stats["world_size"], 8);
}

TEST(Session, SecondStartIsAnErrorAndStopWithoutSessionToo) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  const Status second = start(dir / "other");
  EXPECT_FALSE(second.ok());
  EXPECT_NE(second.message().find("already running"), std::string::npos) << second.message();
  EXPECT_TRUE(stop().status.ok());
  const RunInfo none = stop();
  EXPECT_FALSE(none.status.ok());
  EXPECT_NE(none.status.message().find("no profiling session"), std::string::npos);
  EXPECT_FALSE(start("").ok());
  // A new session after stop works.
  ASSERT_TRUE(start(dir / "again", options_with_level(2)).ok());
  EXPECT_TRUE(stop().status.ok());
}

// A run asked for by name never overwrites this host's profile already in it: the first run's
// file keeps its bytes, and the second start() says which file holds the name.
TEST(Session, ARunNameThatHoldsThisHostsProfileIsRefused) {
  testing::ScratchDir dir;
  ProfilerOptions named = options_with_level(2);
  named.run_name = "baseline";
  ASSERT_TRUE(start(dir.path(), named).ok());
  const RunInfo first = stop();
  ASSERT_TRUE(first.status.ok()) << first.status.message();
  const auto bytes = std::filesystem::file_size(first.xspace_path);
  const Status again = start(dir.path(), named);
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(again.message().rfind("mlprof::start: run_name 'baseline' is taken: " + first.xspace_path, 0), 0u)
      << again.message();
  EXPECT_FALSE(is_active());
  EXPECT_EQ(std::filesystem::file_size(first.xspace_path), bytes);
  // Another host's profile may join the run.
  named.host_name = "worker1";
  ASSERT_TRUE(start(dir.path(), named).ok());
  EXPECT_TRUE(stop().status.ok());
}

TEST(Session, AnUnwritableLogdirIsRefusedAtStart) {
  testing::ScratchDir dir;
  std::ofstream(dir / "file") << "x";
  const std::string logdir = dir / "file/logs";  // beneath a regular file: even root cannot
  const Status started = start(logdir, options_with_level(2));
  EXPECT_EQ(started.message(), "mlprof::start: cannot write to the logdir " + logdir + ": Not a directory");
  EXPECT_FALSE(is_active());
  // An existing directory no file can be made in, root included.
  const Status in_proc = start("/proc/self", options_with_level(2));
  EXPECT_TRUE(in_proc.message().starts_with("mlprof::start: cannot write to the logdir /proc/self: "))
      << in_proc.message();
  EXPECT_EQ(in_proc.message().find('\n'), std::string::npos);
  EXPECT_FALSE(is_active());
}

TEST(Session, StartMakesTheLogdirAndLeavesNoProbeBehind) {
  testing::ScratchDir dir;
  const std::string logdir = dir / "new/nested/logs";
  ASSERT_TRUE(start(logdir, options_with_level(2)).ok());
  EXPECT_TRUE(std::filesystem::is_directory(logdir));
  // Only the named run's reservation is there while the session runs (format/run_reservation.h).
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(logdir))
    if (e.is_regular_file()) files.push_back(e.path().lexically_relative(logdir).string());
  EXPECT_EQ(files, std::vector<std::string>{"plugins/profile/.run.testhost.lock"});
  EXPECT_TRUE(stop().status.ok());
  EXPECT_FALSE(std::filesystem::exists(logdir + "/plugins/profile/.run.testhost.lock"));
}

// A literal scope is packed into 16 bytes with 27 bits of duration; a longer one takes the
// long form and keeps its times, as does every bit of a packed one.
TEST(Trace, LiteralScopesKeepTheirTimesPackedOrNot) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  const uint64_t t0 = now_ticks();
  const uint64_t longest_packed = (uint64_t{1} << 27) - 1;
  internal::record_literal("short", t0, t0 + 1000);
  internal::record_literal("packed", t0, t0 + longest_packed);
  internal::record_literal("long", t0, t0 + 4 * longest_packed);
  const RunInfo run = stop();
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  std::map<std::string, int64_t> duration_ps;
  for (const auto& e : testing::host_events(testing::read_run(run))) duration_ps[e.name] = e.end_ps - e.begin_ps;
  ASSERT_EQ(duration_ps.size(), 3u);
  ASSERT_GT(duration_ps["short"], 0);
  EXPECT_NEAR(double(duration_ps["packed"]) / double(duration_ps["short"]), double(longest_packed) / 1000, 1.0);
  EXPECT_NEAR(double(duration_ps["long"]) / double(duration_ps["packed"]), 4.0, 1e-6);
}

TEST(Trace, APackedLiteralRecordKeepsEveryBit) {
  using namespace capture;
  static const char name[] = "n";
  const uint64_t base = 123456789;
  for (uint64_t since : {uint64_t{0}, uint64_t{1}, (uint64_t{1} << kLiteralStartBits) - 1}) {
    for (uint64_t duration : {uint64_t{0}, uint64_t{511}, uint64_t{512}, (uint64_t{1} << kLiteralDurationBits) - 1}) {
      ASSERT_TRUE(fits_literal_record(name, since, duration));
      const LiteralRecord r = pack_literal_record(name, since, duration);
      EXPECT_EQ(r.name_and_duration_low >> 56, 0u);  // no typed record's kind
      EXPECT_GE(r.name_and_duration_low, kFirstPointer);
      const UnpackedLiteral u = unpack_literal_record(r, base);
      EXPECT_EQ(u.name, name);
      EXPECT_EQ(u.start, base + since);
      EXPECT_EQ(u.end, base + since + duration);
    }
  }
  EXPECT_FALSE(fits_literal_record(name, uint64_t{1} << kLiteralStartBits, 0));
  EXPECT_FALSE(fits_literal_record(name, 0, uint64_t{1} << kLiteralDurationBits));
  EXPECT_FALSE(fits_literal_record(name, uint64_t(-5), 10));  // began before the base
}

TEST(Session, ProfileScopeStartsAndStops) {
  testing::ScratchDir dir;
  {
    Profile profile(dir.path(), options_with_level(2));
    ASSERT_TRUE(profile.status().ok());
    EXPECT_TRUE(is_active());
    MLPROF_TRACE("inside");
  }
  EXPECT_FALSE(is_active());
  EXPECT_TRUE(std::filesystem::exists(dir / "plugins/profile/run/testhost.xplane.pb"));
}

TEST(Trace, LiteralCopiedAndMetadataForms) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  {
    Trace literal("literal");
    std::string dynamic = "dyn_" + std::to_string(42);
    Trace copied(dynamic);
    dynamic = "overwritten";  // the name was copied at construction
    Trace with_args("op", {{"k", 1}, {"s", "x"}, {"u", uint64_t{1} << 63}, {"d", 0.5}});
    Trace lambda([] { return encode("lam", {{"v", -3}}); });
    char buffer[16] = "buffer";
    Trace from_buffer(buffer);
    std::strcpy(buffer, "changed");
  }
  const RunInfo run = stop();
  const auto events = host_events(read_run(run));
  EXPECT_EQ(names_of(events), (Names{"literal", "dyn_42", "op", "lam", "buffer"}));
  ASSERT_EQ(events.size(), 5u);
  const auto& op = events[2].stats;
  ASSERT_EQ(op.size(), 4u);
  EXPECT_EQ(op.at("k").int64_value(), 1);
  EXPECT_EQ(op.at("s").str_value(), "x");
  EXPECT_EQ(op.at("u").uint64_value(), uint64_t{1} << 63);
  EXPECT_EQ(op.at("d").double_value(), 0.5);
  EXPECT_EQ(events[3].stats.at("v").int64_value(), -3);
}

TEST(Trace, NestedScopesNestExactly) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(3)).ok());
  for (int i = 0; i < 100; ++i) {
    Trace outer("outer");
    {
      Trace middle(std::string("middle"));
      { Trace inner("inner", {{"i", i}}); }
      { MLPROF_TRACE("sibling"); }
    }
  }
  const auto events = host_events(read_run(stop()));
  ASSERT_EQ(events.size(), 400u);
  for (size_t i = 0; i < events.size(); i += 4) {
    const ReadEvent &outer = events[i], &middle = events[i + 1], &inner = events[i + 2],
                    &sibling = events[i + 3];
    ASSERT_EQ(outer.name, "outer");
    ASSERT_EQ(middle.name, "middle");
    ASSERT_EQ(inner.name, "inner");
    ASSERT_EQ(sibling.name, "sibling");
    EXPECT_EQ(inner.stats.at("i").int64_value(), int64_t(i / 4));
    EXPECT_LE(outer.begin_ps, middle.begin_ps);
    EXPECT_LE(middle.end_ps, outer.end_ps);
    EXPECT_LE(middle.begin_ps, inner.begin_ps);
    EXPECT_LE(inner.end_ps, sibling.begin_ps);
    EXPECT_LE(sibling.end_ps, middle.end_ps);
    if (i + 4 < events.size()) {
      EXPECT_LE(outer.end_ps, events[i + 4].begin_ps);
    }
  }
}

// A scope that begins in one Python call and ends in another (a record_function entered in its
// __enter__ and left in __exit__; a step a generator's yield leaves open) keeps its real span;
// the Python frames ("$file.py:N function", the Python tracer's) it crosses are cut instead.
// Ticks in units of 1000 from t0: the outer frame [0, 100]; __enter__ [10, 20], where "r"
// begins at 15; __exit__ [60, 70], where "r" ends at 65; a frame [30, 40] inside "r".
TEST(Trace, ScopesThatCrossPythonFramesKeepTheirSpan) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  const uint64_t t0 = now_ticks() + 1'000'000;
  auto at = [&](int k) { return t0 + uint64_t(k) * 1000; };
  internal::record_literal("$train.py:1 main", at(0), at(100));
  internal::record_literal("$profiler.py:10 __enter__", at(10), at(20));
  internal::record_literal("r", at(15), at(65));
  internal::record_literal("$train.py:5 work", at(30), at(40));
  internal::record_literal("$profiler.py:20 __exit__", at(60), at(70));
  const RunInfo run = stop();
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  std::map<std::string, std::pair<int64_t, int64_t>> span;
  for (const auto& e : host_events(read_run(run))) span[e.name] = {e.begin_ps, e.end_ps};
  ASSERT_EQ(span.size(), 5u);
  const int64_t unit = span["$train.py:1 main"].second - span["$train.py:1 main"].first;  // 100 units
  ASSERT_GT(unit, 0);
  auto units = [&](int64_t ps) { return double(ps - span["$train.py:1 main"].first) * 100 / double(unit); };
  EXPECT_NEAR(units(span["r"].first), 15, 0.01);
  EXPECT_NEAR(units(span["r"].second), 65, 0.01);  // not cut at __enter__'s end (20)
  EXPECT_NEAR(units(span["$profiler.py:10 __enter__"].first), 10, 0.01);
  EXPECT_NEAR(units(span["$profiler.py:10 __enter__"].second), 15, 0.01);  // ends where "r" begins
  EXPECT_NEAR(units(span["$train.py:5 work"].first), 30, 0.01);
  EXPECT_NEAR(units(span["$train.py:5 work"].second), 40, 0.01);
  EXPECT_NEAR(units(span["$profiler.py:20 __exit__"].first), 60, 0.01);
  EXPECT_NEAR(units(span["$profiler.py:20 __exit__"].second), 65, 0.01);  // inside "r"
}

TEST(Trace, LevelsFilterByHostTracerLevel) {
  auto record = [](int level) {
    testing::ScratchDir dir;
    EXPECT_TRUE(start(dir.path(), options_with_level(level)).ok());
    { Trace a("critical", kCritical); }
    { Trace b(std::string("info"), kInfo); }
    { Trace c("verbose", {{"x", 1}}, kVerbose); }
    return names_of(host_events(read_run(stop())));
  };
  EXPECT_EQ(record(0), Names{});
  EXPECT_EQ(record(1), (Names{"critical"}));
  EXPECT_EQ(record(2), (Names{"critical", "info"}));
  EXPECT_EQ(record(3), (Names{"critical", "info", "verbose"}));
}

TEST(Trace, MetadataIsEvaluatedOnlyWhenRecorded) {
  int calls = 0;
  auto name = [&] {
    ++calls;
    return encode("costly", {{"n", calls}});
  };
  { Trace t(name); }  // no session
  EXPECT_EQ(calls, 0);
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(1)).ok());
  { Trace t(name, kInfo); }  // above the level
  EXPECT_EQ(calls, 0);
  { Trace t(name, kCritical); }
  EXPECT_EQ(calls, 1);
  const auto events = host_events(read_run(stop()));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "costly");
  EXPECT_EQ(events[0].stats.at("n").int64_value(), 1);
}

TEST(Trace, ScopesAcrossStartAndStopAreNotRecorded) {
  testing::ScratchDir dir;
  auto before = std::make_unique<Trace>("before_start");
  auto dynamic_before = std::make_unique<Trace>(std::string("dyn_before"));
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  before.reset();
  dynamic_before.reset();
  auto after = std::make_unique<Trace>("ends_after_stop");
  auto dynamic_after = std::make_unique<Trace>(std::string("dyn_after_stop"));
  { MLPROF_TRACE("during"); }
  const RunInfo run = stop();
  after.reset();
  dynamic_after.reset();
  EXPECT_EQ(names_of(host_events(read_run(run))), (Names{"during"}));
}

TEST(Trace, VeryLongNamesAreTruncatedNotLost) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  { Trace t(std::string(200000, 'x')); }
  const auto events = host_events(read_run(stop()));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_GT(events[0].name.size(), 60000u);
  EXPECT_LT(events[0].name.size(), 65536u);
}

TEST(Trace, NamesThatAreNotUtf8AreRepairedSoTheFileStaysReadable) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  set_thread_name("thread\xff");
  { Trace t(std::string("bad\xc3(name")); }
  { Trace t("op", {{"s", std::string_view("v\xe2\x82")}}); }
  { Trace t(std::string("caf\xc3\xa9")); }  // valid UTF-8 stays as it is
  const auto space = read_run(stop());
  const auto events = host_events(space);
  EXPECT_EQ(names_of(events), (Names{"bad\xef\xbf\xbd(name", "op", "caf\xc3\xa9"}));
  EXPECT_EQ(events[1].stats.at("s").str_value(), "v\xef\xbf\xbd");  // one U+FFFD per maximal invalid subpart
  EXPECT_EQ(testing::find_plane(space, "/host:CPU")->lines(0).name(), "thread\xef\xbf\xbd");
  set_thread_name("main");
}

TEST(Trace, ScopesFromAnEarlierSessionStayOutOfTheNextOne) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir / "first", options_with_level(2)).ok());
  auto spanning = std::make_unique<Trace>("spans_two_sessions");
  stop();
  ASSERT_TRUE(start(dir / "second", options_with_level(2)).ok());
  spanning.reset();
  { MLPROF_TRACE("second_only"); }
  EXPECT_EQ(names_of(host_events(read_run(stop()))), (Names{"second_only"}));
}

TEST(Trace, TimesAreNanosecondsSinceTheEpochWithinTheSession) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  {
    MLPROF_TRACE("sleep");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto space = read_run(stop());
  const auto* host = testing::find_plane(space, "/host:CPU");
  const auto* env = testing::find_plane(space, "Task Environment");
  ASSERT_TRUE(host != nullptr && env != nullptr);
  ASSERT_EQ(host->lines_size(), 1);
  const auto& line = host->lines(0);
  const auto& event = line.events(0);
  const int64_t begin_ns = line.timestamp_ns() + event.offset_ps() / 1000;
  const int64_t end_ns = begin_ns + event.duration_ps() / 1000;
  EXPECT_GE(begin_ns, int64_t(env->stats(0).uint64_value()));
  EXPECT_LE(end_ns, int64_t(env->stats(1).uint64_value()));
  EXPECT_GE(event.duration_ps(), 19'900'000'000);
  EXPECT_LT(event.duration_ps(), 500'000'000'000);
}

TEST(StepTrace, IsARootEventWithItsStepNumber) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  for (int64_t step = 0; step < 3; ++step) {
    StepTrace s("train", step);
    MLPROF_TRACE("work");
  }
  const auto events = host_events(read_run(stop()));
  EXPECT_EQ(names_of(events), (Names{"train", "work", "train", "work", "train", "work"}));
  for (int64_t step = 0; step < 3; ++step) {
    const auto& stats = events[size_t(step) * 2].stats;
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats.at("step_num").int64_value(), step);
    EXPECT_EQ(stats.at("_r").int64_value(), 1);
  }
}

TEST(Threads, LinesAreThreadsNamedAsTheProgramSays) {
  testing::ScratchDir dir;
  ASSERT_TRUE(start(dir.path(), options_with_level(2)).ok());
  long named_tid = 0, os_named_tid = 0, unnamed_tid = 0;
  std::thread([&] {
    named_tid = syscall(SYS_gettid);
    set_thread_name("data loader");
    MLPROF_TRACE("load");
  }).join();
  std::thread([&] {
    os_named_tid = syscall(SYS_gettid);
    pthread_setname_np(pthread_self(), "os_named");
    MLPROF_TRACE("os");
  }).join();
  std::thread([&] {
    unnamed_tid = syscall(SYS_gettid);
    MLPROF_TRACE("anon");
  }).join();
  const auto space = read_run(stop());
  std::map<int64_t, std::string> lines;
  for (const auto& line : testing::find_plane(space, "/host:CPU")->lines()) lines[line.id()] = line.name();
  EXPECT_EQ(lines.at(named_tid), "data loader");
  EXPECT_EQ(lines.at(os_named_tid), "os_named");
  EXPECT_EQ(lines.at(unnamed_tid), std::to_string(unnamed_tid));
}

}  // namespace
}  // namespace mlprof
