#include "server/trace_endpoint.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <mutex>
#include <optional>

#include "analysis/step_grouping.h"
#include "analysis/trace_event_details.h"
#include "analysis/trace_flows.h"
#include "analysis/trace_index.h"
#include "analysis/trace_search.h"
#include "model/load_profile.h"
#include "server/compute_once_cache.h"
#include "server/gzip_body.h"
#include "server/tool_backend.h"

namespace mlprof::server {
namespace {

using json = nlohmann::ordered_json;

std::string param(const QueryParams& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() ? std::string() : it->second;
}

// An integer parameter, or `fallback` when absent; a malformed one is a 400.
int64_t int_param(const QueryParams& params, const std::string& name, int64_t fallback) {
  const std::string text = param(params, name);
  if (text.empty()) return fallback;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw QueryError(400, "parameter '" + name + "' must be an integer");
  return v;
}

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

const char* section_kind(model::PlaneKind k) {
  return k == model::PlaneKind::kDevice ? "device" : k == model::PlaneKind::kHostThreads ? "host" : "other";
}

}  // namespace

// A run's profile with what the viewer asks of it. The step grouping waits for the first
// details request: the timeline itself does not need it.
struct TraceApi::Loaded {
  explicit Loaded(model::Profile p) : profile(std::move(p)), index(profile), flows(analysis::find_trace_flows(profile)) {}
  const analysis::StepGrouping& steps() const {
    std::call_once(steps_once, [&] { steps_.emplace(analysis::group_steps(profile)); });
    return *steps_;
  }
  model::Profile profile;
  analysis::TraceIndex index;
  analysis::TraceFlows flows;
  mutable std::once_flag steps_once;
  mutable std::optional<analysis::StepGrouping> steps_;
};

struct TraceApi::State {
  explicit State(RunCatalog c) : catalog(std::move(c)) {}
  RunCatalog catalog;
  ComputeOnceCache<Loaded> loaded{1};  // profiles are large: keep the one being viewed
};

TraceApi::TraceApi(RunCatalog catalog) : state_(std::make_unique<State>(std::move(catalog))) {}
TraceApi::~TraceApi() = default;

std::shared_ptr<const TraceApi::Loaded> TraceApi::load(const QueryParams& params) {
  const std::string run_name = param(params, "run"), host = param(params, "host");
  if (run_name.empty()) throw QueryError(400, "missing parameter 'run'");
  const auto run = state_->catalog.find_run(run_name);
  if (!run) throw QueryError(404, "no run named '" + run_name + "'");
  if (!has_host(*run, host)) throw QueryError(404, "run '" + run_name + "' has no host named '" + host + "'");
  return state_->loaded.get(run->name + '\0' + host, files_version(*run, host), [&] {
    model::Profile profile;
    model::LoadError error;
    const std::string& path = run->hosts.size() == 1 ? run->hosts.front().path : run->dir;
    if (!model::load_profile({path, "", host}, &profile, &error)) throw std::runtime_error(error.path + ": " + error.problem);
    profile.run = run->name;
    return std::make_shared<const Loaded>(std::move(profile));
  });
}

Reply TraceApi::viewport(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const model::Profile& p = loaded->profile;
    const analysis::TraceIndex& index = loaded->index;
    const int64_t zero = index.begin_ps(), span = index.end_ps() - index.begin_ps();
    const int64_t start = int_param(params, "start_ps", 0), end = int_param(params, "end_ps", std::max<int64_t>(span, 1));
    const int64_t width = int_param(params, "width_px", 1000);
    if (end <= start) throw QueryError(400, "end_ps must be after start_ps");
    if (width < 1 || width > 20000) throw QueryError(400, "width_px must be from 1 to 20000");
    const analysis::TraceViewport view{zero + start, zero + end, uint32_t(width)};

    json sections = json::array();
    json names = json::object();
    uint32_t section_plane = model::kNone;
    std::vector<analysis::TraceBox> boxes;
    for (const auto& track : index.tracks()) {
      const model::Line& line = p.lines[track.line];
      if (line.plane != section_plane) {
        section_plane = line.plane;
        const model::Plane& plane = p.planes[line.plane];
        std::string name(p.strings.view(plane.name));
        if (p.hosts.size() > 1) name = std::string(p.strings.view(p.hosts[plane.host].name)) + " " + name;
        sections.push_back({{"name", name}, {"kind", section_kind(plane.kind)}, {"tracks", json::array()}});
      }
      json rows = json::array();
      for (const auto& row : track.rows) {
        boxes.clear();
        index.query_row(row, view, boxes);
        json events = json::array(), merged = json::array();
        for (const auto& b : boxes) {
          if (b.event == model::kNone) {
            merged.push_back({b.start_ps - zero, b.duration_ps, b.count});
            continue;
          }
          const uint32_t n = p.events.name[b.event];
          const std::string key = std::to_string(n);
          if (!names.contains(key)) names[key] = std::string(p.strings.view(p.names[n].name));
          events.push_back({b.start_ps - zero, b.duration_ps, n, b.event});
        }
        rows.push_back({{"lane", row.lane}, {"depth", row.depth}, {"events", std::move(events)}, {"merged", std::move(merged)}});
      }
      const model::StringId line_name = line.display_name != model::kEmptyString ? line.display_name : line.name;
      sections.back()["tracks"].push_back(
          {{"line", track.line}, {"name", std::string(p.strings.view(line_name))}, {"rows", std::move(rows)}});
    }
    json out = {{"run", param(params, "run")}, {"host", param(params, "host")}, {"begin_ps", 0}, {"end_ps", span},
                {"start_ps", start}, {"end_ps_view", end}, {"width_px", width},
                {"names", std::move(names)}, {"sections", std::move(sections)}};
    return Reply{200, "application/json", out.dump(), ""};
  });
}

