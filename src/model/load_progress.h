// How far a load has come, for a progress bar: the fraction (0 to 1) of the bytes to read.
// Importers report at coarse points (a line of events, a file), never per event.
#pragma once

#include <functional>

namespace mlprof::model {

using LoadProgress = std::function<void(double fraction)>;

}  // namespace mlprof::model
