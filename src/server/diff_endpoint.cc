#include "server/diff_endpoint.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <charconv>

#include "analysis/analyzed_profile.h"
#include "analysis/overview_page.h"
#include "analysis/profile_diff.h"
#include "server/compute_once_cache.h"
#include "server/http_reply.h"
#include "server/tool_backend.h"

namespace mlprof::server {
namespace {

constexpr size_t kDefaultMaxOps = 50;
constexpr size_t kMaxMaxOps = 1000;

// One side of the comparison: a run of the catalog (names are matched exactly against the
// logdir's listing, so no parameter can name a path) and one of its hosts, or all of them.
struct Side {
  format::RunLocation run;
  std::string host;
};

Side find_side(const RunCatalog& catalog, const QueryParams& params, const std::string& run_key,
               const std::string& host_key) {
  const std::string run_name = param(params, run_key), host = param(params, host_key);
  if (run_name.empty()) throw QueryError(400, "missing parameter '" + run_key + "'");
  auto run = catalog.find_run(run_name);
  if (!run) throw QueryError(404, "no run named '" + run_name + "'");
  if (!has_host(*run, host)) throw QueryError(404, "run '" + run_name + "' has no host named '" + host + "'");
  return {std::move(*run), host};
}

size_t max_ops_param(const QueryParams& params) {
  const std::string text = param(params, "max_ops");
  if (text.empty()) return kDefaultMaxOps;
  size_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v == 0 || v > kMaxMaxOps)
    throw QueryError(400, "parameter 'max_ops' must be an integer from 1 to " + std::to_string(kMaxMaxOps));
  return v;
}

std::string side_name(const Side& side) { return side.host.empty() ? side.run.name : side.run.name + " / " + side.host; }

}  // namespace

struct DiffApi::State {
  State(RunCatalog c, ToolBackend& b) : catalog(std::move(c)), backend(b) {}
  RunCatalog catalog;
  // The profiles come from the backend the tools use, read once and kept in its cache.
  ToolBackend& backend;
  // Diffs are small.
  ComputeOnceCache<std::string> results{32};
};

DiffApi::DiffApi(RunCatalog catalog, ToolBackend& backend)
    : state_(std::make_unique<State>(std::move(catalog), backend)) {}
DiffApi::~DiffApi() = default;

Reply DiffApi::diff(const QueryParams& params) {
  return guarded([&] {
    const Side a = find_side(state_->catalog, params, "run_a", "host_a");
    const Side b = find_side(state_->catalog, params, "run_b", "host_b");
    const size_t max_ops = max_ops_param(params);
    const std::string key = a.run.name + '\0' + a.host + '\0' + b.run.name + '\0' + b.host + '\0' + std::to_string(max_ops);
    const std::string version = files_version(a.run, a.host) + '\0' + files_version(b.run, b.host);
    auto body = state_->results.get(key, version, [&] {
      const auto pa = state_->backend.profile(a.run, a.host);
      const auto pb = state_->backend.profile(b.run, b.host);
      const auto oa = analysis::compute_overview_page(pa->profile(), pa->steps(), pa->op_stats(), pa->tf_data());
      const auto ob = analysis::compute_overview_page(pb->profile(), pb->steps(), pb->op_stats(), pb->tf_data());
      const auto ta = analysis::op_time_by_step(pa->profile(), pa->steps());
      const auto tb = analysis::op_time_by_step(pb->profile(), pb->steps());
      auto d = analysis::compute_profile_diff({oa, ta}, {ob, tb}, max_ops);
      d.a_name = side_name(a);
      d.b_name = side_name(b);
      return std::make_shared<const std::string>(json_text(analysis::to_json(d)));
    });
    return json_reply(*body);
  });
}

void add_diff_routes(httplib::Server& http, DiffApi& api) {
  http.Get("/api/diff", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.diff(query_params(req)));
  });
}

}  // namespace mlprof::server
