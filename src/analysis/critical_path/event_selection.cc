#include "analysis/critical_path/event_selection.h"

#include <algorithm>

namespace mlprof::analysis {

EventSelection EventSelection::whole(const model::Profile& p) {
  EventSelection s(p);
  s.whole_ = true;
  s.size_ = p.num_events();
  return s;
}

EventSelection::EventSelection(const model::Profile& p)
    : lines_(&p.lines), line_first_run_(p.lines.size() + 1, 0) {}

void EventSelection::add(uint32_t line, model::EventIndex first, uint32_t count) {
  if (count == 0) return;
  const bool same_line = next_line_ == line + 1;
  for (; next_line_ <= line; ++next_line_) line_first_run_[next_line_] = uint32_t(runs_.size());
  if (same_line && runs_.back().first + runs_.back().count == first)
    runs_.back().count += count;  // adjoining on one line: one run
  else
    runs_.push_back({first, count, uint32_t(size_)});
  size_ += count;
}

void EventSelection::finish() {
  for (; next_line_ < line_first_run_.size(); ++next_line_) line_first_run_[next_line_] = uint32_t(runs_.size());
}

uint32_t EventSelection::slot_of_run(model::EventIndex e) const {
  auto it = std::upper_bound(runs_.begin(), runs_.end(), e,
                             [](model::EventIndex v, const Run& r) { return v < r.first; });
  if (it == runs_.begin()) return kNoSlot;
  --it;
  return e - it->first < it->count ? it->slot + (e - it->first) : kNoSlot;
}

}  // namespace mlprof::analysis
