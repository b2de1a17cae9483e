// The trace viewer's API over a logdir: a viewport lists the tracks with their boxes and the
// flows of its events, an event's details carry its stats and step, search finds events by
// name, and the profile is the one the tools read (one load per run and host).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/xspace_builder.h"
#include "server/tool_backend.h"
#include "server/trace_endpoint.h"

namespace mlprof {
namespace {

using json = nlohmann::json;

class TraceApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tensorflow::profiler::XSpace space;
    auto host = testing::add_plane(&space, 1, "/host:CPU");
    auto* main = host.line(100, "main", 1'000'000);
    host.event(main, "train", 0, 100 * testing::kPsPerUs, {{"step_num", int64_t(3)}, {"_r", int64_t(1)}});
    host.event(main, "matmul", 10 * testing::kPsPerUs, 20 * testing::kPsPerUs, {{"flops", int64_t(1000)}});
    host.event(main, "cudaLaunchKernel", 15 * testing::kPsPerUs, 2 * testing::kPsPerUs, {{"correlation_id", uint64_t(42)}});
    auto gpu = testing::add_plane(&space, 2, "/device:GPU:0");
    auto* stream = gpu.line(7, "Stream #7(Compute)", 1'000'000);
    gpu.event(stream, "kernel_a", 40 * testing::kPsPerUs, 10 * testing::kPsPerUs, {{"correlation_id", uint64_t(42)}});
    testing::write_xspace(dir.path() + "/plugins/profile/run1/worker.xplane.pb", space);
  }
  testing::TempDir dir;
  std::unique_ptr<server::ToolBackend> backend = server::make_analysis_backend();
};

TEST_F(TraceApiTest, ViewportEventAndSearch) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const auto reply = api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "100"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json v = json::parse(reply.body);
  EXPECT_EQ(v["end_ps"], 100 * testing::kPsPerUs);
  ASSERT_EQ(v["sections"].size(), 2u);
  EXPECT_EQ(v["sections"][0]["kind"], "host");  // planes in the file's order
  EXPECT_EQ(v["sections"][1]["kind"], "device");
  const json& rows = v["sections"][0]["tracks"][0]["rows"];
  ASSERT_EQ(rows.size(), 3u);  // train; matmul; the launch inside matmul
  const json& matmul = rows[1]["events"][0];
  EXPECT_EQ(matmul[0], 10 * testing::kPsPerUs);
  EXPECT_EQ(v["names"][std::to_string(matmul[2].get<int>())], "matmul");

  const json d = json::parse(api.event({{"run", "run1"}, {"host", "worker"}, {"event", std::to_string(matmul[3].get<int>())}}).body);
  EXPECT_EQ(d["name"], "matmul");
  EXPECT_EQ(d["stats"][0]["name"], "flops");
  EXPECT_EQ(d["step"]["step_num"], 3);

  const json s = json::parse(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "MAT"}}).body);
  EXPECT_EQ(s["total"], 1);
  EXPECT_EQ(s["events"][0]["name"], "matmul");

  // With its steps, the reply says where the devices worked: kernel_a, 40..50 µs.
  const json first = json::parse(api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "1"}, {"steps", "1"}}).body);
  EXPECT_EQ(first["device_span"], json::array({40 * testing::kPsPerUs, 50 * testing::kPsPerUs}));

  EXPECT_EQ(api.viewport({{"run", "nope"}}).status, 404);
  EXPECT_EQ(api.viewport({{"run", "run1"}, {"host", "worker"}, {"start_ps", "x"}}).status, 400);
  EXPECT_EQ(api.event({{"run", "run1"}, {"host", "worker"}, {"event", "99"}}).status, 404);
}

TEST_F(TraceApiTest, ViewportListsTheFlowsOfItsEvents) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const json v = json::parse(api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "100"}}).body);
  ASSERT_EQ(v["flows"].size(), 1u) << v["flows"];
  const json& f = v["flows"][0];
  EXPECT_EQ(f[2], "launch");
  EXPECT_EQ(f[4], 15 * testing::kPsPerUs);  // from the launch
  EXPECT_EQ(f[6], 40 * testing::kPsPerUs);  // to the kernel
  const json launch = json::parse(api.event({{"run", "run1"}, {"host", "worker"}, {"event", std::to_string(f[0].get<int>())}}).body);
  EXPECT_EQ(launch["name"], "cudaLaunchKernel");
  EXPECT_EQ(v["flows_truncated"], false);

  // A view of the kernel alone still lists its flow (the launch lies outside it).
  const json later = json::parse(
      api.viewport({{"run", "run1"}, {"host", "worker"}, {"start_ps", std::to_string(39 * testing::kPsPerUs)},
                    {"end_ps", std::to_string(60 * testing::kPsPerUs)}, {"width_px", "100"}})
          .body);
  ASSERT_EQ(later["flows"].size(), 1u);
  EXPECT_EQ(later["flows"][0][1], f[1]);
  // A view with neither end lists no flow.
  const json none = json::parse(
      api.viewport({{"run", "run1"}, {"host", "worker"}, {"start_ps", std::to_string(60 * testing::kPsPerUs)},
                    {"end_ps", std::to_string(90 * testing::kPsPerUs)}, {"width_px", "100"}})
          .body);
  EXPECT_EQ(none["flows"].size(), 0u);
}

