#include "analysis/gpu_timeline/counter_reducer.h"

namespace mlprof::analysis {

CounterReducer::CounterReducer(int64_t first_ps, int64_t last_ps, size_t max_points)
    : first_ps_(first_ps),
      span_ps_(double(last_ps - first_ps) + 1),
      max_points_(max_points),
      buckets_(max_points / 2) {}

int64_t CounterReducer::bucket_end(size_t b) const {
  return first_ps_ + int64_t(span_ps_ * double(b + 1) / double(buckets_));
}

void CounterReducer::keep(const Point& p) {
  if (reducing_) return reduce(p);
  out_.push_back(p);
  if (out_.size() <= max_points_ || max_points_ < 4) return;
  // Too many: reduce from the start.
  reducing_ = true;
  std::vector<Point> held;
  held.swap(out_);
  end_ps_ = bucket_end(0);
  for (const Point& h : held) reduce(h);
}

void CounterReducer::reduce(const Point& p) {
  if (p.first >= end_ps_ && bucket_ + 1 < buckets_) {
    close_bucket();
    while (p.first >= end_ps_ && bucket_ + 1 < buckets_) end_ps_ = bucket_end(++bucket_);
  }
  if (!bucket_open_) {
    peak_ = last_ = p;
    bucket_open_ = last_is_peak_ = true;
  } else if (p.second > peak_.second) {
    peak_ = last_ = p;
    last_is_peak_ = true;
  } else {
    last_ = p;
    last_is_peak_ = false;
  }
}

void CounterReducer::close_bucket() {
  if (!bucket_open_) return;
  out_.push_back(peak_);
  if (!last_is_peak_) out_.push_back(last_);
  bucket_open_ = false;
}

std::vector<CounterReducer::Point> CounterReducer::finish() {
  if (has_pending_) keep(pending_);
  has_pending_ = false;
  if (reducing_) close_bucket();
  return std::move(out_);
}

}  // namespace mlprof::analysis
