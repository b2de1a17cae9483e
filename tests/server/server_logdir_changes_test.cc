// A logdir that changes while it is served: a profile rewritten (the next answer is the new
// data, even when the size and modification time stay the same), truncated to garbage (a JSON
// error naming the file, and the data again once the file is whole), deleted (404), and a run
// that appears (listed and served).
#include <sys/stat.h>

#include <fstream>
#include <iterator>

#include "served_fixture.h"

namespace mlprof::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Writes beside the file and renames over it, as tools that save atomically do.
void replace_file(const fs::path& path, const std::string& bytes) {
  write_file(path.string() + ".tmp", bytes);
  fs::rename(path.string() + ".tmp", path);
}

// The op of that name in a framework_op_stats answer (or, by "name", a diff's), or null.
json find_op(const json& stats, const std::string& name, const char* key = "operation") {
  for (const auto& op : stats["ops"])
    if (op[key] == name) return op;
  return nullptr;
}

class ServerLogdirChanges : public ServedLogdir {
 protected:
  void SetUp() override {
    ServedLogdir::SetUp();
    start_server();
  }
  double input_pct(const std::string& run) {
    return get_json("/api/data?run=" + run + "&tool=overview_page", 200)["input_bound"]["input_pct"].get<double>();
  }
  fs::path input_bound_file() const { return run_dir("input_bound") / "trainer.xplane.pb"; }
  fs::path healthy_file() const { return run_dir("healthy") / "trainer.xplane.pb"; }
};

TEST_F(ServerLogdirChanges, ARewrittenProfileIsReadAgain) {
  EXPECT_NEAR(input_pct("input_bound"), 60, 2);
  const json before = get_json("/api/diff?run_a=healthy&run_b=input_bound", 200);
  EXPECT_EQ(find_op(before, "Iterator::Prefetch", "name")["status"], "slower");

  // input_bound now holds healthy's trainer profile.
  replace_file(input_bound_file(), read_file(healthy_file()));
  EXPECT_NEAR(input_pct("input_bound"), input_pct("healthy"), 1e-9);
  EXPECT_LT(input_pct("input_bound"), 10);
  const json after = get_json("/api/diff?run_a=healthy&run_b=input_bound", 200);
  EXPECT_EQ(after["breakdown_ms"]["input"]["change_ms"], 0);
}

TEST_F(ServerLogdirChanges, ARewriteOfTheSameSizeAndTimeIsReadAgain) {
  const json ops = get_json("/api/data?run=input_bound&tool=framework_op_stats", 200);
  ASSERT_FALSE(find_op(ops, "aten::relu").is_null());
  // Same bytes but one letter of a name, then the old modification time put back: only the
  // change time (and, for a rename, the file's identity) tells the new content from the old.
  std::string bytes = read_file(input_bound_file());
  const auto at = bytes.find("aten::relu");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 9] = 'X';
  const auto old_time = fs::last_write_time(input_bound_file());
  write_file(input_bound_file(), bytes);
  fs::last_write_time(input_bound_file(), old_time);
  const json in_place = get_json("/api/data?run=input_bound&tool=framework_op_stats", 200);
  EXPECT_TRUE(find_op(in_place, "aten::relu").is_null());
  EXPECT_EQ(find_op(in_place, "aten::relX")["occurrences"], 10);

  bytes[at + 9] = 'Y';
  replace_file(input_bound_file(), bytes);
  fs::last_write_time(input_bound_file(), old_time);
  const json renamed = get_json("/api/data?run=input_bound&tool=framework_op_stats", 200);
  EXPECT_EQ(find_op(renamed, "aten::relY")["occurrences"], 10);
}

