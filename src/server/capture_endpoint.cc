#include "server/capture_endpoint.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "server/http_reply.h"

#ifdef MLPROF_WITH_RPC_CLIENT
#include "rpc/capture_client.h"
#include "rpc/service_address.h"
#endif

namespace mlprof::server {
namespace {

using json = nlohmann::ordered_json;

// What a dialog may ask for: long captures belong to the command line.
constexpr uint64_t kMaxDurationMs = 10 * 60 * 1000;
constexpr size_t kMaxWorkers = 256;

#ifdef MLPROF_WITH_RPC_CLIENT

// "a:1,b:2" or ["a:1", "b:2"] as one comma-separated list.
std::string address_list(const json& addresses) {
  if (addresses.is_string()) return addresses.get<std::string>();
  if (!addresses.is_array()) throw std::invalid_argument("'addresses' must be a string or a list of strings");
  std::string list;
  for (const auto& a : addresses) {
    if (!a.is_string()) throw std::invalid_argument("'addresses' must be a string or a list of strings");
    list += (list.empty() ? "" : ",") + a.get<std::string>();
  }
  return list;
}

template <typename T>
T number_field(const json& body, const char* name, T fallback, T low, T high) {
  if (!body.contains(name)) return fallback;
  const json& v = body[name];
  if (!v.is_number_integer() || v.get<int64_t>() < int64_t(low) || v.get<int64_t>() > int64_t(high)) {
    throw std::invalid_argument(std::string("'") + name + "' must be a whole number from " + std::to_string(low) +
                                " to " + std::to_string(high));
  }
  return T(v.get<int64_t>());
}

rpc::CaptureRequest read_request(const std::string& text, const std::string& logdir) {
  const json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) throw std::invalid_argument("the body must be a JSON object");
  if (!body.contains("addresses")) throw std::invalid_argument("missing 'addresses' (host:port of each worker)");
  rpc::CaptureRequest r;
  std::string error;
  if (!rpc::parse_service_addresses(address_list(body["addresses"]), &r.addresses, &error))
    throw std::invalid_argument(error);
  if (r.addresses.size() > kMaxWorkers) throw std::invalid_argument("more than 256 workers");
  if (!body.contains("duration_ms")) throw std::invalid_argument("missing 'duration_ms'");
  r.duration_ms = number_field<uint64_t>(body, "duration_ms", 0, 1, kMaxDurationMs);
  r.host_tracer_level = number_field(body, "host_tracer_level", 2, 0, 3);
  r.device_tracer_level = number_field(body, "device_tracer_level", 1, 0, 3);
  r.retries = number_field(body, "retries", 2, 0, 10);
  r.logdir = logdir;
  return r;
}

Reply to_reply(const rpc::CaptureResult& result) {
  if (!result.error.empty()) return error_reply(500, "cannot capture into the logdir: " + result.error);
  json workers = json::array();
  for (const auto& w : result.workers) {
    workers.push_back({{"address", w.address}, {"ok", w.ok}, {"empty_trace", w.empty_trace}, {"error", w.error},
                       {"events", w.events}, {"bytes", w.bytes}});
  }
  const bool any_ok = std::any_of(result.workers.begin(), result.workers.end(), [](const auto& w) { return w.ok; });
  json body = {{"run", any_ok ? result.session_id : ""}, {"all_ok", result.all_ok()}, {"workers", workers}};
  return json_reply(json_text(body));
}

#endif

[[maybe_unused]] std::string fmt_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

bool is_json_content(const std::string& content_type) {
  return content_type.rfind("application/json", 0) == 0;
}

// A browser names the page's origin; it must be this server ("http://" + the Host header).
bool same_origin_or_none(const httplib::Request& req) {
  const std::string origin = req.get_header_value("Origin");
  return origin.empty() || origin == "http://" + req.get_header_value("Host");
}

}  // namespace

CapturePolicy capture_policy(bool loopback, const std::vector<std::string>& allowed) {
  CapturePolicy policy;
  if (loopback) return policy;
  if (allowed.empty()) {
    policy.enabled = false;
    policy.reason =
        "this server listens beyond this machine, so it captures only from workers its operator lists "
        "(mlprof serve --allow-capture host:port,...)";
    return policy;
  }
  for (const std::string& a : allowed) {
    std::string address = a, error;
#ifdef MLPROF_WITH_RPC_CLIENT
    rpc::normalize_service_address(a, &address, &error);  // as the requests' addresses are
#endif
    policy.workers.push_back(address);
  }
  return policy;
}

Reply capture_policy_reply(const CapturePolicy& policy) {
#ifndef MLPROF_WITH_RPC_CLIENT
  (void)policy;
  const json body = {{"enabled", false},
                     {"reason", "this mlprof was built without gRPC, so it cannot capture from workers"},
                     {"workers", json::array()}};
#else
  json body = {{"enabled", policy.enabled}, {"workers", policy.workers}};
  if (!policy.enabled) body["reason"] = policy.reason;
#endif
  return json_reply(json_text(body));
}

Reply capture_reply(const std::string& request_body, const std::string& logdir, const CapturePolicy& policy) {
#ifdef MLPROF_WITH_RPC_CLIENT
  if (!policy.enabled) return error_reply(403, "capture is off: " + policy.reason);
  rpc::CaptureRequest request;
  try {
    request = read_request(request_body, logdir);
  } catch (const std::exception& e) {
    return error_reply(400, e.what());
  }
  for (const std::string& address : request.addresses) {
    if (policy.workers.empty() ||
        std::find(policy.workers.begin(), policy.workers.end(), address) != policy.workers.end())
      continue;
    return error_reply(403, "capture from " + address + " is not allowed: this server captures only from " +
                                fmt_list(policy.workers));
  }
  return to_reply(rpc::capture_profiles(request));
#else
  (void)request_body, (void)logdir, (void)policy;
  return error_reply(501, "this mlprof was built without gRPC, so it cannot capture from workers");
#endif
}

void add_capture_route(httplib::Server& http, const std::string& logdir, CapturePolicy policy) {
  http.Get("/api/capture", [policy](const httplib::Request& req, httplib::Response& res) {
    send(req, res, capture_policy_reply(policy));
  });
  http.Post("/api/capture", [logdir, policy](const httplib::Request& req, httplib::Response& res) {
    Reply reply;
    if (!is_json_content(req.get_header_value("Content-Type"))) {
      reply = error_reply(415, "send the capture request as application/json");
    } else if (!same_origin_or_none(req)) {
      reply = error_reply(403, "captures are taken only from this server's own page");
    } else {
      reply = capture_reply(req.body, logdir, policy);
    }
    send(req, res, reply);
  });
}

}  // namespace mlprof::server
