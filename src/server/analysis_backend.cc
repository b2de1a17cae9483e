// The backend over src/analysis: loads a run's profile (once, while its files stay the same)
// and answers each tool through the dispatch table.
#include <atomic>
#include <memory>

#include "model/load_profile.h"
#include "server/analyzed_profile.h"
#include "server/compute_once_cache.h"
#include "server/run_catalog.h"
#include "server/tool_backend.h"
#include "server/tool_dispatch.h"

namespace mlprof::server {
namespace {

class AnalysisBackend final : public ToolBackend {
 public:
  std::vector<ToolInfo> tools(const format::RunLocation& run, const std::string& host) override {
    const auto profile = load(run, host);
    std::vector<ToolInfo> tools;
    for (const auto& t : tool_entries())
      if (t.has_data(*profile)) tools.push_back({std::string(t.name), std::string(t.title)});
    return tools;
  }

  std::string json(const ToolQuery& q) override {
    const ToolEntry& tool = checked_tool(q);
    return tool.json(*load(q.run, q.host), q.options);
  }

  std::string csv(const ToolQuery& q) override {
    const ToolEntry& tool = checked_tool(q);
    return tool.csv(*load(q.run, q.host), q.options);
  }

  std::shared_ptr<const AnalyzedProfile> profile(const format::RunLocation& run, const std::string& host) override {
    return load(run, host);
  }

  size_t profiles_loaded() const override { return loads_; }

 private:
  static const ToolEntry& checked_tool(const ToolQuery& q) {
    const ToolEntry* tool = find_tool(q.tool);
    if (!tool) {
      std::string known;
      for (const auto& t : tool_entries()) known += (known.empty() ? "" : ", ") + std::string(t.name);
      throw QueryError(400, "unknown tool '" + q.tool + "' (tools: " + known + ")");
    }
    for (const auto& [name, value] : q.options) {
      bool accepted = false;
      for (auto o : tool->options) accepted = accepted || o == name;
      if (!accepted) throw QueryError(400, "tool '" + q.tool + "' has no option '" + name + "'");
    }
    return *tool;
  }

  std::shared_ptr<const AnalyzedProfile> load(const format::RunLocation& run, const std::string& host) {
    return profiles_.get(run.name + '\0' + host, files_version(run, host), [&] {
      model::Profile profile;
      model::LoadError error;
      // The run's own files: a run made of one file (`mlprof serve trace.json.gz`) shares its
      // directory with other files.
      const std::string& path = run.hosts.size() == 1 ? run.hosts.front().path : run.dir;
      if (!model::load_profile({path, "", host}, &profile, &error))
        throw std::runtime_error(error.path + ": " + error.problem);
      profile.run = run.name;
      ++loads_;
      return std::make_shared<const AnalyzedProfile>(std::move(profile));
    });
  }

  // Profiles can be large (docs/ARCHITECTURE.md §6: up to 48 bytes per event): keep only the last two.
  ComputeOnceCache<AnalyzedProfile> profiles_{2};
  std::atomic<size_t> loads_{0};
};

}  // namespace

std::unique_ptr<ToolBackend> make_analysis_backend() { return std::make_unique<AnalysisBackend>(); }

}  // namespace mlprof::server
