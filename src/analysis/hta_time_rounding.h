// Holistic Trace Analysis' times on nanosecond-resolution traces, reproduced: HTA reads a
// trace's timestamps as float64 microseconds (pandas), then rounds each event's start up and
// its end (start + duration, added in float64) down to whole microseconds. At timestamps since
// the epoch (about 1.7e15 us) a float64 resolves only a quarter microsecond, so the rounding
// differs from exact rounding for many events: 1,194 us of idle time on a 385 ms trace. mlprof
// keeps exact times; --hta-rounding does as HTA does, to compare with its figures.
#pragma once

#include <cstdint>

namespace mlprof::analysis {

class HtaTimeRounding {
 public:
  // `clock_origin_ns`: the profile's origin on the file's own clock (Kineto's ts × 1000).
  explicit HtaTimeRounding(int64_t clock_origin_ns) : origin_ns_(clock_origin_ns) {}

  // An event's start and end (ps since the origin) as HTA has them.
  int64_t start_ps(int64_t start_ps) const;
  int64_t end_ps(int64_t start_ps, int64_t duration_ps) const;

 private:
  double microseconds(int64_t ps_since_origin) const;  // the float64 HTA parses from the trace's text
  int64_t ps_since_origin(double whole_microseconds) const;

  int64_t origin_ns_;
};

}  // namespace mlprof::analysis
