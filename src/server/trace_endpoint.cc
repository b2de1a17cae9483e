#include "server/trace_endpoint.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "analysis/analyzed_profile.h"
#include "analysis/hlo_ops.h"
#include "analysis/trace_viewer/trace_event_details.h"
#include "analysis/trace_viewer/trace_counters.h"
#include "analysis/trace_viewer/trace_range_summary.h"
#include "analysis/trace_viewer/trace_search.h"
#include "server/http_reply.h"

namespace mlprof::server {
namespace {

using json = nlohmann::ordered_json;

// A section's title: the plane's name, after its host's when the profile has several.
std::string section_name(const model::Profile& p, const model::Plane& plane) {
  std::string name(p.strings.view(plane.name));
  if (p.hosts.size() > 1) name = std::string(p.strings.view(p.hosts[plane.host].name)) + " " + name;
  return name;
}

const char* section_kind(model::PlaneKind k) {
  return k == model::PlaneKind::kDevice ? "device" : k == model::PlaneKind::kHostThreads ? "host" : "other";
}

// The flows with an end among the listed events, each once, by (from, to): with both ends'
// lines and starts, since the other end may lie outside the view or merged into a box.
json viewport_flows(const model::Profile& p, const analysis::TraceFlows& all, const std::vector<model::EventIndex>& listed,
                    int64_t zero, bool& truncated) {
  json out = json::array();
  if (all.flows.empty()) return out;
  std::vector<uint32_t> ids;
  for (const model::EventIndex e : listed) {
    for (const analysis::TraceFlow& f : all.starting_at(e)) ids.push_back(uint32_t(&f - all.flows.data()));
    for (const uint32_t id : all.ending_at(e)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  truncated = ids.size() > kMaxViewportFlows;
  if (truncated) ids.resize(kMaxViewportFlows);
  for (const uint32_t id : ids) {
    const analysis::TraceFlow& f = all.flows[id];
    out.push_back({f.from, f.to, f.kind == analysis::TraceFlowKind::kLaunch ? "launch" : "producer_consumer",
                   p.line_index(f.from), p.start_ps(f.from) - zero, p.line_index(f.to), p.start_ps(f.to) - zero});
  }
  return out;
}

// Parameter `lines`: line numbers and ranges of them ("3,7-12"), each under `num_lines`; an
// absent parameter is none. 400 when it names anything else.
std::vector<uint32_t> line_list(const QueryParams& params, size_t num_lines) {
  std::vector<uint32_t> lines;
  const std::string list = param(params, "lines");
  const auto bad = [] { return QueryError(400, "parameter 'lines' must list line numbers of this trace (or ranges a-b), comma-separated"); };
  const auto number = [&](size_t from, size_t to) {
    uint32_t l = 0;
    const auto [ptr, ec] = std::from_chars(list.data() + from, list.data() + to, l);
    if (ec != std::errc() || ptr != list.data() + to || l >= num_lines) throw bad();
    return l;
  };
  for (size_t at = 0; at < list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const size_t dash = list.find('-', at);
    if (dash < comma) {
      const uint32_t first = number(at, dash), last = number(dash + 1, comma);
      if (last < first) throw bad();
      for (uint32_t l = first; l <= last; ++l) lines.push_back(l);
    } else {
      lines.push_back(number(at, comma));
    }
    at = comma + 1;
  }
  if (!list.empty() && list.back() == ',') throw bad();
  return lines;
}

// From the first device event's start to the last one's end; none without device events.
std::optional<std::pair<int64_t, int64_t>> device_span(const model::Profile& p) {
  std::optional<std::pair<int64_t, int64_t>> span;
  for (const model::Line& line : p.lines) {
    if (p.planes[line.plane].kind != model::PlaneKind::kDevice) continue;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const int64_t begin = p.start_ps(e), end = begin + p.duration_ps(e);
      if (!span) span.emplace(begin, end);
      span->first = std::min(span->first, begin);
      span->second = std::max(span->second, end);
    }
  }
  return span;
}

}  // namespace

TraceApi::TraceApi(RunCatalog catalog, ToolBackend& backend) : catalog_(std::move(catalog)), backend_(backend) {}
TraceApi::~TraceApi() = default;

std::shared_ptr<const AnalyzedProfile> TraceApi::load(const QueryParams& params) {
  const std::string run_name = param(params, "run"), host = param(params, "host");
  if (run_name.empty()) throw QueryError(400, "missing parameter 'run'");
  const auto run = catalog_.find_run(run_name);
  if (!run) throw QueryError(404, "no run named '" + run_name + "'");
  if (!has_host(*run, host)) throw QueryError(404, "run '" + run_name + "' has no host named '" + host + "'");
  return backend_.profile(*run, host);
}

Reply TraceApi::viewport(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const model::Profile& p = loaded->profile();
    const analysis::TraceIndex& index = loaded->trace().index;
    const int64_t zero = index.begin_ps(), span = index.end_ps() - index.begin_ps();
    const int64_t start = int_param(params, "start_ps", 0), end = int_param(params, "end_ps", std::max<int64_t>(span, 1));
    const int64_t width = int_param(params, "width_px", 1000);
    if (end <= start) throw QueryError(400, "end_ps must be after start_ps");
    if (width < 1 || width > 20000) throw QueryError(400, "width_px must be from 1 to 20000");
    const analysis::TraceViewport view{zero + start, zero + end, uint32_t(width)};
    // With `lines`, events only on those tracks (the ones in sight); every track is still
    // listed with its rows, so the page's layout stays the same.
    std::vector<bool> wanted;
    if (!param(params, "lines").empty()) {
      wanted.assign(p.lines.size(), false);
      for (const uint32_t l : line_list(params, p.lines.size())) wanted[l] = true;
    }

    json sections = json::array();
    json names = json::object();
    json long_names = json::object();  // by name id, where the name shown is an HLO op's
    uint32_t section_plane = model::kNone;
    std::vector<analysis::TraceBox> boxes;
    std::vector<model::EventIndex> listed;
    std::vector<bool> plane_shown(p.planes.size(), false);
    for (const auto& track : index.tracks()) {
      const model::Line& line = p.lines[track.line];
      if (line.plane != section_plane) {
        section_plane = line.plane;
        const model::Plane& plane = p.planes[line.plane];
        sections.push_back({{"name", section_name(p, plane)}, {"kind", section_kind(plane.kind)}, {"tracks", json::array()}});
        plane_shown[line.plane] = true;
      }
      const bool left_out = !wanted.empty() && !wanted[track.line];
      json rows = json::array();
      for (const auto& row : track.rows) {
        boxes.clear();
        if (!left_out) index.query_row(row, view, boxes);
        json events = json::array(), merged = json::array();
        for (const auto& b : boxes) {
          if (b.event == model::kNone) {
            merged.push_back({b.start_ps - zero, b.duration_ps, b.count});
            continue;
          }
          const uint32_t n = p.events.name[b.event];
          const std::string key = std::to_string(n);
          // An XLA op's HLO op name, not its whole text (hlo_ops.h).
          if (!names.contains(key)) {
            const std::string_view title = analysis::timeline_title(p, line, b.event);
            names[key] = std::string(title);
            // The HLO instruction's whole text, for the hover.
            if (title.size() != p.name(b.event).size()) long_names[key] = std::string(p.name(b.event));
          }
          events.push_back({b.start_ps - zero, b.duration_ps, n, b.event});
          listed.push_back(b.event);
        }
        rows.push_back({{"lane", row.lane}, {"depth", row.depth}, {"events", std::move(events)}, {"merged", std::move(merged)}});
      }
      const model::StringId line_name = line.display_name != model::kEmptyString ? line.display_name : line.name;
      json& listed_track = sections.back()["tracks"].emplace_back(
          json{{"line", track.line}, {"name", std::string(p.strings.view(line_name))}, {"rows", std::move(rows)}});
      if (left_out) listed_track["left_out"] = true;
    }
    const bool with_steps = param(params, "steps") == "1";
    // Every device the profile names is listed: one with no events says so.
    for (uint32_t i = 0; i < p.planes.size(); ++i)
      if (!plane_shown[i] && p.planes[i].kind == model::PlaneKind::kDevice)
        sections.push_back({{"name", section_name(p, p.planes[i])}, {"kind", "device"}, {"tracks", json::array()},
                            {"empty", "no events were recorded on this device during the capture"}});
    bool flows_truncated = false;
    json flows = viewport_flows(p, loaded->trace().flows, listed, zero, flows_truncated);
    json out = {{"run", param(params, "run")}, {"host", param(params, "host")}, {"begin_ps", 0}, {"end_ps", span},
                {"start_ps", start}, {"end_ps_view", end}, {"width_px", width},
                {"names", std::move(names)}, {"long_names", std::move(long_names)}, {"sections", std::move(sections)},
                {"flows", std::move(flows)}, {"flows_truncated", flows_truncated}};
    if (with_steps) {
      json steps = json::array();
      const auto& grouping = loaded->steps().grouping;
      for (const uint32_t g : grouping.selected) {
        const auto& s = grouping.steps[g];
        steps.push_back({s.begin_ps - zero, s.duration_ps(), s.step_num});
      }
      out["steps"] = std::move(steps);
      // Where the devices worked: a profile without steps opens there, not on its whole span.
      if (const auto span = device_span(p)) out["device_span"] = {span->first - zero, span->second - zero};
    }
    return json_reply(json_text(out));
  });
}

