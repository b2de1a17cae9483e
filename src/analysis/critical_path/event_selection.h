// The events a dependency graph is built from (docs/ARCHITECTURE.md §5.9b): all of the profile's,
// or those of a window of steps (step_windows.h), so that the graph, and the arrays its
// building keeps per event, are the window's size and not the profile's. A selection is runs
// of consecutive events, each line's runs in order; its events are numbered from 0 in that
// order (an event's slot), which is the event's own index when the selection is the whole
// profile.
#pragma once

#include <cstdint>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr uint32_t kNoSlot = UINT32_MAX;

class EventSelection {
 public:
  // Every event of the profile.
  static EventSelection whole(const model::Profile& p);
  // Nothing yet: runs are added line by line.
  EventSelection() = default;  // nothing
  explicit EventSelection(const model::Profile& p);

  // Adds events [first, first + count) of `line`; lines and runs come in ascending order.
  void add(uint32_t line, model::EventIndex first, uint32_t count);
  // After the last add (before any look-up).
  void finish();

  bool is_whole() const { return whole_; }
  size_t size() const { return size_; }
  // The event's slot, or kNoSlot where it is not selected.
  uint32_t slot(model::EventIndex e) const {
    if (whole_) return e < size_ ? e : kNoSlot;
    return slot_of_run(e);
  }
  // Calls f(e) for the selected events of `line`, in order.
  template <typename F>
  void for_each_in_line(uint32_t line, F&& f) const {
    if (whole_) {
      const model::Line& l = (*lines_)[line];
      for (model::EventIndex e = l.first_event; e < l.first_event + l.num_events; ++e) f(e);
      return;
    }
    for (uint32_t r = line_first_run_[line]; r < line_first_run_[line + 1]; ++r)
      for (model::EventIndex e = runs_[r].first; e < runs_[r].first + runs_[r].count; ++e) f(e);
  }
  // The same with each event's slot, f(e, slot): its slot known without a look-up.
  template <typename F>
  void for_each_slot_in_line(uint32_t line, F&& f) const {
    if (whole_) {
      const model::Line& l = (*lines_)[line];
      for (model::EventIndex e = l.first_event; e < l.first_event + l.num_events; ++e) f(e, uint32_t(e));
      return;
    }
    for (uint32_t r = line_first_run_[line]; r < line_first_run_[line + 1]; ++r)
      for (uint32_t i = 0; i < runs_[r].count; ++i) f(runs_[r].first + i, runs_[r].slot + i);
  }
  // How many events of `line` are selected.
  size_t count_in_line(uint32_t line) const {
    if (whole_) return (*lines_)[line].num_events;
    size_t n = 0;
    for (uint32_t r = line_first_run_[line]; r < line_first_run_[line + 1]; ++r) n += runs_[r].count;
    return n;
  }
  // The first selected event of `line`, or kNone.
  model::EventIndex first_in_line(uint32_t line) const {
    if (whole_) {
      const model::Line& l = (*lines_)[line];
      return l.num_events > 0 ? l.first_event : model::kNone;
    }
    return line_first_run_[line] < line_first_run_[line + 1] ? runs_[line_first_run_[line]].first : model::kNone;
  }
  // Calls f(e, slot) for every selected event, in slot order (a line's parents before their children).
  template <typename F>
  void for_each(F&& f) const {
    for_each_with_run(
        [&](model::EventIndex e, uint32_t slot, model::EventIndex) { f(e, slot); });
  }
  // The same, f(e, slot, run_first), with the first event of the run of consecutive selected
  // events that holds e: an event from run_first to e has the slot slot - (e - event), found
  // without a look-up.
  template <typename F>
  void for_each_with_run(F&& f) const {
    if (whole_) {
      for (model::EventIndex e = 0; e < size_; ++e) f(e, uint32_t(e), model::EventIndex(0));
      return;
    }
    for (const Run& r : runs_)
      for (uint32_t i = 0; i < r.count; ++i) f(r.first + i, r.slot + i, r.first);
  }

 private:
  struct Run {
    model::EventIndex first = 0;
    uint32_t count = 0;
    uint32_t slot = 0;  // the slot of `first`
  };
  uint32_t slot_of_run(model::EventIndex e) const {
    const size_t b = size_t(e) >> kBlockBits;
    if (b < first_block_ || b - first_block_ >= block_run_.size()) return kNoSlot;
    for (uint32_t r = block_run_[b - first_block_]; r < runs_.size() && runs_[r].first <= e; ++r)
      if (e - runs_[r].first < runs_[r].count) return runs_[r].slot + (e - runs_[r].first);
    return kNoSlot;
  }
  // Events by blocks of 2^kBlockBits indices: block b's first run that ends past the block's
  // start, from which a look-up scans (a window's runs are few a block), rather than a binary
  // search over all its runs for each of the graph's millions of look-ups.
  static constexpr unsigned kBlockBits = 10;
  void index_blocks();

  const std::vector<model::Line>* lines_ = nullptr;
  bool whole_ = false;
  size_t size_ = 0;
  std::vector<Run> runs_;                  // ascending
  std::vector<uint32_t> line_first_run_;  // line l's runs: [line_first_run_[l], line_first_run_[l + 1])
  uint32_t next_line_ = 0;                 // the first line whose runs have not begun
  std::vector<uint32_t> block_run_;        // per block from the first run's: index_blocks
  size_t first_block_ = 0;
};

}  // namespace mlprof::analysis
