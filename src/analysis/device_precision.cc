#include "analysis/device_precision.h"

#include <algorithm>

#include "analysis/device_work_names.h"
#include "format/xspace_schema.h"

namespace mlprof::analysis {

WorkPrecision::WorkPrecision(const model::Profile& p) : WorkPrecision(p, nullptr) {}

WorkPrecision::WorkPrecision(const model::Profile& p, std::shared_ptr<const DeviceWorkNames> names)
    : p_(p),
      launch_ops_(p),
      input_type_(p.strings.find("Input type")),
      long_name_(p.strings.find(format::xspace::kStatLongName)),
      names_(DeviceWorkNames::or_own(std::move(names), p)) {}

Precision WorkPrecision::of(model::EventIndex e, model::EventIndex launch_op) {
  if (input_type_ != model::kNoString)
    for (model::EventIndex op = launch_op; op != model::kNone; op = p_.events.parent[op])
      if (auto t = p_.stat(op, input_type_); t && t->type == model::StatType::kString) {
        const Precision from_types = precision_of_types(p_.strings.view(t->str));
        if (from_types != Precision::kUnknown) return from_types;
      }
  if (long_name_ != model::kNoString)
    if (auto hlo = p_.stat(e, long_name_); hlo && hlo->type == model::StatType::kString) {
      // The result's shape: between " = " and the opcode.
      std::string_view text = p_.strings.view(hlo->str);
      if (const size_t eq = text.find(" = "); eq != std::string_view::npos) text = text.substr(eq + 3, 64);
      const Precision from_shape = precision_of_types(text);
      if (from_shape != Precision::kUnknown) return from_shape;
    }
  return names_->precision(p_, p_.events.name[e]);
}

std::array<int64_t, kNumPrecisions> device_compute_precision_ps(const model::Profile& p, const StepAnalysis& sa) {
  std::array<int64_t, kNumPrecisions> out{};
  // Each host's windows by start; the pseudo step covers every host.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> windows(p.hosts.size());
  for (const StepBreakdown& s : sa.steps)
    for (size_t h = 0; h < p.hosts.size(); ++h)
      if (sa.whole_profile || s.host == h) windows[h].push_back({s.begin_ps, s.begin_ps + s.duration_ps});
  for (auto& w : windows) std::sort(w.begin(), w.end());
  DeviceWorkClassifier work(p, sa.grouping.device_work_names);
  WorkPrecision precision(p, sa.grouping.device_work_names);
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    if (l >= sa.grouping.device_work_line.size() || !sa.grouping.device_work_line[l]) continue;
    const model::Line& line = p.lines[l];
    const auto& win = windows[p.planes[line.plane].host];
    if (win.empty()) continue;
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (p.events.parent[e] != model::kNone || work.of(e) != DeviceWork::kCompute) continue;
      const int64_t begin = p.start_ps(e), end = p.end_ps(e);
      auto it = std::upper_bound(win.begin(), win.end(), std::pair{begin, INT64_MAX});
      if (it != win.begin()) --it;
      int64_t inside = 0;
      for (; it != win.end() && it->first < end; ++it) inside += std::max<int64_t>(0, std::min(end, it->second) - std::max(begin, it->first));
      if (inside > 0) out[size_t(precision.of(e))] += inside;
    }
  }
  return out;
}

}  // namespace mlprof::analysis