Reply TraceApi::event(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const model::Profile& p = loaded->profile();
    const int64_t e = int_param(params, "event", -1);
    if (e < 0 || uint64_t(e) >= p.num_events()) throw QueryError(404, "no event " + param(params, "event"));
    const analysis::TraceTimeline& trace = loaded->trace();
    const json d = analysis::trace_event_details(p, loaded->steps().grouping, trace.flows, model::EventIndex(e),
                                                 trace.index.begin_ps());
    return json_reply(json_text(d));
  });
}

// `scope`: device, host or all (default) tracks; `sort`: start (default) or duration (the
// longest first). Each hit says its host and track, for the viewer's table of matches.
Reply TraceApi::search(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const int64_t limit = int_param(params, "limit", 1000);
    if (limit < 0 || limit > 100000) throw QueryError(400, "limit must be from 0 to 100000");
    const std::string scope_text = param(params, "scope"), sort_text = param(params, "sort");
    if (scope_text != "" && scope_text != "all" && scope_text != "device" && scope_text != "host")
      throw QueryError(400, "scope must be all, device or host");
    if (sort_text != "" && sort_text != "start" && sort_text != "duration")
      throw QueryError(400, "sort must be start or duration");
    const auto scope = scope_text == "device" ? analysis::TraceSearchScope::kDevice
                       : scope_text == "host" ? analysis::TraceSearchScope::kHost
                                              : analysis::TraceSearchScope::kAll;
    const auto order = sort_text == "duration" ? analysis::TraceSearchOrder::kLongest : analysis::TraceSearchOrder::kStart;
    const model::Profile& p = loaded->profile();
    const int64_t zero = loaded->trace().index.begin_ps();
    const auto found = analysis::search_trace(p, param(params, "q"), size_t(limit), scope, order);
    json events = json::array();
    for (auto e : found.events) {
      const uint32_t l = p.line_index(e);
      const model::Line& line = p.lines[l];
      const model::Plane& plane = p.planes[line.plane];
      const model::StringId track = line.display_name != model::kEmptyString ? line.display_name : line.name;
      events.push_back({{"event", e}, {"name", std::string(p.name(e))}, {"line", l},
                        {"start_ps", p.start_ps(e) - zero}, {"duration_ps", p.duration_ps(e)},
                        {"host", std::string(p.strings.view(p.hosts[plane.host].name))},
                        {"section", std::string(p.strings.view(plane.name))}, {"track", std::string(p.strings.view(track))}});
    }
    return json_reply(json_text(json{{"total", found.total}, {"events", std::move(events)}}));
  });
}

