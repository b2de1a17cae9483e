// mlprof's Chrome JSON and Perfetto output, read back: the Chrome file with a JSON parser, the
// Perfetto file by decoding its packets here. Both must keep every event on its thread (same
// counts per line as the model), keep nesting, split partly overlapping events onto another
// track, and carry the flows; a ".gz" name gives gzip.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/trace_viewer/trace_export.h"
#include "analysis/trace_test_profile.h"
#include "format/chrome_trace_writer.h"
#include "format/perfetto_writer.h"

namespace mlprof {
namespace {

using testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string gunzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[65536];
  for (int n; f && (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  if (f) gzclose(f);
  return out;
}

void write_chrome(const model::Profile& p, const std::string& path) {
  format::TraceOutputFile out(path);
  ASSERT_TRUE(out.ok()) << out.error();
  format::ChromeTraceWriter writer(out);
  std::string error;
  ASSERT_TRUE(analysis::write_trace(p, writer, &error)) << error;
}

void write_perfetto(const model::Profile& p, const std::string& path) {
  format::TraceOutputFile out(path);
  ASSERT_TRUE(out.ok()) << out.error();
  format::PerfettoWriter writer(out, p.origin_ns);
  std::string error;
  ASSERT_TRUE(analysis::write_trace(p, writer, &error)) << error;
}

// ---- Chrome ------------------------------------------------------------------------------

struct ChromeEvent {
  std::string name;
  double ts = 0, dur = 0;
};

struct ChromeTrace {
  std::map<std::string, std::vector<ChromeEvent>> by_thread;  // thread name -> X events
  std::map<uint64_t, int> flow_starts, flow_ends;             // flow id -> records
  std::map<std::string, std::string> args;                    // "event.key" -> value as text
};

ChromeTrace parse_chrome(const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(text);
  std::map<std::pair<uint64_t, uint64_t>, std::string> thread_names;
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, ChromeEvent>> events;
  ChromeTrace t;
  for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
    const std::string_view ph = e["ph"].get_string();
    const uint64_t pid = e["pid"].get_uint64();
    if (ph == "M") {
      if (std::string_view(e["name"].get_string()) == "thread_name")
        thread_names[{pid, e["tid"].get_uint64()}] = std::string(e["args"]["name"].get_string().value());
      continue;
    }
    if (ph == "s") ++t.flow_starts[e["id"].get_uint64()];
    if (ph == "f") ++t.flow_ends[e["id"].get_uint64()];
    if (ph != "X") continue;
    ChromeEvent ce{std::string(e["name"].get_string().value()), e["ts"].get_double(), e["dur"].get_double()};
    simdjson::dom::object args;
    if (e["args"].get(args) == simdjson::SUCCESS)
      for (auto [key, value] : args) t.args[ce.name + "." + std::string(key)] = simdjson::to_string(value);
    events.push_back({{pid, e["tid"].get_uint64()}, ce});
  }
  for (auto& [thread, ev] : events) t.by_thread[thread_names.at(thread)].push_back(ev);
  return t;
}

TEST(ChromeExport, KeepsEveryEventNestingFlowsAndSplitsPartialOverlaps) {
  const model::Profile p = testing::trace_test_profile();
  TempDir dir;
  write_chrome(p, dir.path() + "/t.json");
  const ChromeTrace t = parse_chrome(read_file(dir.path() + "/t.json"));

  ASSERT_EQ(t.by_thread.at("main").size(), 4u);  // as many as the model's line
  ASSERT_EQ(t.by_thread.at("worker").size(), 2u);
  ASSERT_EQ(t.by_thread.at("worker (overlap 1)").size(), 1u);
  EXPECT_EQ(t.by_thread.at("worker (overlap 1)")[0].name, "overlapping_b");
  ASSERT_EQ(t.by_thread.at("Stream #7(Compute)").size(), 1u);

  // Times in µs since the origin; forward nests in train, the launch in forward.
  const auto& main = t.by_thread.at("main");
  EXPECT_EQ(main[0].name, "train");
  EXPECT_DOUBLE_EQ(main[0].ts, 0);
  EXPECT_DOUBLE_EQ(main[0].dur, 100);
  EXPECT_EQ(main[1].name, "forward");
  EXPECT_EQ(main[2].name, "cudaLaunchKernel");
  EXPECT_DOUBLE_EQ(main[2].ts, 20);
  EXPECT_GE(main[2].ts, main[1].ts);
  EXPECT_LE(main[2].ts + main[2].dur, main[1].ts + main[1].dur);

  // Two flows (launch -> kernel, producer -> consumer), each with a start and an end.
  EXPECT_EQ(t.flow_starts.size(), 2u);
  EXPECT_EQ(t.flow_starts, t.flow_ends);
  EXPECT_EQ(t.args.at("train.step_num"), "7");
  EXPECT_EQ(t.args.at("kernel_a.correlation_id"), "42");
}

TEST(ChromeExport, GzNameWritesGzip) {
  const model::Profile p = testing::trace_test_profile();
  TempDir dir;
  write_chrome(p, dir.path() + "/t.json.gz");
  const std::string raw = read_file(dir.path() + "/t.json.gz");
  ASSERT_GE(raw.size(), 2u);
  EXPECT_EQ(uint8_t(raw[0]), 0x1f);
  EXPECT_EQ(uint8_t(raw[1]), 0x8b);
  EXPECT_EQ(parse_chrome(gunzip_file(dir.path() + "/t.json.gz")).by_thread.at("main").size(), 4u);
}

// ---- Perfetto ----------------------------------------------------------------------------

// A minimal protobuf reader: the fields of one message.
struct Field {
  uint32_t number = 0;
  uint32_t type = 0;
  uint64_t value = 0;     // varint or fixed64
  std::string_view bytes; // length-delimited
};

std::vector<Field> decode(std::string_view m) {
  std::vector<Field> fields;
  size_t i = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; i < m.size(); shift += 7) {
      const uint8_t b = uint8_t(m[i++]);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (i < m.size()) {
    const uint64_t tag = varint();
    Field f{uint32_t(tag >> 3), uint32_t(tag & 7)};
    if (f.type == 0) f.value = varint();
    else if (f.type == 1) std::memcpy(&f.value, m.data() + i, 8), i += 8;
    else if (f.type == 2) {
      const size_t n = varint();
      f.bytes = m.substr(i, n);
      i += n;
    } else {
      ADD_FAILURE() << "unexpected wire type " << f.type;
      break;
    }
    fields.push_back(f);
  }
  return fields;
}

const Field* find_field(const std::vector<Field>& fs, uint32_t n) {
  for (const auto& f : fs)
    if (f.number == n) return &f;
  return nullptr;
}

struct PerfettoTrack {
  std::string name;
  uint64_t parent = 0;
  std::vector<std::string> begun;  // event names in order
  int depth = 0, max_depth = 0;
  bool balanced = true;
};

TEST(PerfettoExport, DecodesToTracksWithNestedBeginEndPairsAndFlows) {
  const model::Profile p = testing::trace_test_profile();
  TempDir dir;
  write_perfetto(p, dir.path() + "/t.pftrace");
  const std::string bytes = read_file(dir.path() + "/t.pftrace");

  std::map<uint64_t, PerfettoTrack> tracks;
  std::map<uint64_t, std::string> processes;
  std::map<uint64_t, int> flow_ids, terminating_flow_ids;
  uint64_t last_ts = 0;
  std::map<uint64_t, std::vector<uint64_t>> stack_ts;  // per track: open begins' timestamps
  for (const Field& packet_field : decode(bytes)) {
    ASSERT_EQ(packet_field.number, 1u);  // Trace.packet
    const auto packet = decode(packet_field.bytes);
    ASSERT_NE(find_field(packet, 10), nullptr);  // trusted_packet_sequence_id
    if (const Field* d = find_field(packet, 60)) {
      const auto desc = decode(d->bytes);
      const uint64_t uuid = find_field(desc, 1)->value;
      if (const Field* proc = find_field(desc, 3)) {
        processes[uuid] = std::string(find_field(decode(proc->bytes), 6)->bytes);
      } else {
        const auto thread = decode(find_field(desc, 4)->bytes);
        tracks[uuid].name = std::string(find_field(thread, 5)->bytes);
        tracks[uuid].parent = find_field(desc, 5)->value;
      }
      continue;
    }
    const Field* te = find_field(packet, 11);
    ASSERT_NE(te, nullptr);
    const auto ev = decode(te->bytes);
    const uint64_t ts = find_field(packet, 8)->value;
    last_ts = std::max(last_ts, ts);
    PerfettoTrack& track = tracks.at(find_field(ev, 11)->value);
    const uint64_t type = find_field(ev, 9)->value;
    if (type == 1) {
      track.begun.emplace_back(find_field(ev, 23)->bytes);
      track.max_depth = std::max(track.max_depth, ++track.depth);
      stack_ts[find_field(ev, 11)->value].push_back(ts);
      for (const auto& f : ev) {
        if (f.number == 47) ++flow_ids[f.value];
        if (f.number == 48) ++terminating_flow_ids[f.value];
      }
    } else {
      ASSERT_EQ(type, 2u);
      auto& open = stack_ts[find_field(ev, 11)->value];
      if (open.empty() || open.back() > ts) track.balanced = false;
      if (!open.empty()) open.pop_back();
      --track.depth;
    }
  }
  EXPECT_EQ(processes.size(), 2u);
  std::map<std::string, const PerfettoTrack*> by_name;
  for (const auto& [uuid, t] : tracks) {
    by_name[t.name] = &t;
    EXPECT_TRUE(t.balanced) << t.name;
    EXPECT_EQ(t.depth, 0) << t.name << ": every begin has its end";
    EXPECT_TRUE(processes.count(t.parent)) << t.name;
  }
  ASSERT_TRUE(by_name.count("main"));
  EXPECT_EQ(by_name["main"]->begun, (std::vector<std::string>{"train", "forward", "cudaLaunchKernel", "enqueue"}));
  EXPECT_EQ(by_name["main"]->max_depth, 3);  // train > forward > launch
  EXPECT_EQ(by_name["worker"]->begun, (std::vector<std::string>{"dequeue", "overlapping_a"}));
  EXPECT_EQ(by_name["worker"]->max_depth, 1);
  EXPECT_EQ(by_name["worker (overlap 1)"]->begun, (std::vector<std::string>{"overlapping_b"}));
  EXPECT_EQ(by_name["Stream #7(Compute)"]->begun.size(), 1u);
  // Each flow id starts at one event and ends at another.
  EXPECT_EQ(flow_ids.size(), 2u);
  EXPECT_EQ(flow_ids, terminating_flow_ids);
  EXPECT_EQ(last_ts, uint64_t(p.origin_ns) + 150'000);  // overlapping_b's end, ns since the epoch
}

}  // namespace
}  // namespace mlprof
