// One tool list (src/analysis/tool_registry.h) for `mlprof report` and the server: the server
// lists every tool with whether the run has data for it (and if not, why and how to get it),
// the command's unknown-tool error names the same tools, and each tool runs from both.
// Over the fixture logdir (write_fixture_logdir: runs input_bound, one host, and healthy, two).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/tool_registry.h"
#include "cli/cli_runner.h"
#include "server/api.h"

namespace fs = std::filesystem;
using nlohmann::json;
using mlprof::testing::run_mlprof;

namespace {

class ToolListTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    logdir_ = new fs::path(fs::temp_directory_path() / ("mlprof_tool_list_test_" + std::to_string(::getpid())));
    fs::remove_all(*logdir_);
    const std::string command = std::string(WRITE_FIXTURE_LOGDIR) + " '" + logdir_->string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*logdir_);
    delete logdir_;
  }
  void SetUp() override {
    backend_ = mlprof::server::make_analysis_backend();
    api_ = std::make_unique<mlprof::server::Api>(mlprof::server::RunCatalog(logdir_->string()), *backend_);
  }

  json tools(const std::string& run, const std::string& host) {
    const mlprof::server::Reply r = api_->tools(run, {{"host", host}});
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["tools"];
  }
  const json& tool(const json& list, const std::string& name) {
    for (const json& t : list)
      if (t["name"] == name) return t;
    ADD_FAILURE() << "no tool " << name << " in " << list.dump();
    return list;
  }
  std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

  static fs::path* logdir_;
  std::unique_ptr<mlprof::server::ToolBackend> backend_;
  std::unique_ptr<mlprof::server::Api> api_;
};

fs::path* ToolListTest::logdir_ = nullptr;

std::vector<std::string> registry_ids() {
  std::vector<std::string> ids;
  for (const auto& t : mlprof::analysis::tools()) ids.emplace_back(t.id);
  return ids;
}

TEST_F(ToolListTest, TheServerListsEveryToolInRegistryOrder) {
  std::vector<std::string> names;
  for (const json& t : tools("healthy", "")) names.push_back(t["name"]);
  EXPECT_EQ(names, registry_ids());
  // XProf's ids, which TensorBoard's profile plugin and these pages' URLs use.
  for (const char* id : {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "tf_data_bottleneck_analysis",
                         "kernel_stats", "pod_viewer", "memory_profile", "trace_viewer"})
    EXPECT_NE(std::find(names.begin(), names.end(), id), names.end()) << id;
}

TEST_F(ToolListTest, AToolWithoutDataSaysWhyAndHowToGetIt) {
  // The fixture has no GPU and no allocator events; the healthy run has two hosts.
  const json all_hosts = tools("healthy", "");
  EXPECT_EQ(tool(all_hosts, "overview_page")["available"], true);
  EXPECT_FALSE(tool(all_hosts, "overview_page").contains("reason"));
  EXPECT_EQ(tool(all_hosts, "pod_viewer")["available"], true);
  const json& memory = tool(all_hosts, "memory_profile");
  EXPECT_EQ(memory["available"], false);
  EXPECT_EQ(memory["reason"], "No memory events were found.");
  EXPECT_NE(memory["how_to_get"].get<std::string>().find("MLPROF_HOST_TRACER_LEVEL=3"), std::string::npos);
  EXPECT_EQ(tool(all_hosts, "kernel_stats")["available"], false);
  EXPECT_FALSE(tool(all_hosts, "kernel_stats")["how_to_get"].get<std::string>().empty());

  const json one_host = tools("healthy", "trainer");
  EXPECT_EQ(tool(one_host, "pod_viewer")["available"], false);
  EXPECT_EQ(tool(one_host, "pod_viewer")["reason"], "The run has one host.");
}

TEST_F(ToolListTest, TheCommandNamesTheSameToolsAsTheServer) {
  const auto r = run_mlprof("report " + q(*logdir_) + " --tool no_such_tool");
  EXPECT_EQ(r.exit_code, 1);
  const std::string prefix = "mlprof: unknown tool \"no_such_tool\" (tools: ";
  ASSERT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  std::vector<std::string> listed;
  std::istringstream ids(r.err.substr(prefix.size(), r.err.find(')') - prefix.size()));
  for (std::string id; std::getline(ids, id, ',');) listed.push_back(id.substr(id.find_first_not_of(' ')));
  std::vector<std::string> served;
  for (const json& t : tools("input_bound", "")) served.push_back(t["name"]);
  EXPECT_EQ(listed, served);
}

TEST_F(ToolListTest, EveryToolRunsFromTheCommandInEachFormat) {
  for (const std::string& id : registry_ids()) {
    for (const char* format : {"text", "json", "csv"}) {
      const auto r = run_mlprof("report " + q(*logdir_) + " --run healthy --tool " + id + " --format " + format);
      if (id == "trace_viewer" && std::string(format) == "csv") {
        // A timeline has no table: a usage error that says where the events can be had.
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_NE(r.err.find("mlprof convert --to chrome|perfetto"), std::string::npos) << r.err;
        continue;
      }
      EXPECT_EQ(r.exit_code, 0) << id << " " << format << ": " << r.err;
      EXPECT_FALSE(r.out.empty()) << id << " " << format;
      if (std::string(format) == "json") {
        EXPECT_TRUE(json::accept(r.out)) << id;
      }
      if (std::string(format) == "text") {
        // Every tool has a text rendering of its own (the fallback prints JSON).
        EXPECT_EQ(r.out.find("\n{"), std::string::npos) << id << "\n" << r.out;
      }
    }
  }
}

TEST_F(ToolListTest, TheCommandSaysWhatTheServerSaysOfAToolWithoutData) {
  // The fixture has no GPU kernels, no allocator events: the text is the registry's reason and
  // how to get the data, the same sentences the sidebar shows.
  auto words = [](const std::string& text) {
    std::istringstream in(text);
    std::string out;
    for (std::string w; in >> w;) out += (out.empty() ? "" : " ") + w;
    return out;
  };
  const json served = tools("healthy", "trainer");
  for (const char* id : {"kernel_stats", "memory_profile"}) {
    const auto r = run_mlprof("report " + q(*logdir_) + " --run healthy --host trainer --tool " + id);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json& t = tool(served, id);
    EXPECT_NE(words(r.out).find(t["reason"].get<std::string>() + " " + t["how_to_get"].get<std::string>()),
              std::string::npos)
        << id << ":\n" << r.out;
  }
}

TEST_F(ToolListTest, OptionsAreCheckedTheSameWayFromBothSides) {
  // A value the option does not take.
  EXPECT_EQ(run_mlprof("report " + q(*logdir_) + " --tool memory_profile --sort size").exit_code, 1);
  auto r = api_->data({{"run", "healthy"}, {"tool", "memory_profile"}, {"sort", "size"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "option 'sort' takes allocation, requested, occurrences or op, not 'size'");
  r = api_->data({{"run", "healthy"}, {"tool", "framework_op_stats"}, {"include_idle", "yes"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "option 'include_idle' takes 1 or 0, not 'yes'");
  // An option of another tool.
  r = api_->data({{"run", "healthy"}, {"tool", "overview_page"}, {"include_idle", "1"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "tool 'overview_page' has no option 'include_idle'");
  // An unknown tool lists the valid ones.
  r = api_->data({{"run", "healthy"}, {"tool", "nope"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"], "unknown tool 'nope' (tools: " + mlprof::analysis::tool_ids() + ")");
}

}  // namespace
