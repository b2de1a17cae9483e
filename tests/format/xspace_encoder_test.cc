// The hand-written XSpace encoder against libprotobuf: what it writes parses into exactly
// the messages it describes, and is byte-identical to protobuf's deterministic output.
#include "format/xspace_encoder.h"

#include <gtest/gtest.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <filesystem>

#include "format/scratch_dir.h"
#include "format/xspace_reader.h"

namespace mlprof::format {
namespace {

namespace tp = tensorflow::profiler;

// A space that uses every field the encoder writes.
struct SampleSpace {
  std::vector<WireEvent> main_events;
  std::vector<WireEvent> worker_events;
  WireSpace space;

  SampleSpace() {
    WirePlane& host = space.planes.emplace_back();
    host.id = 49;
    host.name = "/host:CPU";
    host.event_metadata = {{1, "train", ""}, {2, "forward", "Forward pass"}, {3, "zero", ""}};
    host.stat_metadata = {{1, "step_num", ""}, {2, "_r", ""}, {3, "ratio", ""},
                          {4, "shape", "tensor shape"}, {5, "big", ""}, {6, "kind", ""}};
    host.stat_pool = {WireStat::of_int64(1, 7), WireStat::of_int64(2, 1),
                      WireStat::of_double(3, 0.5), WireStat::of_string(4, "[2,3]"),
                      WireStat::of_uint64(5, UINT64_MAX), WireStat::of_ref(6, 4),
                      WireStat::of_int64(1, -3)};
    host.stat_lists = {{0, 2}, {2, 4}, {6, 1}};
    // train [0, 10 us) holds forward [1 us, 4 us) holds zero (instant at 2 us).
    main_events = {{0, 10'000'000, 1, 1}, {1'000'000, 3'000'000, 2, 2}, {2'000'000, 0, 3, 0}};
    worker_events = {{0, 1, 2, 0}, {-5, 123456789012345, 1, 3}};
    host.lines.push_back({12345, 0, "main", "", 1700000000123456789, 10'000'000, main_events});
    host.lines.push_back({0, 7, "", "worker", 1700000000000000001, 0, worker_events});
    host.stats = {WireStat::of_string(6, "cpu")};

    WirePlane& env = space.planes.emplace_back();
    env.id = 80;
    env.name = "Task Environment";
    env.stat_metadata = {{1, "profile_start_time", ""}, {2, "profile_stop_time", ""}};
    env.stats = {WireStat::of_uint64(1, 1700000000000000000), WireStat::of_uint64(2, 1700000001000000000)};

    space.planes.emplace_back();  // an empty plane: every field default
    space.errors = {"an error"};
    space.warnings = {"mlprof dropped 3 events", "second warning"};
    space.hostnames = {"host-a"};
  }
};

tp::XSpace parse(const std::string& bytes) {
  tp::XSpace space;
  std::string error;
  EXPECT_TRUE(parse_xspace(bytes.data(), bytes.size(), &space, &error)) << error;
  return space;
}

TEST(XSpaceEncoder, RoundTripsThroughProtobuf) {
  SampleSpace sample;
  const tp::XSpace space = parse(encode_xspace(sample.space));
  ASSERT_EQ(space.planes_size(), 3);
  const tp::XPlane& host = space.planes(0);
  EXPECT_EQ(host.id(), 49);
  EXPECT_EQ(host.name(), "/host:CPU");
  ASSERT_EQ(host.lines_size(), 2);

  const tp::XLine& main = host.lines(0);
  EXPECT_EQ(main.id(), 12345);
  EXPECT_EQ(main.name(), "main");
  EXPECT_EQ(main.timestamp_ns(), 1700000000123456789);
  EXPECT_EQ(main.duration_ps(), 10'000'000);
  ASSERT_EQ(main.events_size(), 3);
  EXPECT_EQ(host.event_metadata().at(main.events(0).metadata_id()).name(), "train");
  EXPECT_EQ(main.events(0).data_case(), tp::XEvent::kOffsetPs);  // written even when 0
  EXPECT_EQ(main.events(0).offset_ps(), 0);
  EXPECT_EQ(main.events(0).duration_ps(), 10'000'000);
  ASSERT_EQ(main.events(0).stats_size(), 2);
  EXPECT_EQ(host.stat_metadata().at(main.events(0).stats(0).metadata_id()).name(), "step_num");
  EXPECT_EQ(main.events(0).stats(0).int64_value(), 7);
  EXPECT_EQ(main.events(0).stats(1).int64_value(), 1);

  const tp::XEvent& forward = main.events(1);
  EXPECT_EQ(host.event_metadata().at(forward.metadata_id()).display_name(), "Forward pass");
  ASSERT_EQ(forward.stats_size(), 4);
  EXPECT_EQ(forward.stats(0).double_value(), 0.5);
  EXPECT_EQ(forward.stats(1).str_value(), "[2,3]");
  EXPECT_EQ(forward.stats(2).uint64_value(), UINT64_MAX);
  EXPECT_EQ(forward.stats(3).ref_value(), 4u);
  EXPECT_EQ(host.stat_metadata().at(4).description(), "tensor shape");
  // Nesting and times survive to the nanosecond.
  const int64_t train_begin_ps = main.events(0).offset_ps();
  const int64_t train_end_ps = train_begin_ps + main.events(0).duration_ps();
  EXPECT_GE(forward.offset_ps(), train_begin_ps);
  EXPECT_LE(forward.offset_ps() + forward.duration_ps(), train_end_ps);
  EXPECT_EQ(main.timestamp_ns() + forward.offset_ps() / 1000, 1700000000123457789);
  EXPECT_EQ(main.events(2).duration_ps(), 0);

  const tp::XLine& worker = host.lines(1);
  EXPECT_EQ(worker.id(), 0);
  EXPECT_EQ(worker.display_id(), 7);
  EXPECT_EQ(worker.display_name(), "worker");
  EXPECT_EQ(worker.events(1).offset_ps(), -5);
  EXPECT_EQ(worker.events(1).duration_ps(), 123456789012345);
  EXPECT_EQ(worker.events(1).stats(0).int64_value(), -3);
  ASSERT_EQ(host.stats_size(), 1);
  EXPECT_EQ(host.stats(0).str_value(), "cpu");

  const tp::XPlane& env = space.planes(1);
  EXPECT_EQ(env.name(), "Task Environment");
  ASSERT_EQ(env.stats_size(), 2);
  EXPECT_EQ(env.stat_metadata().at(env.stats(0).metadata_id()).name(), "profile_start_time");
  EXPECT_EQ(env.stats(0).uint64_value(), 1700000000000000000u);
  EXPECT_EQ(env.stats(1).uint64_value(), 1700000001000000000u);

  EXPECT_EQ(space.planes(2).ByteSizeLong(), 0u);
  ASSERT_EQ(space.errors_size(), 1);
  EXPECT_EQ(space.warnings(0), "mlprof dropped 3 events");
  EXPECT_EQ(space.warnings(1), "second warning");
  EXPECT_EQ(space.hostnames(0), "host-a");
}

TEST(XSpaceEncoder, BytesEqualProtobufDeterministicSerialization) {
  SampleSpace sample;
  const std::string ours = encode_xspace(sample.space);
  const tp::XSpace space = parse(ours);
  std::string theirs;
  {
    google::protobuf::io::StringOutputStream stream(&theirs);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    space.SerializeToCodedStream(&coded);
  }
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(xspace_size(sample.space), ours.size());
}

TEST(XSpaceEncoder, FileHoldsTheSameBytes) {
  SampleSpace sample;
  mlprof::testing::ScratchDir dir;
  std::string error;
  ASSERT_TRUE(write_xspace_file(sample.space, dir / "h.xplane.pb", &error)) << error;
  tp::XSpace space;
  ASSERT_TRUE(read_xspace(dir / "h.xplane.pb", &space, &error)) << error;
  EXPECT_EQ(space.planes(0).lines(0).events_size(), 3);
  EXPECT_EQ(std::filesystem::file_size(dir / "h.xplane.pb"), encode_xspace(sample.space).size());
  EXPECT_FALSE(std::filesystem::exists(dir / "h.xplane.pb.tmp"));
}

// A string stat left empty by a default string_view, whose data is null: written as an empty
// string (UndefinedBehaviorSanitizer caught the null handed to memcpy converting a TensorFlow file).
TEST(XSpaceEncoder, EmptyStringStatWithNoDataIsWritten) {
  WireSpace space;
  WirePlane& plane = space.planes.emplace_back();
  plane.name = "/host:CPU";
  plane.stat_metadata = {{1, "note", ""}};
  plane.stats = {WireStat::of_string(1, std::string_view())};
  mlprof::testing::ScratchDir dir;
  std::string error;
  ASSERT_TRUE(write_xspace_file(space, dir / "e.xplane.pb", &error)) << error;
  tp::XSpace read;
  ASSERT_TRUE(read_xspace(dir / "e.xplane.pb", &read, &error)) << error;
  ASSERT_EQ(read.planes(0).stats_size(), 1);
  EXPECT_EQ(read.planes(0).stats(0).value_case(), tp::XStat::kStrValue);
  EXPECT_EQ(read.planes(0).stats(0).str_value(), "");
}

TEST(XSpaceEncoder, LargeLinesStreamThroughTheBuffer) {
  // Several MiB of events: exercises buffer flushes in the middle of lines.
  std::vector<WireEvent> events;
  for (int64_t i = 0; i < 300000; ++i) events.push_back({i * 1000, 500, uint32_t(1 + i % 3), 0});
  WireSpace space;
  WirePlane& plane = space.planes.emplace_back();
  plane.name = "/host:CPU";
  plane.event_metadata = {{1, "a", ""}, {2, "b", ""}, {3, std::string(300000, 'n'), ""}};
  plane.lines.push_back({1, 0, "t", "", 1, 0, events});
  mlprof::testing::ScratchDir dir;
  std::string error;
  ASSERT_TRUE(write_xspace_file(space, dir / "big.xplane.pb", &error)) << error;
  tp::XSpace read;
  ASSERT_TRUE(read_xspace(dir / "big.xplane.pb", &read, &error)) << error;
  ASSERT_EQ(read.planes(0).lines(0).events_size(), 300000);
  EXPECT_EQ(read.planes(0).lines(0).events(299999).offset_ps(), 299999000);
  EXPECT_EQ(read.planes(0).event_metadata().at(3).name().size(), 300000u);
}

TEST(Utf8, ProtobufRejectsInvalidStringsSoTheyAreRepairedFirst) {
  WireSpace space;
  space.hostnames = {"bad\xff"};
  tp::XSpace parsed;
  std::string error;
  const std::string bytes = encode_xspace(space);
  EXPECT_FALSE(parse_xspace(bytes.data(), bytes.size(), &parsed, &error));

  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("cut \xe2\x82"));
  EXPECT_EQ(make_valid_utf8("a\xff" "b\xe2\x82"), "a\xef\xbf\xbd" "b\xef\xbf\xbd");  // one per maximal subpart
  space.hostnames = {make_valid_utf8("bad\xff")};
  const std::string repaired = encode_xspace(space);
  EXPECT_TRUE(parse_xspace(repaired.data(), repaired.size(), &parsed, &error)) << error;
}

TEST(XSpaceEncoder, UnwritablePathIsAnError) {
  WireSpace space;
  std::string error;
  EXPECT_FALSE(write_xspace_file(space, "/nonexistent-dir/x/h.xplane.pb", &error));
  EXPECT_NE(error.find("/nonexistent-dir/x/h.xplane.pb"), std::string::npos) << error;
}

}  // namespace
}  // namespace mlprof::format
