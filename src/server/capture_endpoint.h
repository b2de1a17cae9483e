// POST /api/capture: the web UI's "Capture profile" dialog. Sends a capture to running
// workers' profiler servers with the same client as `mlprof capture`, into the served logdir
// (never another directory), and answers when it is done:
//   request  {"addresses": "host:port,..." | ["host:port", ...], "duration_ms": N,
//             "host_tracer_level": N, "device_tracer_level": N, "retries": N}
//   response {"run", "all_ok", "workers": [{"address", "ok", "empty_trace", "error",
//             "events", "bytes"}]}
//   GET /api/capture   {"enabled", "reason" (why not, when off), "workers": [allowed, or none: any]}
// A binary built without gRPC answers 501. A server bound beyond loopback captures only when
// the operator allows it (`mlprof serve --allow-capture WORKERS`), and then only from those
// workers: otherwise anyone on the network could make it open connections to any address.
#pragma once

#include <string>
#include <vector>

#include "server/reply.h"

namespace httplib {
class Server;
}

namespace mlprof::server {

// Who the capture dialog may capture from.
struct CapturePolicy {
  bool enabled = true;
  std::string reason;                // why captures are off
  std::vector<std::string> workers;  // the only addresses allowed; empty: any
};

// On loopback: any worker. Beyond it: none, unless `allowed` lists some (host:port each).
CapturePolicy capture_policy(bool loopback, const std::vector<std::string>& allowed);

// The reply to a capture request body; blocks for the capture's duration.
Reply capture_reply(const std::string& request_body, const std::string& logdir, const CapturePolicy& policy = {});

// What GET /api/capture answers.
Reply capture_policy_reply(const CapturePolicy& policy);

// Registers the routes. Only same-origin JSON requests are taken: a page elsewhere cannot
// make a browser send one (it would need a CORS preflight this server never grants).
void add_capture_route(httplib::Server& http, const std::string& logdir, CapturePolicy policy = {});

}  // namespace mlprof::server
