// Joins profiles read apart (one host each, on threads of their own) into one, as if every
// host had been read into it one after another: the same string ids, the same indices, times
// from the first host's origin.
#pragma once

#include <string>

#include "model/profile.h"

namespace mlprof::model {

// Appends the hosts of `part` to `into` and empties `part`. Into an empty profile the part
// moves whole (nothing copied). Returns false with a one-line reason, and `into` unchanged,
// when the part's times cannot be measured from `into`'s origin.
bool append_profile(Profile&& part, Profile* into, std::string* error);

// The extremes of a profile's event times, which decide whether its times can be measured from
// another origin: enough to join what was kept of a host without its events.
struct TimeBounds {
  bool any = false;  // the profile has events
  int64_t min_start_ps = 0, max_start_ps = 0;
  __int128 min_end_ps = 0, max_end_ps = 0;  // start + duration, exactly
};
TimeBounds time_bounds(const Profile& profile);

// Nothing in it yet: a part appended to it is moved in whole, with its own origin.
bool is_empty_profile(const Profile& profile);
// The shift (ps) that measures a part's times from `into_origin_ns`; false with append_profile's
// reason when some time would not fit once shifted.
bool shift_to_origin(int64_t part_origin_ns, int64_t into_origin_ns, const TimeBounds& bounds, int64_t* shift_ps,
                     std::string* error);

}  // namespace mlprof::model
