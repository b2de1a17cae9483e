// The compare page's API: two runs (or one host of each) side by side, as `mlprof diff A B
// --format json` prints them (analysis/profile_diff.h).
//
//   GET /api/diff?run_a=&run_b=[&host_a=&host_b=&max_ops=]
//       {"a": {"name", "steps", "input_bound"}, "b": {...}, "step_time_ms": {"a", "b", "change_ms",
//        "change_pct"}, "breakdown_ms": {"<category>": {...}}, "ops": [{"name", "type",
//        "host_or_device", "a_self_time_per_step_ms", "b_self_time_per_step_ms", "change_ms",
//        "change_pct", "status"}]}
//   400 for a missing run or a bad max_ops, 404 for a run or host the logdir does not have.
#pragma once

#include <memory>

#include "server/reply.h"
#include "server/run_catalog.h"
#include "server/tool_backend.h"

namespace httplib {
class Server;
}

namespace mlprof::server {

class DiffApi {
 public:
  // Profiles are read through `backend` (which must outlive this), sharing its cache.
  DiffApi(RunCatalog catalog, ToolBackend& backend);
  ~DiffApi();

  Reply diff(const QueryParams& params);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Registers GET /api/diff; `api` must outlive the server.
void add_diff_routes(httplib::Server& http, DiffApi& api);

}  // namespace mlprof::server
