// The backend over src/analysis: loads a run's profile (once, while its files stay the same)
// and answers each tool through the tool registry, as `mlprof report` does.
#include <atomic>
#include <memory>

#include "analysis/analyzed_profile.h"
#include "analysis/tool_registry.h"
#include "model/load_profile.h"
#include "server/compute_once_cache.h"
#include "server/reply.h"
#include "server/run_catalog.h"
#include "server/tool_backend.h"

namespace mlprof::server {
namespace {

class AnalysisBackend final : public ToolBackend {
 public:
  explicit AnalysisBackend(unsigned load_jobs) : load_jobs_(load_jobs) {}

  std::vector<ToolInfo> tools(const format::RunLocation& run, const std::string& host) override {
    const auto profile = load(run, host);
    std::vector<ToolInfo> tools;
    for (const analysis::Tool& t : analysis::tools()) {
      const bool available = t.has_data(*profile);
      tools.push_back({std::string(t.id), std::string(t.title), available,
                       available ? "" : std::string(t.no_data_reason), available ? "" : std::string(t.how_to_get)});
    }
    return tools;
  }

  std::string json(const ToolQuery& q) override {
    return answer(q, [](const analysis::ToolResult& r) { return json_text(r.json()); });
  }

  std::string csv(const ToolQuery& q) override {
    return answer(q, [](const analysis::ToolResult& r) { return r.csv(); });
  }

  std::shared_ptr<const AnalyzedProfile> profile(const format::RunLocation& run, const std::string& host) override {
    return load(run, host);
  }

  size_t profiles_loaded() const override { return loads_; }

 private:
  // Runs the tool and renders its result; what the client asked wrong is a 400.
  template <class Render>
  std::string answer(const ToolQuery& q, Render render) {
    const analysis::Tool* tool = analysis::find_tool(q.tool);
    if (!tool) throw QueryError(400, "unknown tool '" + q.tool + "' (tools: " + analysis::tool_ids() + ")");
    try {
      analysis::check_options(*tool, q.options);  // before the profile is read
      const auto profile = load(q.run, q.host);
      return render(analysis::run_tool(*tool, *profile, q.options));
    } catch (const analysis::ToolRequestError& e) {
      throw QueryError(400, e.what());
    }
  }

  std::shared_ptr<const AnalyzedProfile> load(const format::RunLocation& run, const std::string& host) {
    return profiles_.get(run.name + '\0' + host, files_version(run, host), [&] {
      model::Profile profile;
      model::LoadError error;
      // The run's own files: a run made of one file (`mlprof serve trace.json.gz`) shares its
      // directory with other files.
      const std::string& path = run.hosts.size() == 1 ? run.hosts.front().path : run.dir;
      if (!model::load_profile({path, "", host, {}, load_jobs_}, &profile, &error))
        throw std::runtime_error(error.path + ": " + error.problem);
      profile.run = run.name;
      ++loads_;
      return std::make_shared<const AnalyzedProfile>(std::move(profile));
    });
  }

  // Profiles can be large (docs/ARCHITECTURE.md §6: up to 48 bytes per event): keep only the last two.
  ComputeOnceCache<AnalyzedProfile> profiles_{2};
  const unsigned load_jobs_;
  std::atomic<size_t> loads_{0};
};

}  // namespace

std::unique_ptr<ToolBackend> make_analysis_backend(unsigned load_jobs) {
  return std::make_unique<AnalysisBackend>(load_jobs);
}

}  // namespace mlprof::server
