#include "server/reply.h"

#include <charconv>

namespace mlprof::server {

std::string param(const QueryParams& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() ? std::string() : it->second;
}

int64_t int_param(const QueryParams& params, const std::string& name, int64_t fallback) {
  const std::string text = param(params, name);
  if (text.empty()) return fallback;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw QueryError(400, "parameter '" + name + "' must be an integer");
  return v;
}

std::string json_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }
std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Reply json_reply(std::string body) { return Reply{200, "application/json", std::move(body), ""}; }

Reply error_reply(int status, const std::string& message) {
  return {status, "application/json", json_text(nlohmann::ordered_json{{"error", message}}), ""};
}

}  // namespace mlprof::server
