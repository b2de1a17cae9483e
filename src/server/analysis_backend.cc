// The backend over src/analysis. Until the analysis tools land it offers no tool: the API
// still lists runs and hosts, and asks for tools answer "unknown tool".
#include "server/tool_backend.h"

namespace mlprof::server {
namespace {

class AnalysisBackend final : public ToolBackend {
 public:
  std::vector<ToolInfo> tools(const format::RunLocation&, const std::string&) override { return {}; }
  std::string json(const ToolQuery& q) override { throw QueryError(400, "unknown tool '" + q.tool + "'"); }
  std::string csv(const ToolQuery& q) override { throw QueryError(400, "unknown tool '" + q.tool + "'"); }
};

}  // namespace

std::unique_ptr<ToolBackend> make_analysis_backend() { return std::make_unique<AnalysisBackend>(); }

}  // namespace mlprof::server
