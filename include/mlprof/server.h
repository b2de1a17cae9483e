// mlprof sampling mode: a profiler server in the training job, so that a user can capture a
// profile on demand (`mlprof capture`, the web UI, or TensorFlow's
// `tf.profiler.experimental.client.trace`) without stopping the job.
//
//   mlprof::start_server(6009);   // like tf.profiler.experimental.server.start(6009)
//
// The server speaks tensorflow.ProfilerService over gRPC. Each Profile request runs an
// ordinary session (the same as mlprof::start/stop) for the requested duration and writes
// <repository_root>/<session_id>/<host>.xplane.pb. One capture runs at a time; a second one
// is refused with ALREADY_EXISTS, and a programmatic session blocks remote captures while
// it runs (and the reverse).
//
// Link the mlprof::rpc library (libmlprof_rpc, which needs gRPC) for this header. A program
// that links it, or runs with LD_PRELOAD=libmlprof_rpc.so, also starts the server with no
// code change when MLPROF_SERVER_PORT is set: "PORT" listens on 127.0.0.1, "ADDRESS:PORT"
// on that address (e.g. 0.0.0.0:6009 for other machines).
#pragma once

#include <string>

#include "mlprof/mlprof.h"

namespace mlprof {

struct ServerOptions {
  // The address to listen on: loopback unless the job must be reachable from elsewhere.
  std::string bind_address = "127.0.0.1";
};

// Starts the profiler server on `port` (0: any free port, see server_port()). Fails with a
// clear message when the port is taken or a server already runs in this process.
MLPROF_API Status start_server(int port, const ServerOptions& options = {});

// Stops the server; a capture in progress ends early and is still written. No-op when none runs.
MLPROF_API void stop_server();

// The port the server listens on, or 0 when none runs.
MLPROF_API int server_port();

}  // namespace mlprof