// With `lines`, only those tracks carry events; every track is still listed with all its rows
// (the page's layout stays the same) and the others say they were left out.
TEST_F(TraceApiTest, ViewportListsEventsOnlyOnTheLinesAskedFor) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const json all = json::parse(api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "100"}}).body);
  const int host_line = all["sections"][0]["tracks"][0]["line"], stream_line = all["sections"][1]["tracks"][0]["line"];
  const auto reply = api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "100"}, {"lines", std::to_string(stream_line)}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json v = json::parse(reply.body);
  ASSERT_EQ(v["sections"].size(), 2u);
  const json& host = v["sections"][0]["tracks"][0];
  EXPECT_EQ(host["line"], host_line);
  EXPECT_EQ(host["left_out"], true);
  ASSERT_EQ(host["rows"].size(), 3u);  // train; matmul; the launch: rows kept, boxes not
  for (const json& row : host["rows"]) {
    EXPECT_TRUE(row["events"].empty());
    EXPECT_TRUE(row["merged"].empty());
  }
  const json& stream = v["sections"][1]["tracks"][0];
  EXPECT_FALSE(stream.contains("left_out"));
  ASSERT_EQ(stream["rows"][0]["events"].size(), 1u);
  EXPECT_EQ(stream["rows"][0]["events"][0][0], 40 * testing::kPsPerUs);  // kernel_a
  EXPECT_EQ(v["names"].size(), 1u);
  ASSERT_EQ(v["flows"].size(), 1u);  // launch -> kernel_a: its kernel end is listed
  EXPECT_EQ(v["flows"][0][6], 40 * testing::kPsPerUs);

  // A range of lines covering both is the whole reply.
  const std::string both = std::to_string(std::min(host_line, stream_line)) + "-" + std::to_string(std::max(host_line, stream_line));
  EXPECT_EQ(json::parse(api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "100"}, {"lines", both}}).body), all);

  for (const char* bad : {"x", "9", "1-0", "0-9", "0,", "-1"})
    EXPECT_EQ(api.viewport({{"run", "run1"}, {"host", "worker"}, {"lines", bad}}).status, 400) << bad;
}

// A tool's row finds its event by the whole name: the one nearest a time in the tools' clock
// (milliseconds), else the longest; times in the reply are the viewer's (from the first event).
TEST_F(TraceApiTest, FindsAnEventByItsWholeName) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const json kernel = json::parse(api.find({{"run", "run1"}, {"host", "worker"}, {"name", "kernel_a"}}).body);
  EXPECT_EQ(kernel["name"], "kernel_a");
  EXPECT_EQ(kernel["start_ps"], 40 * testing::kPsPerUs);
  EXPECT_EQ(kernel["duration_ps"], 10 * testing::kPsPerUs);
  EXPECT_EQ(kernel["occurrences"], 1);
  const json near = json::parse(api.find({{"run", "run1"}, {"host", "worker"}, {"name", "matmul"}, {"at_ms", "0.012"}}).body);
  EXPECT_EQ(near["start_ps"], 10 * testing::kPsPerUs);
  EXPECT_EQ(api.find({{"run", "run1"}, {"host", "worker"}, {"name", "mat"}}).status, 404);  // whole names only
  EXPECT_EQ(api.find({{"run", "run1"}, {"host", "worker"}}).status, 400);
  EXPECT_EQ(api.find({{"run", "run1"}, {"host", "worker"}, {"name", "matmul"}, {"at_ms", "soon"}}).status, 400);
}

TEST_F(TraceApiTest, SharesTheToolsProfile) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  ASSERT_EQ(api.viewport({{"run", "run1"}, {"host", "worker"}}).status, 200);
  ASSERT_EQ(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "mat"}}).status, 200);
  const auto run = server::RunCatalog(dir.path()).find_run("run1");
  ASSERT_TRUE(run);
  EXPECT_FALSE(backend->json({*run, "worker", "overview_page", {}}).empty());
  EXPECT_EQ(backend->profiles_loaded(), 1u);  // the viewer and the tools read the run once
  EXPECT_EQ(api.event({{"run", "run1"}, {"host", "worker"}, {"event", "1"}}).status, 200);
  EXPECT_EQ(backend->profiles_loaded(), 1u);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// A range selection sums each name's self time inside the range per track: 20..45 µs holds
