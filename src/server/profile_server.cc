#include "server/profile_server.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "server/api.h"
#include "server/bounded_http_server.h"
#include "server/capture_endpoint.h"
#include "server/diff_endpoint.h"
#include "server/gzip_body.h"
#include "server/http_reply.h"
#include "server/trace_endpoint.h"
#include "server/ui_assets.h"

namespace mlprof::server {
namespace {

// The page may load scripts, styles and data from this server only: the UI never needs the
// network, and a stray third-party request would fail loudly instead of leaking.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

// The UI's files with their gzip forms, compressed once when the server starts.
struct ServedAsset {
  const UiAsset* asset;
  std::string gzipped;
};

std::vector<ServedAsset> compress_assets() {
  std::vector<ServedAsset> served;
  for (const auto& asset : ui_assets()) served.push_back({&asset, gzip_compress(asset.bytes)});
  return served;
}

const ServedAsset* find_asset(const std::vector<ServedAsset>& assets, const std::string& path) {
  const std::string wanted = path == "/" ? "/index.html" : path;
  for (const auto& a : assets)
    if (a.asset->path == wanted) return &a;
  return nullptr;
}

// The API's one request body is the capture dialog's small JSON. httplib reads a body whole
// before routing, and one without a length (chunked, or none given) until the client stops, so
// anything else is refused before it is read.
constexpr size_t kMaxRequestBody = size_t(1) << 20;
// A browser's request line and headers take a few KB, sent at once; httplib allows 8 KB a line.
constexpr size_t kMaxRequestHead = size_t(64) << 10;
constexpr std::chrono::seconds kMaxRequestHeadTime{10};

// The unread body must not be taken for the next request: the reply closes the connection.
void close_after_reply(const httplib::Request& req) {
  // The request is the server's own, mutable object; the handler is only handed it as const.
  auto& headers = const_cast<httplib::Request&>(req).headers;
  headers.erase("Connection");
  headers.emplace("Connection", "close");
}

// A reply refusing the request's method or body, if it must be refused.
std::optional<Reply> refused_request(const httplib::Request& req) {
  if (req.method != "GET" && req.method != "HEAD" && req.method != "POST")
    return error_reply(405, "the API takes GET and POST, not " + req.method);
  if (req.method != "POST") return std::nullopt;
  if (req.has_header("Transfer-Encoding") || !req.has_header("Content-Length"))
    return error_reply(411, "send the request body with a Content-Length");
  const std::string length = req.get_header_value("Content-Length");
  uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), bytes);
  if (ec != std::errc() || end != length.data() + length.size())
    return error_reply(400, "Content-Length is not a number: '" + length + "'");
  if (bytes > kMaxRequestBody)
    return error_reply(413, "the request body is " + std::to_string(bytes) + " bytes; the API takes at most " +
                                std::to_string(kMaxRequestBody));
  return std::nullopt;
}

// Every answer is generated or small: a byte range of it is never served, the whole answer is
// (RFC 9110 lets a server ignore Range). httplib 0.11 would cut ranges from the body without
// clamping them to its length, reading past it.
void ignore_ranges(const httplib::Request& req) {
  // The request is the server's own, mutable object; the handler is only handed it as const.
  auto& mutable_req = const_cast<httplib::Request&>(req);
  mutable_req.ranges.clear();
  mutable_req.headers.erase("Range");
}

std::string refused_host_message(const AllowedHosts& allowed) {
  std::string names;
  for (const auto& n : allowed.names()) names += (names.empty() ? "" : ", ") + n;
  return "this server answers only to " + names + " (mlprof serve --allow-host NAME adds a name)";
}

// The message for an error httplib answers itself, before any route: a malformed request line
// or headers, a line over its 8 KB, a path no route takes.
std::string library_error_message(int status) {
  switch (status) {
    case 400: return "malformed request";
    case 404: return "not found";
    case 413: return "the request body is too large";
    case 414: return "the request's URL is too long";
    default: return "request refused (HTTP " + std::to_string(status) + ")";
  }
}

}  // namespace

struct ProfileServer::Impl {
  Impl(const ServeOptions& options, std::unique_ptr<ToolBackend> backend)
      : allowed_hosts(options.bind, options.allow_hosts), backend(std::move(backend)), api(RunCatalog(options.logdir), *this->backend),
        trace_api(RunCatalog(options.logdir), *this->backend),
        diff_api(RunCatalog(options.logdir), *this->backend) {}

  void add_routes(const CapturePolicy& capture);

  const AllowedHosts allowed_hosts;
  std::unique_ptr<ToolBackend> backend;
  Api api;
  TraceApi trace_api;
  DiffApi diff_api;
  const std::vector<ServedAsset> assets = compress_assets();
  BoundedHttpServer http{kMaxRequestHead, kMaxRequestHeadTime};
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> serve_entered{false};
  std::atomic<bool> serve_returned{false};
};

