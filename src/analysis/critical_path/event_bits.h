// A set of the profile's events, one bit each, for a pass over one window's graph: a window
// holds a small share of the profile's events, so the bits are kept by the thread from one
// window to the next and only those set are cleared, rather than a profile-sized array made
// and zeroed a window. Telling whether an event is in the set needs no look-up of its slot in
// the window (event_selection.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

class EventBits {
 public:
  explicit EventBits(size_t events) {
    std::vector<std::unique_ptr<std::vector<uint64_t>>>& spare = spare_bits();
    if (spare.empty()) spare.push_back(std::make_unique<std::vector<uint64_t>>());
    bits_ = std::move(spare.back());
    spare.pop_back();
    if (bits_->size() < events / 64 + 1) bits_->resize(events / 64 + 1, 0);
    words_ = bits_->data();
  }
  ~EventBits() {
    for (model::EventIndex e : set_) words_[e >> 6] = 0;
    spare_bits().push_back(std::move(bits_));
  }
  EventBits(const EventBits&) = delete;
  EventBits& operator=(const EventBits&) = delete;

  void set(model::EventIndex e) {
    words_[e >> 6] |= uint64_t(1) << (e & 63);
    set_.push_back(e);
  }
  // e may be kNone (never in the set).
  bool test(model::EventIndex e) const { return e != model::kNone && (words_[e >> 6] >> (e & 63) & 1); }

 private:
  // Cleared bit arrays the thread has used: sets alive at once take one each.
  static std::vector<std::unique_ptr<std::vector<uint64_t>>>& spare_bits() {
    static thread_local std::vector<std::unique_ptr<std::vector<uint64_t>>> spare;
    return spare;
  }
  std::unique_ptr<std::vector<uint64_t>> bits_;
  uint64_t* words_ = nullptr;
  std::vector<model::EventIndex> set_;  // what to clear
};

}  // namespace mlprof::analysis