// One event by its whole name (a tool row's link into the trace): the one nearest `at_ms`, in
// the tools' clock (milliseconds of the profile's time), or the longest.
Reply TraceApi::find(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const model::Profile& p = loaded->profile();
    const std::string name = param(params, "name");
    if (name.empty()) throw QueryError(400, "missing parameter 'name'");
    std::optional<int64_t> near_ps;
    if (const std::string at = param(params, "at_ms"); !at.empty()) {
      double ms = 0;
      const auto [ptr, ec] = std::from_chars(at.data(), at.data() + at.size(), ms);
      if (ec != std::errc() || ptr != at.data() + at.size()) throw QueryError(400, "at_ms must be a number");
      near_ps = int64_t(std::llround(ms * 1e9));
    }
    const auto found = analysis::find_trace_event(p, name, near_ps);
    if (found.event == model::kNone) throw QueryError(404, "no event named '" + name + "' in this trace");
    const int64_t zero = loaded->trace().index.begin_ps();
    const model::EventIndex e = found.event;
    return json_reply(json_text(json{{"event", e}, {"name", name}, {"line", p.line_index(e)},
                                     {"start_ps", p.start_ps(e) - zero}, {"duration_ps", p.duration_ps(e)},
                                     {"occurrences", found.occurrences}}));
  });
}

