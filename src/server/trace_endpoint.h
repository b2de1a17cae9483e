// The trace viewer's API: viewport queries over a run's timeline with no event cap, one
// event's details, and search by name. The profile and its index are built once per run and
// host (while their files stay the same) and kept for the next queries.
//
//   GET /api/trace?run=&host=[&start_ps=&end_ps=&width_px=]
//       {"run", "host", "begin_ps": 0, "end_ps", "start_ps", "end_ps_view", "width_px",
//        "names": {"<id>": name}, "sections": [{"name", "kind": "device"|"host"|"other",
//        "tracks": [{"line", "name", "rows": [{"lane", "depth",
//        "events": [[start_ps, duration_ps, name_id, event]], "merged": [[start_ps, duration_ps, count]]}]}]}]}
//       Times are ps since the trace's first event; events at least one pixel wide are listed,
//       narrower ones merge into boxes per pixel column.
//   GET /api/trace/event?run=&host=&event=   trace_event_details (stats, step, flows)
//   GET /api/trace/search?run=&host=&q=[&limit=]   {"total", "events": [{"event", "name", "line", "start_ps", "duration_ps"}]}
#pragma once

#include <memory>

#include "server/api.h"
#include "server/run_catalog.h"

namespace httplib {
class Server;
}

namespace mlprof::server {

class TraceApi {
 public:
  explicit TraceApi(RunCatalog catalog);
  ~TraceApi();

  Reply viewport(const QueryParams& params);
  Reply event(const QueryParams& params);
  Reply search(const QueryParams& params);

 private:
  struct Loaded;
  struct State;
  std::shared_ptr<const Loaded> load(const QueryParams& params);
  std::unique_ptr<State> state_;
};

// Registers the three routes; `api` must outlive the server.
void add_trace_routes(httplib::Server& http, TraceApi& api);

}  // namespace mlprof::server
