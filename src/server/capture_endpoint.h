// POST /api/capture: the web UI's "Capture profile" dialog. Sends a capture to running
// workers' profiler servers with the same client as `mlprof capture`, into the served logdir
// (never another directory), and answers when it is done:
//   request  {"addresses": "host:port,..." | ["host:port", ...], "duration_ms": N,
//             "host_tracer_level": N, "device_tracer_level": N, "retries": N}
//   response {"run", "all_ok", "workers": [{"address", "ok", "empty_trace", "error",
//             "events", "bytes"}]}
// A binary built without gRPC answers 501.
#pragma once

#include <string>

#include "server/api.h"

namespace httplib {
class Server;
}

namespace mlprof::server {

// The reply to a capture request body; blocks for the capture's duration.
Reply capture_reply(const std::string& request_body, const std::string& logdir);

// Registers the route. Only same-origin JSON requests are taken: a page elsewhere cannot
// make a browser send one (it would need a CORS preflight this server never grants).
void add_capture_route(httplib::Server& http, const std::string& logdir);

}  // namespace mlprof::server
