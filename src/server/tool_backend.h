// What the HTTP layer asks of the analysis: which tools have data for a run, and a tool's
// result as JSON or CSV. The real backend (make_analysis_backend below) loads the Profile and
// calls the same tool functions as `mlprof report`; tests can put a fake one in its place.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/profile_paths.h"

namespace mlprof::analysis {
class AnalyzedProfile;
}

namespace mlprof::server {

using analysis::AnalyzedProfile;

struct ToolInfo {
  std::string name;   // XProf's tool id, e.g. "overview_page"
  std::string title;  // what the UI shows, e.g. "Overview"
  bool available = true;   // the run has data for it
  std::string reason = {};      // when not: why not
  std::string how_to_get = {};  // and what to do to get some
};

struct ToolQuery {
  format::RunLocation run;
  std::string host;  // one host of the run; empty: all hosts
  std::string tool;
  std::map<std::string, std::string> options;  // the URL's other parameters, e.g. include_idle
};

// A query the backend cannot answer because of what the client asked: 400 for an unknown tool
// or a bad option, 404 for a tool with no data in this run. The server sends the message as
// the JSON error; anything else thrown becomes a 500 with its message.
struct QueryError : std::runtime_error {
  QueryError(int http_status, const std::string& message)
      : std::runtime_error(message), http_status(http_status) {}
  int http_status;
};

class ToolBackend {
 public:
  virtual ~ToolBackend() = default;

  // Every tool, with whether the run (or one of its hosts) has data for it, in the order the UI
  // lists them.
  virtual std::vector<ToolInfo> tools(const format::RunLocation& run, const std::string& host) = 0;

  // A tool's result as a JSON document (docs/ARCHITECTURE.md §4).
  virtual std::string json(const ToolQuery& query) = 0;

  // A tool's main table as CSV (one row per op, step or pipeline).
  virtual std::string csv(const ToolQuery& query) = 0;

  // The run's loaded profile, which the trace viewer shares with the tools so that a run is
  // read and held once. A backend without profiles answers 404.
  virtual std::shared_ptr<const AnalyzedProfile> profile(const format::RunLocation& run, const std::string& host) {
    throw QueryError(404, "no profile for run '" + run.name + "'");
  }

  // How many times a profile was read from its files (once per run and host while they stay
  // the same and in the cache).
  virtual size_t profiles_loaded() const { return 0; }
};

// The backend over the analysis tools of src/analysis; it reads `load_jobs` hosts of a run at
// once (model::LoadRequest::jobs; 0: one per processor core).
std::unique_ptr<ToolBackend> make_analysis_backend(unsigned load_jobs = 0);

}  // namespace mlprof::server
