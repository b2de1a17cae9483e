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

}  // namespace mlprof::model
