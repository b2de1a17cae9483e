// Windows of steps (docs/ARCHITECTURE.md §5.9b): the critical path builds its dependency graph a
// window of consecutive steps at a time, so that memory holds a window's graph, not the
// profile's. A window holds about a fixed number of events and at least one step; the steps
// of all hosts are cut at the same times (collectives link the ranks' steps that overlap). Its
// graph holds the events from the step before its first on each host (the context: a step's
// path may reach into the previous one) to its last step's end, and the device work of its
// steps; only its own steps are reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/event_selection.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

// About this many events a window (two are read at once, one a core): small beside a large
// profile, so that their graphs weigh little beside its model, yet several steps, so that the
// context a window builds twice is a small part of it.
inline constexpr size_t kWindowEvents = 64 * 1024;

struct StepWindow {
  bool whole = false;             // the only window: the whole profile, every span its own
  std::vector<uint32_t> own;      // indices into the spans, ascending
  std::vector<uint32_t> context;  // the span before the first own one of each host, if any; ascending
  int64_t begin_ps = 0, end_ps = 0;  // host events starting in [begin, end), and those open at begin
  int64_t device_end_ps = 0;         // device events starting in [begin, device_end)
  // Its own time, where the links its graph finds are counted: from its first step's begin to
  // the next window's (the windows' graphs overlap by their context).
  int64_t counted_begin_ps = INT64_MIN, counted_end_ps = INT64_MAX;
};

// The spans (each host's in time order) cut into windows of about `events_per_window` events;
// one whole window when the profile holds no more, or the steps cannot be cut.
std::vector<StepWindow> step_windows(const model::Profile& p, const StepAnalysis& steps,
                                     const std::vector<StepSpan>& spans, size_t events_per_window = kWindowEvents);

// The events the window's graph is built from.
EventSelection window_events(const model::Profile& p, const StepWindow& w);

// The window's spans as its graph takes them: the context first, then its own.
std::vector<StepSpan> window_spans(const std::vector<StepSpan>& spans, const StepWindow& w);

}  // namespace mlprof::analysis
