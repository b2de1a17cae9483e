#include "server/api.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <exception>

namespace mlprof::server {
namespace {

// Ordered: keys read in the order written ("name" before "hosts").
using json = nlohmann::ordered_json;

const char* format_name(format::ProfileFileKind kind) {
  return kind == format::ProfileFileKind::kXSpace ? "xspace" : "pytorch_trace_json";
}

// Distinct queries get distinct keys: the parts are separated by a byte no name holds.
std::string cache_key(std::initializer_list<std::string> parts, const QueryParams& options = {}) {
  std::string key;
  for (const auto& p : parts) key += p + '\0';
  for (const auto& [k, v] : options) key += k + '=' + v + '\0';
  return key;
}

// A file name made of safe characters: run and host names come from directory names.
std::string download_name(const ToolQuery& q) {
  std::string name = q.run.name + (q.host.empty() ? "" : "_" + q.host) + "_" + q.tool;
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  return name + ".csv";
}

}  // namespace

Api::Api(RunCatalog catalog, ToolBackend& backend) : catalog_(std::move(catalog)), backend_(backend) {}

Reply Api::runs() const {
  json runs = json::array();
  for (const auto& run : catalog_.runs()) {
    json hosts = json::array();
    for (const auto& h : run.hosts) hosts.push_back(h.host);
    runs.push_back({{"name", run.name}, {"hosts", std::move(hosts)}});
  }
  return json_reply(json_text(json{{"runs", std::move(runs)}}));
}

Reply Api::hosts(const std::string& run_name) const {
  const auto run = catalog_.find_run(run_name);
  if (!run) return error_reply(404, "no run named '" + run_name + "'");
  json hosts = json::array();
  for (const auto& h : run->hosts) hosts.push_back({{"name", h.host}, {"format", format_name(h.kind)}});
  return json_reply(json_text(json{{"run", run->name}, {"hosts", std::move(hosts)}}));
}

Reply Api::tools(const std::string& run_name, const QueryParams& params) {
  const auto run = catalog_.find_run(run_name);
  if (!run) return error_reply(404, "no run named '" + run_name + "'");
  const std::string host = param(params, "host");
  if (!has_host(*run, host)) return error_reply(404, "run '" + run_name + "' has no host named '" + host + "'");
  return guarded([&] {
    auto list = tool_lists_.get(cache_key({run->name, host}), files_version(*run, host), [&] {
      return std::make_shared<const std::vector<ToolInfo>>(backend_.tools(*run, host));
    });
    json tools = json::array();
    for (const auto& t : *list) {
      json tool = {{"name", t.name}, {"title", t.title}, {"available", t.available}};
      if (!t.available) tool["reason"] = t.reason, tool["how_to_get"] = t.how_to_get;
      tools.push_back(std::move(tool));
    }
    return json_reply(json_text(json{{"run", run->name}, {"host", host}, {"tools", std::move(tools)}}));
  });
}

Reply Api::data(const QueryParams& params) { return tool_result(params, Format::kJson); }
Reply Api::csv(const QueryParams& params) { return tool_result(params, Format::kCsv); }

Reply Api::tool_result(const QueryParams& params, Format format) {
  const std::string run_name = param(params, "run");
  const std::string tool = param(params, "tool");
  if (run_name.empty()) return error_reply(400, "missing parameter 'run'");
  if (tool.empty()) return error_reply(400, "missing parameter 'tool'");
  auto run = catalog_.find_run(run_name);
  if (!run) return error_reply(404, "no run named '" + run_name + "'");

  ToolQuery query{std::move(*run), param(params, "host"), tool, {}};
  if (!has_host(query.run, query.host))
    return error_reply(404, "run '" + run_name + "' has no host named '" + query.host + "'");
  for (const auto& [k, v] : params)
    if (k != "run" && k != "host" && k != "tool") query.options.emplace(k, v);

  return guarded([&] {
    const bool csv = format == Format::kCsv;
    auto body = results_.get(cache_key({csv ? "csv" : "json", query.run.name, query.host, tool}, query.options),
                             files_version(query.run, query.host), [&] {
                               return std::make_shared<const std::string>(csv ? backend_.csv(query)
                                                                              : backend_.json(query));
                             });
    if (!csv) return json_reply(*body);
    return Reply{200, "text/csv; charset=utf-8", *body, download_name(query)};
  });
}

}  // namespace mlprof::server
