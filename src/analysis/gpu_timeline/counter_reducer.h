// A counter's points reduced as they come, for drawing: at most about `max_points` points.
// While there are no more than that, every point is kept; past it, the time from the first
// point to the last is cut into max_points / 2 buckets, and each bucket keeps its highest
// value (a peak must stay visible) and the value it ends with. The points are never all held,
// so a series of millions of changes costs no memory of its size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mlprof::analysis {

class CounterReducer {
 public:
  using Point = std::pair<int64_t, int64_t>;  // (time ps, value from then on)

  // `first_ps` and `last_ps`: the times of the first and the last point to come.
  CounterReducer(int64_t first_ps, int64_t last_ps, size_t max_points);

  // Times never go back; a point at the time of the one before replaces it.
  void add(int64_t time_ps, int64_t value) {
    if (has_pending_ && pending_.first == time_ps) {
      pending_.second = value;
      return;
    }
    if (has_pending_) keep(pending_);
    pending_ = {time_ps, value};
    has_pending_ = true;
  }

  std::vector<Point> finish();

 private:
  void keep(const Point& p);
  void reduce(const Point& p);
  void close_bucket();
  int64_t bucket_end(size_t b) const;

  int64_t first_ps_;
  double span_ps_;
  size_t max_points_, buckets_;
  bool has_pending_ = false, reducing_ = false;
  Point pending_{};
  std::vector<Point> out_;  // every point until there are too many; then the buckets' points
  // The open bucket, once reducing.
  size_t bucket_ = 0;
  int64_t end_ps_ = 0;
  bool bucket_open_ = false, last_is_peak_ = false;
  Point peak_{}, last_{};
};

}  // namespace mlprof::analysis
