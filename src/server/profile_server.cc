#include "server/profile_server.h"

#include <httplib.h>

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
#include "server/trace_endpoint.h"
#include "server/ui_assets.h"

namespace mlprof::server {
namespace {

// The page may load scripts, styles and data from this server only: the UI never needs the
// network, and a stray third-party request would fail loudly instead of leaking.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

}  // namespace

bool is_loopback_address(const std::string& address) {
  return address == "127.0.0.1" || address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

namespace {

// The host name of a Host header, without its port ("[::1]:6006" -> "::1").
std::string host_name_of(const std::string& host_header) {
  if (!host_header.empty() && host_header.front() == '[') {
    const auto close = host_header.find(']');
    return host_header.substr(1, close == std::string::npos ? std::string::npos : close - 1);
  }
  return host_header.substr(0, host_header.rfind(':'));
}

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

QueryParams query_params(const httplib::Request& req) {
  QueryParams params;
  for (const auto& [k, v] : req.params) params.emplace(k, v);  // the first of repeated names wins
  return params;
}

// Sends `body` as it is: with a known length and a content provider, httplib adds no
// compression of its own (it would pick Brotli at its slowest setting: seconds for a few MB).
void set_exact_body(httplib::Response& res, std::shared_ptr<const std::string> owner, std::string_view body,
                    const std::string& type) {
  res.set_content_provider(body.size(), type.c_str(),
                           [owner = std::move(owner), body](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(body.data() + offset, length);
                             return true;
                           });
}

// Sets the body, gzip-compressed when the client takes it (`gzipped` may hold it already).
// `owner` keeps `body` alive while it is sent; null for bytes that live as long as the program.
void set_body(const httplib::Request& req, httplib::Response& res, std::shared_ptr<const std::string> owner,
              std::string_view body, const std::string& type, std::string_view gzipped = {}) {
  res.set_header("Vary", "Accept-Encoding");
  if (accepts_gzip(req.get_header_value("Accept-Encoding"))) {
    if (gzipped.empty()) {
      auto compressed = std::make_shared<const std::string>(gzip_compress(body));
      if (!compressed->empty()) {
        res.set_header("Content-Encoding", "gzip");
        set_exact_body(res, compressed, *compressed, type);
        return;
      }
    } else {
      res.set_header("Content-Encoding", "gzip");
      set_exact_body(res, nullptr, gzipped, type);
      return;
    }
  }
  set_exact_body(res, std::move(owner), body, type);
}

void send(const httplib::Request& req, httplib::Response& res, const Reply& reply) {
  res.status = reply.status;
  res.set_header("Cache-Control", "no-store");
  if (!reply.download_name.empty())
    res.set_header("Content-Disposition", "attachment; filename=\"" + reply.download_name + "\"");
  auto body = std::make_shared<const std::string>(reply.body);
  set_body(req, res, body, *body, reply.content_type);
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
      : backend(std::move(backend)), api(RunCatalog(options.logdir), *this->backend),
        trace_api(RunCatalog(options.logdir), *this->backend), diff_api(RunCatalog(options.logdir)) {}

  void add_routes(bool loopback_only, const CapturePolicy& capture);

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

void ProfileServer::Impl::add_routes(bool loopback_only, const CapturePolicy& capture) {
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
  http.set_pre_routing_handler([loopback_only](const httplib::Request& req, httplib::Response& res) {
    if (auto refusal = refused_request(req)) {
      if (refusal->status == 405) res.set_header("Allow", "GET, HEAD, POST");
      close_after_reply(req);
      send(req, res, *refusal);
      return httplib::Server::HandlerResponse::Handled;
    }
    // A server on the loopback address answers only to loopback names, so a web page that
    // points its own domain at 127.0.0.1 (DNS rebinding) cannot read the profiles.
    if (loopback_only && !is_loopback_address(host_name_of(req.get_header_value("Host")))) {
      send(req, res, error_reply(403, "this server answers only to localhost and 127.0.0.1"));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Errors of the server's own have a body; httplib's come bare: give them the API's JSON form.
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request& req, httplib::Response& res) {
        if (res.has_header("Content-Type")) return httplib::Server::HandlerResponse::Unhandled;
        if (res.status != 404) close_after_reply(req);  // what follows a malformed request is no request
        res.set_content(error_reply(res.status, library_error_message(res.status)).body, "application/json");
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
      res.status = 404;
      res.set_content("not found: " + req.path + "\n", "text/plain; charset=utf-8");
      return;
    }
    // Bundled files carry a content hash in their names, so they never change; the page
    // itself is checked each time so a rebuilt binary's UI shows at once.
    const UiAsset* asset = served->asset;
    const bool hashed = asset->path.rfind("/assets/", 0) == 0;
    res.set_header("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
    if (asset->mime_type.rfind("text/html", 0) == 0) res.set_header("Content-Security-Policy", kContentSecurityPolicy);
    set_body(req, res, nullptr, asset->bytes, std::string(asset->mime_type), served->gzipped);
  });
}

ProfileServer::ProfileServer(ServeOptions options, std::unique_ptr<ToolBackend> backend)
    : impl_(std::make_unique<Impl>(options, std::move(backend))), options_(std::move(options)) {
  const bool loopback = is_loopback_address(options_.bind);
  impl_->add_routes(loopback, capture_policy(loopback, options_.allow_capture));
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
