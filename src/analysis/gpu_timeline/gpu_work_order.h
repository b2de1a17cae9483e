// A host's GPU work in start order, and unions of intervals met in start order, so that the
// timeline analyses measure busy time in one pass without sorting: each stream's work is by
// start already (gpu_activity.h), and a merge of the streams keeps that order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {

// Calls visit(work) for the work of streams [first_stream, last_stream) by start.
template <typename Visit>
void visit_by_start(const HostGpuActivity& host, uint32_t first_stream, uint32_t last_stream, Visit&& visit) {
  if (last_stream == first_stream + 1) {  // one stream: already in order
    for (uint32_t i = host.stream_first[first_stream]; i < host.stream_first[last_stream]; ++i) visit(host.work[i]);
    return;
  }
  struct Cursor {
    int64_t begin;
    uint32_t next, end;
  };
  auto later = [](const Cursor& a, const Cursor& b) { return a.begin > b.begin; };
  std::vector<Cursor> heap;
  for (uint32_t s = first_stream; s < last_stream; ++s)
    if (host.stream_first[s] < host.stream_first[s + 1])
      heap.push_back({host.begin_ps(host.work[host.stream_first[s]]), host.stream_first[s], host.stream_first[s + 1]});
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Cursor& c = heap.back();
    visit(host.work[c.next]);
    if (++c.next < c.end) {
      c.begin = host.begin_ps(host.work[c.next]);
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      heap.pop_back();
    }
  }
}

template <typename Visit>
void visit_by_start(const HostGpuActivity& host, Visit&& visit) {
  visit_by_start(host, 0, uint32_t(host.streams.size()), std::forward<Visit>(visit));
}

// The union of intervals added by start: its length, and its disjoint intervals when kept.
class SortedUnion {
 public:
  explicit SortedUnion(bool keep_intervals = false) : keep_(keep_intervals) {}
  void add(int64_t begin, int64_t end) {
    if (begin > end_ || !open_) {
      close();
      begin_ = begin, end_ = end, open_ = true;
    } else if (end > end_) {
      end_ = end;
    }
  }
  int64_t length() {
    close();
    return length_;
  }
  const std::vector<std::pair<int64_t, int64_t>>& intervals() {
    close();
    return intervals_;
  }

 private:
  void close() {
    if (!open_) return;
    if (end_ > begin_) {
      length_ += end_ - begin_;
      if (keep_) intervals_.push_back({begin_, end_});
    }
    open_ = false;
  }
  bool keep_;
  bool open_ = false;
  int64_t begin_ = 0, end_ = 0, length_ = 0;
  std::vector<std::pair<int64_t, int64_t>> intervals_;
};

}  // namespace mlprof::analysis