Reply TraceApi::event(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const int64_t e = int_param(params, "event", -1);
    if (e < 0 || uint64_t(e) >= loaded->profile.num_events()) throw QueryError(404, "no event " + param(params, "event"));
    const json d = analysis::trace_event_details(loaded->profile, loaded->steps(), loaded->flows, model::EventIndex(e),
                                                 loaded->index.begin_ps());
    return Reply{200, "application/json", d.dump(), ""};
  });
}

Reply TraceApi::search(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const int64_t limit = int_param(params, "limit", 1000);
    if (limit < 0 || limit > 100000) throw QueryError(400, "limit must be from 0 to 100000");
    const model::Profile& p = loaded->profile;
    const auto found = analysis::search_trace(p, param(params, "q"), size_t(limit));
    json events = json::array();
    for (auto e : found.events)
      events.push_back({{"event", e}, {"name", std::string(p.name(e))}, {"line", p.events.line[e]},
                        {"start_ps", p.start_ps(e) - loaded->index.begin_ps()}, {"duration_ps", p.duration_ps(e)}});
    return Reply{200, "application/json", json{{"total", found.total}, {"events", std::move(events)}}.dump(), ""};
  });
}

namespace {

// Viewports of large traces are megabytes of JSON: gzip them when the browser takes it.
void send_reply(const httplib::Request& req, httplib::Response& res, const Reply& reply) {
  res.status = reply.status;
  res.set_header("Cache-Control", "no-store");
  res.set_header("Vary", "Accept-Encoding");
  auto body = std::make_shared<std::string>(reply.body);
  if (accepts_gzip(req.get_header_value("Accept-Encoding"))) {
    std::string gz = gzip_compress(*body);
    if (!gz.empty()) {
      res.set_header("Content-Encoding", "gzip");
      *body = std::move(gz);
    }
  }
  // A content provider keeps httplib from compressing the body a second time.
  res.set_content_provider(body->size(), reply.content_type.c_str(),
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(body->data() + offset, length);
                             return true;
                           });
}

QueryParams params_of(const httplib::Request& req) {
  QueryParams params;
  for (const auto& [k, v] : req.params) params.emplace(k, v);
  return params;
}

}  // namespace

void add_trace_routes(httplib::Server& http, TraceApi& api) {
  http.Get("/api/trace", [&api](const httplib::Request& req, httplib::Response& res) {
    send_reply(req, res, api.viewport(params_of(req)));
  });
  http.Get("/api/trace/event", [&api](const httplib::Request& req, httplib::Response& res) {
    send_reply(req, res, api.event(params_of(req)));
  });
  http.Get("/api/trace/search", [&api](const httplib::Request& req, httplib::Response& res) {
    send_reply(req, res, api.search(params_of(req)));
  });
}

}  // namespace mlprof::server
