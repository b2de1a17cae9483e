#include "analysis/hta_time_rounding.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mlprof::analysis {
namespace {

constexpr int64_t kPsPerUs = 1'000'000;

// The float64 nearest to `ps` picoseconds in microseconds, as a JSON parser reads the same
// decimal text (strtod rounds correctly; a division of doubles would round twice).
double nearest_double_us(__int128 ps) {
  const bool negative = ps < 0;
  if (negative) ps = -ps;
  char text[64];
  std::snprintf(text, sizeof text, "%s%lld.%06lld", negative ? "-" : "", static_cast<long long>(ps / kPsPerUs),
                static_cast<long long>(ps % kPsPerUs));
  return std::strtod(text, nullptr);
}

}  // namespace

double HtaTimeRounding::microseconds(int64_t ps_since_origin) const {
  return nearest_double_us(static_cast<__int128>(origin_ns_) * 1000 + ps_since_origin);
}

int64_t HtaTimeRounding::ps_since_origin(double whole_microseconds) const {
  return static_cast<int64_t>(static_cast<__int128>(whole_microseconds) * kPsPerUs -
                              static_cast<__int128>(origin_ns_) * 1000);
}

int64_t HtaTimeRounding::start_ps(int64_t start) const { return ps_since_origin(std::ceil(microseconds(start))); }

int64_t HtaTimeRounding::end_ps(int64_t start, int64_t duration) const {
  const double end = microseconds(start) + nearest_double_us(duration);
  return ps_since_origin(std::floor(end));
}

}  // namespace mlprof::analysis
