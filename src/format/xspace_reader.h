// Reads a whole .xplane.pb into the generated XSpace message, rejecting what is not one.
#pragma once

#include <string>

#include "xplane.pb.h"

namespace mlprof::format {

// Returns false and sets `error` to a one-line reason (without the path) when the file is
// missing, empty, truncated or not an XSpace.
bool read_xspace(const std::string& path, tensorflow::profiler::XSpace* space, std::string* error);

// Same, from bytes already in memory.
bool parse_xspace(const void* data, size_t size, tensorflow::profiler::XSpace* space,
                  std::string* error);

}  // namespace mlprof::format