// 10 µs of matmul (10..30 µs) less the launch nested in it (15..17 µs, before the range), so
// 10 µs; train (0..100 µs) holds the other 15 µs of the main thread (its 25 µs less matmul's
// 10); kernel_a (40..50 µs) 5 µs on the GPU's stream. No track sums to more than the range.
TEST_F(TraceApiTest, SummarizesARange) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const auto reply = api.summary({{"run", "run1"}, {"host", "worker"}, {"start_ps", std::to_string(20 * testing::kPsPerUs)},
                                  {"end_ps", std::to_string(45 * testing::kPsPerUs)}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json s = json::parse(reply.body);
  EXPECT_EQ(s["events"], 3);  // the launch (15..17 µs) ends before the range
  EXPECT_EQ(s["tracks"], 2);
  EXPECT_EQ(s["busy_ps"], 30 * testing::kPsPerUs);  // 25 µs of the main thread, 5 of the stream
  ASSERT_EQ(s["names"].size(), 3u);
  EXPECT_EQ(s["names"][0]["name"], "train");
  EXPECT_EQ(s["names"][0]["self_ps"], 15 * testing::kPsPerUs);
  EXPECT_EQ(s["names"][0]["total_ps"], 25 * testing::kPsPerUs);
  EXPECT_EQ(s["names"][0]["track"], "main");
  EXPECT_EQ(s["names"][0]["host"], "worker");
  EXPECT_EQ(s["names"][1]["name"], "matmul");
  EXPECT_EQ(s["names"][1]["self_ps"], 10 * testing::kPsPerUs);
  EXPECT_EQ(s["names"][2]["name"], "kernel_a");
  EXPECT_EQ(s["names"][2]["count"], 1);
  EXPECT_EQ(s["names"][2]["self_ps"], 5 * testing::kPsPerUs);
  EXPECT_EQ(s["names"][2]["track"], "Stream #7(Compute)");
  EXPECT_EQ(api.summary({{"run", "run1"}, {"host", "worker"}, {"start_ps", "5"}, {"end_ps", "5"}}).status, 400);
  EXPECT_EQ(api.summary({{"run", "run1"}, {"host", "worker"}, {"end_ps", "5"}, {"lines", "x"}}).status, 400);
}

// Search on device tracks or host threads, the longest first, each hit with its host and track.
TEST_F(TraceApiTest, SearchesByScopeAndDuration) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const json longest = json::parse(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "a"}, {"sort", "duration"}}).body);
  ASSERT_EQ(longest["total"], 4);  // train, matmul, cudaLaunchKernel, kernel_a
  EXPECT_EQ(longest["events"][0]["name"], "train");
  EXPECT_EQ(longest["events"][1]["name"], "matmul");
  EXPECT_EQ(longest["events"][0]["track"], "main");
  EXPECT_EQ(longest["events"][0]["host"], "worker");
  const json device = json::parse(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "a"}, {"scope", "device"}}).body);
  ASSERT_EQ(device["total"], 1);
  EXPECT_EQ(device["events"][0]["name"], "kernel_a");
  EXPECT_EQ(device["events"][0]["section"], "/device:GPU:0");
  const json host = json::parse(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "a"}, {"scope", "host"}}).body);
  EXPECT_EQ(host["total"], 3);
  EXPECT_EQ(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "a"}, {"scope", "gpu"}}).status, 400);
  EXPECT_EQ(api.search({{"run", "run1"}, {"host", "worker"}, {"q", "a"}, {"sort", "name"}}).status, 400);
}

// The queue of stream 7: the launch at 15 µs puts one kernel in it until kernel_a starts at
// 40 µs (HTA's queue length: +1 at the launch call's start, -1 at the kernel's start).
TEST_F(TraceApiTest, CountsTheGpuQueueLengthPerStream) {
  server::TraceApi api{server::RunCatalog(dir.path()), *backend};
  const auto reply = api.counters({{"run", "run1"}, {"host", "worker"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json c = json::parse(reply.body)["counters"];
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]["name"], "Queue · Stream #7(Compute)");
  EXPECT_EQ(c[0]["section"], "/device:GPU:0");
  EXPECT_EQ(c[0]["points"], json::parse("[[15000000, 1], [40000000, 0]]"));
}

}  // namespace
}  // namespace mlprof
