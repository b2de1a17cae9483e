// The JSON API, independent of the HTTP library: each endpoint takes its path and query
// parameters and returns a Reply. Errors are `{"error": "..."}` with 400 (bad request),
// 404 (no such run, host or data) or 500 (a profile that cannot be read).
//
//   GET /api/runs                         {"runs": [{"name", "hosts": [...]}]}, newest last
//   GET /api/runs/{run}/hosts             {"run", "hosts": [{"name", "format"}]}
//   GET /api/runs/{run}/tools[?host=H]    {"run", "host", "tools": [{"name", "title", "available"}]}: every
//                                         tool of analysis/tool_registry.h; one without data also
//                                         has "reason" and "how_to_get"
//   GET /api/data?run=&host=&tool=[&opt]  the tool's JSON result
//   GET /api/csv?run=&host=&tool=[&opt]   the tool's table as CSV, as a download
#pragma once

#include <string>
#include <vector>

#include "server/compute_once_cache.h"
#include "server/reply.h"
#include "server/run_catalog.h"
#include "server/tool_backend.h"

namespace mlprof::server {

class Api {
 public:
  Api(RunCatalog catalog, ToolBackend& backend);

  Reply runs() const;
  Reply hosts(const std::string& run) const;
  Reply tools(const std::string& run, const QueryParams& params);
  Reply data(const QueryParams& params);
  Reply csv(const QueryParams& params);

  const RunCatalog& catalog() const { return catalog_; }

 private:
  enum class Format { kJson, kCsv };
  Reply tool_result(const QueryParams& params, Format format);

  RunCatalog catalog_;
  ToolBackend& backend_;
  // Results per run, host, tool and options; recomputed when the profile files change. Op
  // tables of large profiles run to tens of MB, so the cache also has a byte budget.
  ComputeOnceCache<std::string> results_{64, size_t(256) << 20, [](const std::string& s) { return s.size(); }};
  ComputeOnceCache<std::vector<ToolInfo>> tool_lists_{64};
};

}  // namespace mlprof::server
