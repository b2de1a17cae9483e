#include "analysis/trace_viewer/trace_row_events.h"

#include <algorithm>

namespace mlprof::analysis {

TraceRowEvents::TraceRowEvents(const std::vector<model::EventIndex>& events) : size_(uint32_t(events.size())) {
  const size_t block = size_t(1) << kBlockBits;
  uint32_t widest = 0;  // the largest distance from a block's first event
  base_.reserve((events.size() + block - 1) / block);
  for (size_t i = 0; i < events.size(); i += block) {
    base_.push_back(events[i]);
    widest = std::max(widest, events[std::min(events.size(), i + block) - 1] - events[i]);
  }
  width_ = widest <= UINT8_MAX ? 1 : widest <= UINT16_MAX ? 2 : 4;
  offsets_.resize(events.size() * width_);
  for (size_t k = 0; k < events.size(); ++k) {
    const uint32_t v = events[k] - base_[k >> kBlockBits];
    if (width_ == 1) {
      offsets_[k] = uint8_t(v);
    } else if (width_ == 2) {
      const uint16_t narrow = uint16_t(v);
      std::memcpy(&offsets_[k * 2], &narrow, 2);
    } else {
      std::memcpy(&offsets_[k * 4], &v, 4);
    }
  }
}

}  // namespace mlprof::analysis
