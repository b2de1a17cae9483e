#include "analysis/profiler_control.h"

#include <algorithm>
#include <array>

#include "analysis/python_frames.h"

namespace mlprof::analysis {
namespace {

struct ControlCall {
  std::string_view file;      // the frame's file, its last path component
  std::string_view function;
  ProfilerControl kind;
};

// torch.profiler's __enter__/__exit__ call start/stop, and step() calls them between its
// schedule's phases: start and stop cover them all. TensorFlow's profiler_v2.py and JAX's
// profiler.py are both "profiler*.py".
constexpr ProfilerControl kStart = ProfilerControl::kStart, kStop = ProfilerControl::kStop;
constexpr std::array<ControlCall, 7> kControlCalls{{
    {"profiler.py", "start_trace", kStart},  // JAX; torch.profiler's inner call
    {"profiler.py", "stop_trace", kStop},
    {"profiler.py", "_start_trace", kStart},  // torch.autograd.profiler
    {"profiler.py", "start", kStart},         // torch.profiler.profile
    {"profiler.py", "stop", kStop},
    {"profiler_v2.py", "start", kStart},      // tf.profiler.experimental
    {"profiler_v2.py", "stop", kStop},
}};

struct ControlBuiltin {
  std::string_view prefix;
  ProfilerControl kind;
};
constexpr std::array<ControlBuiltin, 3> kControlBuiltins{{{"<built-in method _enable_profiler ", kStart},
                                                          {"<built-in method _prepare_profiler ", kStart},
                                                          {"<built-in method _disable_profiler ", kStop}}};

}  // namespace

ProfilerControl profiler_control_of_name(std::string_view name) {
  for (const ControlBuiltin& b : kControlBuiltins)
    if (name.starts_with(b.prefix)) return b.kind;
  if (!name.starts_with('$') && name.find(".py(") == std::string_view::npos) return ProfilerControl::kNone;
  const PythonFrame frame = parse_python_frame(name);
  for (const ControlCall& c : kControlCalls)
    if (file_name_of(frame.file) == c.file && frame.function == c.function) return c.kind;
  return ProfilerControl::kNone;
}

ProfilerControlCalls find_profiler_control_calls(const model::Profile& p) {
  ProfilerControlCalls out;
  std::vector<ProfilerControl> of_name(p.names.size(), ProfilerControl::kNone);
  bool any = false;
  for (size_t i = 0; i < p.names.size(); ++i)
    any |= (of_name[i] = profiler_control_of_name(p.strings.view(p.names[i].name))) != ProfilerControl::kNone;
  if (!any) return out;
  // Parents come before their children: one pass.
  out.inside.assign(p.num_events(), 0);
  int64_t first_stop = INT64_MAX;
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    const model::EventIndex parent = p.events.parent[e];
    const bool nested = parent != model::kNone && out.inside[parent];
    const ProfilerControl kind = of_name[p.events.name[e]];
    out.inside[e] = nested || kind != ProfilerControl::kNone;
    if (nested || kind == ProfilerControl::kNone) continue;
    out.control_ps += p.end_ps(e) - p.start_ps(e);
    if (kind == ProfilerControl::kStop) first_stop = std::min(first_stop, p.start_ps(e));
  }
  out.program_end_ps = first_stop;
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    const model::EventIndex parent = p.events.parent[e];
    if (of_name[p.events.name[e]] == ProfilerControl::kStart && (parent == model::kNone || !out.inside[parent]) &&
        p.end_ps(e) <= first_stop)
      out.program_begin_ps = std::max(out.program_begin_ps, p.end_ps(e));
  }
  return out;
}

}  // namespace mlprof::analysis
