// 50 API clients at once against the real server and analysis: every client gets the same,
// correct answer, each result is computed once even when all clients ask for the same uncached
// result at the same moment, and nothing deadlocks (the clients time out instead of hanging).
#include <latch>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "served_fixture.h"

namespace mlprof::testing {
namespace {

using nlohmann::json;

// The analysis backend, counting how often each result is computed.
class CountingBackend : public server::ToolBackend {
 public:
  std::vector<server::ToolInfo> tools(const format::RunLocation& run, const std::string& host) override {
    count("tools " + run.name + " " + host);
    return inner_->tools(run, host);
  }
  std::string json(const server::ToolQuery& q) override {
    count("json " + q.run.name + " " + q.host + " " + q.tool);
    return inner_->json(q);
  }
  std::string csv(const server::ToolQuery& q) override {
    count("csv " + q.run.name + " " + q.host + " " + q.tool);
    return inner_->csv(q);
  }
  // The diff reads its two runs here, as the tools do.
  std::shared_ptr<const server::AnalyzedProfile> profile(const format::RunLocation& run, const std::string& host) override {
    return inner_->profile(run, host);
  }

  std::map<std::string, int> counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
  }

 private:
  void count(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_[what];
  }

  std::unique_ptr<server::ToolBackend> inner_ = server::make_analysis_backend();
  mutable std::mutex mutex_;
  std::map<std::string, int> counts_;
};

struct Answers {
  std::mutex mutex;
  std::map<std::string, std::multiset<std::string>> bodies;  // path -> "status body" per client
  int failures = 0;
};

// `clients` threads, released together; each asks for `first`, then for all of `paths`
// starting at its own offset so that different requests overlap.
void ask_concurrently(int port, int clients, const std::string& first, const std::vector<std::string>& paths,
                      Answers* answers) {
  std::latch start(clients);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      auto client = make_client(port);
      start.arrive_and_wait();
      std::vector<std::string> mine = {first};
      for (size_t k = 0; k < paths.size(); ++k) mine.push_back(paths[(k + size_t(i)) % paths.size()]);
      for (const auto& path : mine) {
        auto res = client->Get(path);
        std::lock_guard<std::mutex> lock(answers->mutex);
        if (!res) {
          ++answers->failures;
          continue;
        }
        answers->bodies[path].insert(std::to_string(res->status) + " " + res->body);
      }
    });
  }
  for (auto& t : threads) t.join();
}

class ServerConcurrency : public ServedLogdir {};

TEST_F(ServerConcurrency, FiftyClientsGetOneAnswerComputedOnce) {
  auto backend = std::make_unique<CountingBackend>();
  CountingBackend* counting = backend.get();
  start_server(std::move(backend));

  const std::string overview = "/api/data?run=input_bound&tool=overview_page";
  const std::vector<std::string> paths = {
      "/api/runs",
      "/api/runs/healthy/tools?host=trainer",
      "/api/data?run=healthy&host=worker1&tool=framework_op_stats",
      "/api/data?run=healthy&tool=overview_page",
      "/api/csv?run=input_bound&tool=framework_op_stats",
      "/api/diff?run_a=healthy&run_b=input_bound",
  };
  Answers answers;
  ask_concurrently(port(), 50, overview, paths, &answers);

  EXPECT_EQ(answers.failures, 0);
  ASSERT_EQ(answers.bodies.size(), paths.size() + 1);
  for (const auto& [path, bodies] : answers.bodies) {
    EXPECT_EQ(bodies.size(), 50u) << path;
    EXPECT_EQ(bodies.count(*bodies.begin()), bodies.size()) << path << ": the clients got different answers";
    EXPECT_EQ(bodies.begin()->substr(0, 4), "200 ") << path << ": " << bodies.begin()->substr(0, 300);
  }

  // The answers are the analysis' own: input_bound waits 60 to 64 ms of each ~102 ms step.
  const json page = json::parse(answers.bodies[overview].begin()->substr(4));
  EXPECT_NEAR(page["input_bound"]["input_pct"].get<double>(), 60, 2) << page["input_bound"];
  const json runs = json::parse(answers.bodies["/api/runs"].begin()->substr(4));
  EXPECT_EQ(runs, json::parse(R"({"runs": [{"name": "healthy", "hosts": ["trainer", "worker1"]},
                                           {"name": "input_bound", "hosts": ["trainer"]}]})"));
  const json ops = json::parse(answers.bodies[paths[2]].begin()->substr(4));
  bool found_mm = false;
  for (const auto& op : ops["ops"]) {
    if (op["operation"] != "aten::mm") continue;
    found_mm = true;
    EXPECT_EQ(op["occurrences"], 10);
    EXPECT_NEAR(op["total_self_time_ms"].get<double>(), 450, 0.01);  // 45 ms in each of 10 steps
  }
  EXPECT_TRUE(found_mm);

  // 350 requests, one computation per result.
  const std::map<std::string, int> expected = {
      {"json input_bound  overview_page", 1},
      {"json healthy  overview_page", 1},
      {"json healthy worker1 framework_op_stats", 1},
      {"csv input_bound  framework_op_stats", 1},
      {"tools healthy trainer", 1},
  };
  EXPECT_EQ(counting->counts(), expected);
}

TEST_F(ServerConcurrency, FiftyClientsReadTheSameTimeline) {
  auto backend = server::make_analysis_backend();
  const server::ToolBackend* analysis = backend.get();
  start_server(std::move(backend));
  const std::string first = "/api/trace?run=input_bound&width_px=800";
  const std::vector<std::string> paths = {
      "/api/trace?run=healthy&host=worker1&width_px=400",
      "/api/trace/search?run=input_bound&q=aten",
      "/api/data?run=input_bound&tool=trace_viewer",
  };
  Answers answers;
  ask_concurrently(port(), 50, first, paths, &answers);

  EXPECT_EQ(answers.failures, 0);
  for (const auto& [path, bodies] : answers.bodies) {
    EXPECT_EQ(bodies.size(), 50u) << path;
    EXPECT_EQ(bodies.count(*bodies.begin()), bodies.size()) << path << ": the clients got different answers";
    EXPECT_EQ(bodies.begin()->substr(0, 4), "200 ") << path << ": " << bodies.begin()->substr(0, 300);
  }
  // Each step has aten::addmm, aten::relu and aten::mm on the train thread.
  const json found = json::parse(answers.bodies[paths[1]].begin()->substr(4));
  EXPECT_EQ(found["total"], 30);
  // Two profiles (input_bound, healthy's worker1), each read once for 200 requests.
  EXPECT_EQ(analysis->profiles_loaded(), 2u);
}

}  // namespace
}  // namespace mlprof::testing
