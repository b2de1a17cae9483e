#include "analysis/launch_ops.h"

#include "analysis/event_kinds.h"

namespace mlprof::analysis {
namespace {

// A CUDA call on the host (runtime "cudaX", driver "cuX", HIP): not an op.
bool is_api_call(std::string_view name) {
  if (is_runtime_api_name(name) || is_launch_name(name)) return true;
  return name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z';
}

}  // namespace

model::EventIndex LaunchOps::op_of(model::EventIndex work) {
  auto c = p_.stat(work, model::kCorrelationId);
  if (!c) return model::kNone;
  build();
  auto it = ops_.find(key(p_.plane_of(work).host, c->as_uint()));
  return it == ops_.end() ? model::kNone : it->second;
}

void LaunchOps::build() {
  if (built_) return;
  built_ = true;
  for (const model::Line& line : p_.lines) {
    const model::Plane& plane = p_.planes[line.plane];
    if (plane.kind != model::PlaneKind::kHostThreads) continue;
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (p_.events.first_stat[e] == p_.events.first_stat[e + 1]) continue;
      auto c = p_.stat(e, model::kCorrelationId);
      if (!c) continue;
      model::EventIndex op = p_.events.parent[e];
      while (op != model::kNone && is_api_call(p_.name(op))) op = p_.events.parent[op];
      if (op != model::kNone) ops_.emplace(key(plane.host, c->as_uint()), op);
    }
  }
}

}  // namespace mlprof::analysis
