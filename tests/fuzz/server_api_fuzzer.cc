// libFuzzer target: the HTTP API's request handling without sockets. The input is a request
// target ("/api/data?run=steps&tool=overview_page"); it is split and decoded with the HTTP
// library's own functions, as the server does, and routed like profile_server.cc routes GET
// /api/... to the JSON API (api.h), the trace viewer's API and the compare API, over a small
// logdir written at start. Every reply must be a status the API documents with a JSON body;
// a 500 would mean a query broke a readable profile.
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fixture_logdir.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/scratch_dir.h"
#include "server/api.h"
#include "server/diff_endpoint.h"
#include "server/trace_endpoint.h"

namespace {

using mlprof::server::QueryParams;
using mlprof::server::Reply;

struct Fixture {
  Fixture()
      : dir("mlprof_fuzz_server"),
        logdir(mlprof::fuzz::write_fixture_logdir(dir.path())),
        backend(mlprof::server::make_analysis_backend()),
        api(mlprof::server::RunCatalog(logdir), *backend),
        trace_api(mlprof::server::RunCatalog(logdir), *backend),
        diff_api(mlprof::server::RunCatalog(logdir), *backend) {}
  mlprof::fuzz::ScratchDir dir;
  std::string logdir;
  std::unique_ptr<mlprof::server::ToolBackend> backend;
  mlprof::server::Api api;
  mlprof::server::TraceApi trace_api;
  mlprof::server::DiffApi diff_api;
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// "/api/runs/<run>/<what>" -> run, when the run segment has no '/' (the route's [^/]+).
bool run_route(const std::string& path, std::string_view what, std::string* run) {
  constexpr std::string_view kPrefix = "/api/runs/";
  if (path.size() <= kPrefix.size() + what.size() + 1 || path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  if (path.compare(path.size() - what.size(), what.size(), what) != 0 || path[path.size() - what.size() - 1] != '/')
    return false;
  *run = path.substr(kPrefix.size(), path.size() - kPrefix.size() - what.size() - 1);
  return run->find('/') == std::string::npos;
}

// The API's answer to a GET of `target`; false for paths outside the JSON API.
bool answer(const std::string& target, Reply* reply) {
  const size_t q = target.find('?');
  const std::string path = httplib::detail::decode_url(target.substr(0, q), false);
  httplib::Params multi;
  if (q != std::string::npos) httplib::detail::parse_query_text(target.substr(q + 1), multi);
  QueryParams params;
  for (const auto& [k, v] : multi) params.emplace(k, v);  // the first of repeated names wins

  Fixture& f = fixture();
  std::string run;
  if (path == "/api/runs") *reply = f.api.runs();
  else if (run_route(path, "hosts", &run)) *reply = f.api.hosts(run);
  else if (run_route(path, "tools", &run)) *reply = f.api.tools(run, params);
  else if (path == "/api/data") *reply = f.api.data(params);
  else if (path == "/api/csv") *reply = f.api.csv(params);
  else if (path == "/api/trace") *reply = f.trace_api.viewport(params);
  else if (path == "/api/trace/event") *reply = f.trace_api.event(params);
  else if (path == "/api/trace/search") *reply = f.trace_api.search(params);
  else if (path == "/api/diff") *reply = f.diff_api.diff(params);
  else return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mlprof::fuzz::check;
  if (size > 4096) return 0;  // request lines are short; the server caps them too
  Reply reply;
  if (!answer(std::string(reinterpret_cast<const char*>(data), size), &reply)) return 0;
  if (reply.status != 200 && reply.status != 400 && reply.status != 404)
    check(false, "the API answers 200, 400 or 404 over a readable logdir, not " + std::to_string(reply.status) + ": " +
                     reply.body.substr(0, 300));
  if (reply.content_type == "application/json")
    check(nlohmann::json::accept(reply.body), "a JSON reply is valid JSON");
  return 0;
}
