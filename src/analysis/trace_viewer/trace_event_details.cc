#include "analysis/trace_viewer/trace_event_details.h"

#include "analysis/hlo_ops.h"

namespace mlprof::analysis {
namespace {

using json = nlohmann::ordered_json;
using model::EventIndex;
using model::Profile;

json stat_value(const Profile& p, const model::StatValue& v) {
  switch (v.type) {
    case model::StatType::kInt64: return v.i64;
    case model::StatType::kUint64: return v.u64;
    case model::StatType::kDouble: return v.f64;
    case model::StatType::kString: return std::string(p.strings.view(v.str));
  }
  return nullptr;
}

void add_stats(const Profile& p, const model::StatTable& table, model::StatRange range, json& out) {
  for (uint32_t s = range.first; s < range.first + range.count; ++s)
    out.push_back({{"name", std::string(p.strings.view(table.key(s)))}, {"value", stat_value(p, table.value(s))}});
}

std::string line_name(const Profile& p, const model::Line& line) {
  return std::string(p.strings.view(line.display_name != model::kEmptyString ? line.display_name : line.name));
}

// An XLA op goes by its HLO op name, its instruction's whole text beside it (hlo_ops.h).
json event_ref(const Profile& p, EventIndex e, int64_t begin) {
  const std::string_view title = timeline_title(p, p.line_of(e), e);
  json ref = {{"event", e},
              {"name", std::string(title)},
              {"plane", std::string(p.strings.view(p.plane_of(e).name))},
              {"line", line_name(p, p.line_of(e))},
              {"line_index", p.line_index(e)},
              {"start_ps", p.start_ps(e) - begin},
              {"duration_ps", p.duration_ps(e)}};
  if (title.size() != p.name(e).size()) ref["long_name"] = std::string(p.name(e));
  return ref;
}

const char* flow_kind(TraceFlowKind k) { return k == TraceFlowKind::kLaunch ? "launch" : "producer_consumer"; }

}  // namespace

json trace_event_details(const Profile& p, const StepGrouping& steps, const TraceFlows& flows, EventIndex e,
                         int64_t begin) {
  json out = event_ref(p, e, begin);
  const model::EventName& name = p.names[p.events.name[e]];
  if (name.display_name != model::kEmptyString) out["display_name"] = std::string(p.strings.view(name.display_name));
  out["host"] = std::string(p.strings.view(p.hosts[p.plane_of(e).host].name));
  out["start_ms"] = double(p.start_ps(e) - begin) / 1e9;
  out["duration_ms"] = double(p.duration_ps(e)) / 1e9;
  if (p.events.parent[e] != model::kNone) out["parent"] = event_ref(p, p.events.parent[e], begin);
  json stats = json::array();
  add_stats(p, p.event_stats, p.event_stat_range(e), stats);
  add_stats(p, p.metadata_stats, name.stats, stats);
  out["stats"] = std::move(stats);
  json step = nullptr;
  if (e < steps.group_of.size() && steps.group_of[e] != kNoGroup) {
    const Step& s = steps.steps[size_t(steps.group_of[e])];
    step = {{"group_id", s.group}, {"step_num", s.step_num}, {"begin_ps", s.begin_ps - begin},
            {"duration_ms", double(s.duration_ps()) / 1e9}};
  }
  out["step"] = std::move(step);
  json links = json::array();
  for (const TraceFlow& f : flows.starting_at(e)) {
    json l = event_ref(p, f.to, begin);
    l["direction"] = "out";
    l["kind"] = flow_kind(f.kind);
    links.push_back(std::move(l));
  }
  for (uint32_t i : flows.ending_at(e)) {
    const TraceFlow& f = flows.flows[i];
    json l = event_ref(p, f.from, begin);
    l["direction"] = "in";
    l["kind"] = flow_kind(f.kind);
    links.push_back(std::move(l));
  }
  out["flows"] = std::move(links);
  return out;
}

}  // namespace mlprof::analysis