TEST_F(ServerLogdirChanges, AGarbledProfileIsAJsonErrorUntilItIsWholeAgain) {
  EXPECT_NEAR(input_pct("input_bound"), 60, 2);
  const std::string whole = read_file(input_bound_file());
  const std::string path = input_bound_file().string();

  for (const std::string& garbage : {whole.substr(0, whole.size() / 2), std::string("not a profile\n"), std::string()}) {
    write_file(input_bound_file(), garbage);
    for (const std::string& url : {"/api/data?run=input_bound&tool=overview_page",
                                   "/api/csv?run=input_bound&tool=framework_op_stats",
                                   "/api/runs/input_bound/tools", "/api/diff?run_a=healthy&run_b=input_bound",
                                   "/api/trace?run=input_bound"}) {
      auto res = client_->Get(url);
      ASSERT_TRUE(res) << url;
      EXPECT_TRUE(res->status == 422 || res->status == 500) << url << ": " << res->status << " " << res->body;
      EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << url;
      const json error = json::parse(res->body, nullptr, false);
      ASSERT_TRUE(error.contains("error")) << url << ": " << res->body;
      EXPECT_NE(error["error"].get<std::string>().find(path), std::string::npos) << url << ": " << res->body;
    }
    EXPECT_EQ(get_json("/api/runs", 200)["runs"].size(), 2u);  // the listing still shows the run
  }

  write_file(input_bound_file(), whole);
  EXPECT_NEAR(input_pct("input_bound"), 60, 2);
}

TEST_F(ServerLogdirChanges, ADeletedRunOrHostIs404) {
  EXPECT_NEAR(input_pct("input_bound"), 60, 2);
  EXPECT_EQ(get_json("/api/data?run=healthy&host=worker1&tool=overview_page", 200)["input_bound"]["input_pct"] < 10, true);

  fs::remove_all(run_dir("input_bound"));
  EXPECT_EQ(get_json("/api/data?run=input_bound&tool=overview_page", 404)["error"], "no run named 'input_bound'");
  EXPECT_EQ(get_json("/api/diff?run_a=healthy&run_b=input_bound", 404)["error"], "no run named 'input_bound'");
  EXPECT_EQ(get_json("/api/trace?run=input_bound", 404)["error"], "no run named 'input_bound'");
  EXPECT_EQ(get_json("/api/runs", 200), json::parse(R"({"runs": [{"name": "healthy", "hosts": ["trainer", "worker1"]}]})"));

  fs::remove(run_dir("healthy") / "worker1.xplane.pb");
  EXPECT_EQ(get_json("/api/data?run=healthy&host=worker1&tool=overview_page", 404)["error"],
            "run 'healthy' has no host named 'worker1'");
  // All hosts of the run are now the trainer alone.
  EXPECT_EQ(get_json("/api/runs/healthy/hosts", 200)["hosts"].size(), 1u);
  EXPECT_EQ(get_json("/api/data?run=healthy&tool=framework_op_stats", 200),
            get_json("/api/data?run=healthy&host=trainer&tool=framework_op_stats", 200));
}

TEST_F(ServerLogdirChanges, AVanishedLogdirListsNoRunsUntilItComesBack) {
  EXPECT_NEAR(input_pct("input_bound"), 60, 2);
  const std::string saved = read_file(input_bound_file());
  fs::remove_all(logdir_);
  EXPECT_EQ(get_json("/api/runs", 200), json::parse(R"({"runs": []})"));
  EXPECT_EQ(get_json("/api/data?run=input_bound&tool=overview_page", 404)["error"], "no run named 'input_bound'");

  fs::create_directories(run_dir("input_bound"));
  write_file(input_bound_file(), saved);
  EXPECT_EQ(get_json("/api/runs", 200)["runs"].size(), 1u);
  EXPECT_NEAR(input_pct("input_bound"), 60, 2);
}

TEST_F(ServerLogdirChanges, ANewRunIsListedAndServed) {
  EXPECT_EQ(get_json("/api/runs", 200)["runs"].size(), 2u);
  fs::create_directories(run_dir("zz_new"));
  fs::copy_file(input_bound_file(), run_dir("zz_new") / "trainer.xplane.pb");
  const json runs = get_json("/api/runs", 200);
  ASSERT_EQ(runs["runs"].size(), 3u);
  EXPECT_EQ(runs["runs"][2], json::parse(R"({"name": "zz_new", "hosts": ["trainer"]})"));
  EXPECT_NEAR(input_pct("zz_new"), 60, 2);
}

}  // namespace
}  // namespace mlprof::testing
