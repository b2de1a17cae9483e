// The trace viewer's API: viewport queries over a run's timeline with no event cap, one
// event's details, and search by name. The profile is the one the tools use (ToolBackend::
// profile), so a run is read and held once; its index is built on the first query.
//
//   GET /api/trace?run=&host=[&start_ps=&end_ps=&width_px=]
//       {"run", "host", "begin_ps": 0, "end_ps", "start_ps", "end_ps_view", "width_px",
//        "names": {"<id>": name}, "sections": [{"name", "kind": "device"|"host"|"other",
//        "tracks": [{"line", "name", ["left_out": true,] "rows": [{"lane", "depth",
//        "events": [[start_ps, duration_ps, name_id, event]], "merged": [[start_ps, duration_ps, count]]}]}]}],
//        "flows": [[from_event, to_event, "launch"|"producer_consumer", from_line, from_start_ps, to_line, to_start_ps]],
//        "flows_truncated": bool}
//       Times are ps since the trace's first event; events at least one pixel wide are listed,
//       narrower ones merge into boxes per pixel column. Flows are those with a listed end
//       (at most kMaxViewportFlows). With `lines` (line numbers and ranges), only those
//       tracks have events: the others keep their rows, empty, and say "left_out" (the page
//       asks for the tracks in sight; one reply of every row at 100 M events is 80 MB).
//       Device planes without events are sections with no tracks and "empty": why. With steps=1
//       also "steps": [[begin_ps, duration_ps, step_num]] (the step windows) and, where devices
//       worked, "device_span": [begin_ps, end_ps] (where a profile without steps opens).
//   GET /api/trace/event?run=&host=&event=   trace_event_details (stats, step, flows)
//   GET /api/trace/summary?run=&host=&start_ps=&end_ps=[&lines=1,2][&limit=]   a range's events per name
//       {"events", "distinct_names", "tracks", "busy_ps", "names": [{"name", "line", "host", "section", "track",
//       "count", "self_ps", "total_ps"}]}: per track and name, self time first (trace_range_summary.h)
//   GET /api/trace/counters?run=&host=   {"counters": [{"name", "section", "unit", "points": [[t_ps, value]]}]}
//       (trace_counters.h: GPU queue length per stream, in its device's section; memory in use
//       per allocator, in its device's section when its name gives one, else "section" "")
//   GET /api/trace/search?run=&host=&q=[&limit=][&scope=all|device|host][&sort=start|duration]
//       {"total", "events": [{"event", "name", "line", "start_ps", "duration_ps", "host", "section", "track"}]}
//       (the first `limit` by start, or the longest first; on device tracks, host threads or both)
//   GET /api/trace/find?run=&host=&name=[&at_ms=]   {"event", "name", "line", "start_ps", "duration_ps", "occurrences"}
//       The event named exactly `name` nearest `at_ms` (the tools' clock: ms of the profile's
//       time), else its longest occurrence; 404 when none has the name (a tool row's link).
#pragma once

#include <memory>

#include "server/api.h"
#include "server/run_catalog.h"
#include "server/tool_backend.h"

namespace httplib {
class Server;
}

namespace mlprof::server {

inline constexpr size_t kMaxViewportFlows = 5000;

class TraceApi {
 public:
  // `backend` loads and holds the profiles; it must outlive this.
  TraceApi(RunCatalog catalog, ToolBackend& backend);
  ~TraceApi();

  Reply viewport(const QueryParams& params);
  Reply event(const QueryParams& params);
  Reply search(const QueryParams& params);
  Reply find(const QueryParams& params);
  Reply summary(const QueryParams& params);
  Reply counters(const QueryParams& params);

 private:
  std::shared_ptr<const AnalyzedProfile> load(const QueryParams& params);
  RunCatalog catalog_;
  ToolBackend& backend_;
};

// Registers the routes; `api` must outlive the server.
void add_trace_routes(httplib::Server& http, TraceApi& api);

}  // namespace mlprof::server
