#include "analysis/memory_profile_timeline.h"

#include <algorithm>
#include <numeric>

namespace mlprof::analysis {
namespace {

// Calls visit(index, +1) for each run of equal values higher than the runs beside it and
// visit(index, -1) for each lower one, ascending, at the run's first index; a series' ends
// count when they are higher (lower) than their one neighbour; a flat line has one maximum,
// its start. Walks the series once and keeps nothing: a timeline can have tens of millions of
// events.
template <typename Visit>
void for_each_extreme(std::span<const int64_t> v, Visit&& visit) {
  const size_t n = v.size();
  if (n == 0) return;
  bool has_before = false;
  int64_t before = 0;  // the value of the run before the current one
  size_t start = 0;    // the current run's first index
  for (size_t i = 1; i <= n; ++i) {
    if (i < n && v[i] == v[start]) continue;
    if (!has_before && i == n) {  // a flat line
      visit(start, +1);
      return;
    }
    const int64_t value = v[start];
    if ((!has_before || value > before) && (i == n || value > v[i])) visit(start, +1);
    else if ((!has_before || value < before) && (i == n || value < v[i])) visit(start, -1);
    has_before = true;
    before = value;
    start = i;
  }
}

// Keeps at most `budget` of `count` extremes of one sign, fed in order: all if they fit, else
// the most extreme of each of `budget` consecutive groups of them (the first one on ties).
class Thinning {
 public:
  Thinning(int sign, size_t count, size_t budget) : sign_(sign), count_(count), budget_(budget) {
    group_end_ = budget_ == 0 ? 0 : count_ / budget_;
    out_.reserve(std::min(count_, budget_));
  }

  void add(size_t i, std::span<const int64_t> v) {
    if (budget_ == 0) return;
    if (count_ <= budget_) {
      out_.push_back(i);
      return;
    }
    if (rank_ == group_end_) {  // every group holds at least one: count > budget
      out_.push_back(best_);
      ++group_;
      group_end_ = count_ * (group_ + 1) / budget_;
    }
    if (rank_ == count_ * group_ / budget_ || (sign_ > 0 ? v[i] > v[best_] : v[i] < v[best_])) best_ = i;
    ++rank_;
  }

  std::vector<size_t> finish() {
    if (budget_ > 0 && count_ > budget_) out_.push_back(best_);
    return std::move(out_);
  }

 private:
  int sign_;
  size_t count_, budget_;
  size_t rank_ = 0, group_ = 0, group_end_ = 0, best_ = 0;
  std::vector<size_t> out_;
};

}  // namespace

std::vector<size_t> local_maxima(std::span<const int64_t> in_use) {
  std::vector<size_t> out;
  for_each_extreme(in_use, [&](size_t i, int sign) {
    if (sign > 0) out.push_back(i);
  });
  return out;
}

std::vector<size_t> select_timeline_points(std::span<const int64_t> in_use, size_t budget) {
  if (in_use.size() <= budget) {
    std::vector<size_t> all(in_use.size());
    std::iota(all.begin(), all.end(), size_t(0));
    return all;
  }
  // Counted first, so that both kinds are thinned in one more walk: the maxima to the budget,
  // the minima to what the maxima leave.
  size_t maxima = 0, minima = 0;
  for_each_extreme(in_use, [&](size_t, int sign) { ++(sign > 0 ? maxima : minima); });
  const size_t maxima_kept = std::min(maxima, budget);
  Thinning highs(+1, maxima, budget), lows(-1, minima, budget - maxima_kept);
  for_each_extreme(in_use, [&](size_t i, int sign) { (sign > 0 ? highs : lows).add(i, in_use); });
  std::vector<size_t> kept = highs.finish();
  const std::vector<size_t> valleys = lows.finish();
  kept.insert(kept.end(), valleys.begin(), valleys.end());
  std::sort(kept.begin(), kept.end());
  return kept;
}

}  // namespace mlprof::analysis
