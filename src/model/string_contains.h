// Whether a name holds a part: the importers and the tools classify events by their names.
#pragma once

#include <string_view>

namespace mlprof::model {

inline bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace mlprof::model
