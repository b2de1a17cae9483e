// `mlprof serve`: the HTTP server that answers the JSON API (api.h) and serves the web UI
// compiled into the binary (ui_assets.h). It reads nothing from disk but the profiles the run
// catalog lists, so no URL reaches a file outside the logdir (docs/ARCHITECTURE.md §7).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/allowed_hosts.h"
#include "server/tool_backend.h"

namespace mlprof::server {

struct ServeOptions {
  std::string logdir;
  std::string bind = "127.0.0.1";  // loopback unless the user asks otherwise
  int port = 6006;                 // 0: any free port
  // Bound beyond loopback, the capture dialog may reach only these workers (host:port);
  // none listed: capture is off there (capture_endpoint.h).
  std::vector<std::string> allow_capture = {};
  // Names the server answers to beyond localhost, 127.0.0.1, ::1 and the address it listens on
  // (allowed_hosts.h): the names a user reaches it by through a proxy or a DNS name.
  std::vector<std::string> allow_hosts = {};
};

class ProfileServer {
 public:
  ProfileServer(ServeOptions options, std::unique_ptr<ToolBackend> backend);
  ~ProfileServer();
  ProfileServer(const ProfileServer&) = delete;
  ProfileServer& operator=(const ProfileServer&) = delete;

  // Opens the listening socket. False, with a one-line reason, when it cannot.
  bool bind(std::string* error);

  // The port bound (useful with port 0) and the URL to open.
  int port() const { return port_; }
  std::string url() const;

  // Answers requests until stop() is called. Call after bind().
  void serve();

  // Makes serve() return; safe from any thread, before or during serve().
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ServeOptions options_;
  int port_ = 0;
};

}  // namespace mlprof::server