void ProfileServer::Impl::add_routes(const CapturePolicy& capture) {
  http.set_default_headers({{"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"}});
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, which would let a second
  // server share a port already in use instead of reporting it.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // A short keep-alive lets a stop finish soon even while a browser keeps a connection open.
  http.set_keep_alive_timeout(2);

  http.set_payload_max_length(kMaxRequestBody);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    ignore_ranges(req);
    if (auto refusal = refused_request(req)) {
      if (refusal->status == 405) res.set_header("Allow", "GET, HEAD, POST");
      close_after_reply(req);
      send(req, res, *refusal);
      return httplib::Server::HandlerResponse::Handled;
    }
    // A web page that points its own domain at this server (DNS rebinding) names that domain
    // in Host, and in Origin when it posts: answer only to the names this server knows.
    if (!allowed_hosts.allows_host_header(req.get_header_value("Host")) ||
        !allowed_hosts.allows_origin(req.get_header_value("Origin"))) {
      send(req, res, error_reply(403, refused_host_message(allowed_hosts)));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Errors of the server's own have a body; httplib's come bare: give them the API's JSON form.
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request& req, httplib::Response& res) {
        if (res.has_header("Content-Type")) return httplib::Server::HandlerResponse::Unhandled;
        if (res.status != 404) close_after_reply(req);  // what follows a malformed request is no request
        send(req, res, error_reply(res.status, library_error_message(res.status)));
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send(req, res, error_reply(500, what));
  });

  http.Get("/api/runs", [this](const httplib::Request& req, httplib::Response& res) { send(req, res, api.runs()); });
  http.Get(R"(/api/runs/([^/]+)/hosts)", [this](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.hosts(req.matches[1]));
  });
  http.Get(R"(/api/runs/([^/]+)/tools)", [this](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.tools(req.matches[1], query_params(req)));
  });
  http.Get("/api/data", [this](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.data(query_params(req)));
  });
  http.Get("/api/csv", [this](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.csv(query_params(req)));
  });
  add_capture_route(http, api.catalog().logdir(), capture);
  add_trace_routes(http, trace_api);
  add_diff_routes(http, diff_api);
  http.Get(R"(/api(/.*)?)", [](const httplib::Request& req, httplib::Response& res) {
    send(req, res, error_reply(404, "no API endpoint " + req.path));
  });

  // Everything else is a file of the UI, from memory.
  http.Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
    const ServedAsset* served = find_asset(assets, req.path);
    if (!served) {
      send(req, res, Reply{404, "text/plain; charset=utf-8", "not found: " + req.path + "\n", ""});
      return;
    }
    // Bundled files carry a content hash in their names, so they never change; the page
    // itself is checked each time so a rebuilt binary's UI shows at once.
    const UiAsset* asset = served->asset;
    const bool hashed = asset->path.rfind("/assets/", 0) == 0;
    res.set_header("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
    if (asset->mime_type.rfind("text/html", 0) == 0) res.set_header("Content-Security-Policy", kContentSecurityPolicy);
    send_bytes(req, res, nullptr, asset->bytes, std::string(asset->mime_type), served->gzipped);
  });
}

ProfileServer::ProfileServer(ServeOptions options, std::unique_ptr<ToolBackend> backend)
    : impl_(std::make_unique<Impl>(options, std::move(backend))), options_(std::move(options)) {
  const bool loopback = is_loopback_address(options_.bind);
  impl_->add_routes(capture_policy(loopback, options_.allow_capture));
}

ProfileServer::~ProfileServer() { stop(); }

bool ProfileServer::bind(std::string* error) {
  errno = 0;
  if (options_.port == 0) {
    port_ = impl_->http.bind_to_any_port(options_.bind);
  } else if (impl_->http.bind_to_port(options_.bind, options_.port)) {
    port_ = options_.port;
  }
  if (port_ > 0) {
    impl_->http.widen_listen_backlog();
    return true;
  }
  const int err = errno;
  *error = "cannot listen on " + options_.bind + ":" + std::to_string(options_.port) +
           (err != 0 ? std::string(" (") + std::strerror(err) + ")" : std::string(" (port in use, or not an address of this machine)"));
  return false;
}

std::string ProfileServer::url() const {
  const bool ipv6 = options_.bind.find(':') != std::string::npos;
  std::string host = options_.bind == "0.0.0.0" || options_.bind == "::" ? "127.0.0.1" : options_.bind;
  if (ipv6 && host != "127.0.0.1") host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(port_) + "/";
}

void ProfileServer::serve() {
  impl_->serve_entered = true;
  // A write to a client that has gone raises SIGPIPE, which ends the process unless someone set
  // it aside. The server's threads, started here, inherit this thread's mask: with SIGPIPE
  // blocked their writes fail with EPIPE instead, whatever the host program does with it.
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  if (!impl_->stop_requested) impl_->http.listen_after_bind();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  impl_->serve_returned = true;
}

void ProfileServer::stop() {
  impl_->stop_requested = true;
  if (!impl_->serve_entered) return;  // serve() will see the request and not start
  // httplib ignores a stop that comes before its accept loop has started: wait for that.
  while (!impl_->http.is_running() && !impl_->serve_returned)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  impl_->http.stop();
}

}  // namespace mlprof::server