Reply TraceApi::summary(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const model::Profile& p = loaded->profile();
    const int64_t zero = loaded->trace().index.begin_ps();
    const int64_t start = int_param(params, "start_ps", 0), end = int_param(params, "end_ps", -1);
    if (end <= start) throw QueryError(400, "end_ps must be after start_ps");
    const int64_t limit = int_param(params, "limit", 100);
    if (limit < 1 || limit > 10000) throw QueryError(400, "limit must be from 1 to 10000");
    const std::vector<uint32_t> lines = line_list(params, p.lines.size());
    const auto s = analysis::summarize_trace_range(p, zero + start, zero + end, lines, size_t(limit));
    json names = json::array();
    for (const auto& n : s.names) {
      const model::Line& line = p.lines[n.line];
      const model::Plane& plane = p.planes[line.plane];
      const model::StringId track = line.display_name != model::kEmptyString ? line.display_name : line.name;
      names.push_back({{"name", n.name}, {"line", n.line}, {"host", std::string(p.strings.view(p.hosts[plane.host].name))},
                       {"section", std::string(p.strings.view(plane.name))}, {"track", std::string(p.strings.view(track))},
                       {"count", n.count}, {"self_ps", n.self_ps}, {"total_ps", n.total_ps}});
    }
    const json out = {{"start_ps", start}, {"end_ps", end}, {"events", s.events}, {"distinct_names", s.distinct_names},
                      {"tracks", s.tracks}, {"busy_ps", s.busy_ps}, {"names", std::move(names)}};
    return json_reply(json_text(out));
  });
}

Reply TraceApi::counters(const QueryParams& params) {
  return guarded([&] {
    const auto loaded = load(params);
    const model::Profile& p = loaded->profile();
    const int64_t zero = loaded->trace().index.begin_ps();
    json counters = json::array();
    for (const auto& t : loaded->trace_counters()) {
      json points = json::array();
      for (const auto& [time, value] : t.points) points.push_back({time - zero, value});
      counters.push_back({{"name", t.name},
                          {"section", t.plane < p.planes.size() ? section_name(p, p.planes[t.plane]) : ""},
                          {"unit", t.unit}, {"points", std::move(points)}});
    }
    return json_reply(json_text(json{{"counters", std::move(counters)}}));
  });
}

void add_trace_routes(httplib::Server& http, TraceApi& api) {
  http.Get("/api/trace", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.viewport(query_params(req)));
  });
  http.Get("/api/trace/event", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.event(query_params(req)));
  });
  http.Get("/api/trace/search", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.search(query_params(req)));
  });
  http.Get("/api/trace/find", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.find(query_params(req)));
  });
  http.Get("/api/trace/summary", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.summary(query_params(req)));
  });
  http.Get("/api/trace/counters", [&api](const httplib::Request& req, httplib::Response& res) {
    send(req, res, api.counters(query_params(req)));
  });
}

}  // namespace mlprof::server
