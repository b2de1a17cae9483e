// The trace viewer's API over a logdir: a viewport lists the tracks with their boxes, an
// event's details carry its stats and step, and search finds events by name.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/xspace_builder.h"
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
    testing::write_xspace(dir.path() + "/plugins/profile/run1/worker.xplane.pb", space);
  }
  testing::TempDir dir;
};

TEST_F(TraceApiTest, ViewportEventAndSearch) {
  server::TraceApi api{server::RunCatalog(dir.path())};
  const auto reply = api.viewport({{"run", "run1"}, {"host", "worker"}, {"width_px", "100"}});
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json v = json::parse(reply.body);
  EXPECT_EQ(v["end_ps"], 100 * testing::kPsPerUs);
  ASSERT_EQ(v["sections"].size(), 1u);
  EXPECT_EQ(v["sections"][0]["kind"], "host");
  const json& rows = v["sections"][0]["tracks"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
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

  EXPECT_EQ(api.viewport({{"run", "nope"}}).status, 404);
  EXPECT_EQ(api.viewport({{"run", "run1"}, {"host", "worker"}, {"start_ps", "x"}}).status, 400);
  EXPECT_EQ(api.event({{"run", "run1"}, {"host", "worker"}, {"event", "99"}}).status, 404);
}

}  // namespace
}  // namespace mlprof
