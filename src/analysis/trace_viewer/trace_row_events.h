// One row of the trace index: its events (increasing indices into the model) stored compactly.
// Events of a row are near each other in the model (a line's events are contiguous), so each
// block of 32 keeps its first index and every event its distance from it, in 1, 2 or 4 bytes,
// the narrowest that fits every block of the row: about 1.1 bytes per event on usual traces
// instead of 4.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

class TraceRowEvents {
 public:
  TraceRowEvents() = default;
  explicit TraceRowEvents(const std::vector<model::EventIndex>& events);

  size_t size() const { return size_; }
  model::EventIndex operator[](size_t k) const {
    const model::EventIndex base = base_[k >> kBlockBits];
    switch (width_) {
      case 1: return base + offsets_[k];
      case 2: {
        uint16_t v;
        std::memcpy(&v, &offsets_[k * 2], 2);
        return base + v;
      }
      default: {
        uint32_t v;
        std::memcpy(&v, &offsets_[k * 4], 4);
        return base + v;
      }
    }
  }
  size_t bytes_used() const { return base_.capacity() * sizeof(model::EventIndex) + offsets_.capacity(); }

 private:
  static constexpr size_t kBlockBits = 5;
  std::vector<model::EventIndex> base_;  // per block: its first event
  std::vector<uint8_t> offsets_;         // per event: width_ bytes, little-endian as the machine
  uint32_t size_ = 0;
  uint8_t width_ = 1;
};

}  // namespace mlprof::analysis
