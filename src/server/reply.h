// What an endpoint answers, independent of the HTTP library: a Reply, the query parameters it
// reads, JSON text that never fails on bytes that are not UTF-8, and errors as `{"error": "..."}`
// with 400 (bad request), 404 (no such run, host or data) or 500 (a profile that cannot be read).
// http_reply.h sends a Reply over httplib, the same way for every route.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>

#include "server/tool_backend.h"

namespace mlprof::server {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string download_name;  // set: the browser saves the body under this file name
};

using QueryParams = std::map<std::string, std::string>;

// A parameter's value, empty when absent.
std::string param(const QueryParams& params, const std::string& name);
// An integer parameter, or `fallback` when absent; throws QueryError(400) for a malformed one.
int64_t int_param(const QueryParams& params, const std::string& name, int64_t fallback);

// JSON as text. Run and host names come from directory names, and error messages quote the
// URL, so either may hold bytes that are not UTF-8: those are replaced rather than thrown on.
std::string json_text(const nlohmann::json& j);
std::string json_text(const nlohmann::ordered_json& j);

// A 200 answer with a JSON body.
Reply json_reply(std::string body);
Reply error_reply(int status, const std::string& message);

// Runs an endpoint's work, turning what it throws into an error reply: a QueryError's status
// and message, 500 with the message for anything else.
template <class F>
Reply guarded(F&& f) {
  try {
    return f();
  } catch (const QueryError& e) {
    return error_reply(e.http_status, e.what());
  } catch (const std::exception& e) {
    return error_reply(500, e.what());
  }
}

}  // namespace mlprof::server
