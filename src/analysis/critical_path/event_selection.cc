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
  index_blocks();
}

void EventSelection::index_blocks() {
  block_run_.clear();
  if (runs_.empty()) return;
  // Runs are ascending and do not overlap: the runs ending past a block's start begin at or
  // after those ending past an earlier block's.
  first_block_ = runs_.front().first >> kBlockBits;
  const size_t last_block = (size_t(runs_.back().first) + runs_.back().count - 1) >> kBlockBits;
  block_run_.resize(last_block - first_block_ + 1);
  uint32_t r = 0;
  for (size_t b = first_block_; b <= last_block; ++b) {
    const size_t start = b << kBlockBits;
    while (r < runs_.size() && size_t(runs_[r].first) + runs_[r].count <= start) ++r;
    block_run_[b - first_block_] = r;
  }
}

}  // namespace mlprof::analysis
