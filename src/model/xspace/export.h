// The model written back as XSpace (docs/ARCHITECTURE.md §3.1, §3.2), one space per host, so that any
// profile mlprof reads, a PyTorch trace too, opens in TensorBoard's Profile plugin. Stats
// that events share through their name are written on each event, as TensorFlow writes
// kernel_details and the like.
#pragma once

#include <cstdint>
#include <string>

#include "model/profile.h"

namespace mlprof::model {

// Serialises host `host` of the profile (tests and small profiles).
std::string encode_host_xspace(const Profile& profile, uint32_t host);

// Streams host `host` of the profile to `path` (through a temporary file and a rename).
// Returns false with a one-line reason naming the file when it cannot.
bool write_host_xspace(const Profile& profile, uint32_t host, const std::string& path, std::string* error);

}  // namespace mlprof::model
