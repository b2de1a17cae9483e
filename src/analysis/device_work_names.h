// What each event name says of its device work, from the name alone: its kind
// (device_work_of_name) and its precision (precision_of_kernel_name). A kernel's name can be
// hundreds of characters that both read through: each name is read once for every analysis of
// a profile that shares one of these (StepGrouping holds one), on any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "analysis/device_work.h"
#include "model/profile.h"

namespace mlprof::analysis {

class DeviceWorkNames {
 public:
  // For the names of `profile`, which each call names again (this holds no reference to it).
  // Sized by its strings, a byte each for each table.
  explicit DeviceWorkNames(const model::Profile& profile);
  // `shared` where an analysis is given one, else a table of its own for `profile`.
  static std::shared_ptr<const DeviceWorkNames> or_own(std::shared_ptr<const DeviceWorkNames> shared,
                                                       const model::Profile& profile);
  DeviceWork work(const model::Profile& profile, model::NameIndex n) const;
  Precision precision(const model::Profile& profile, model::NameIndex n) const;

 private:
  // Per name string (names of one string, which differ by their stats, share it): 0 until
  // first asked, else the value + 1. Two threads asking at once both work it out and store the
  // same. A string made after this table (none while the profile is analysed) is worked out
  // each time.
  template <typename Value, typename Of>
  Value read_once(std::atomic<uint8_t>* table, const model::Profile& profile, model::NameIndex n, Of of) const;

  size_t size_;
  std::unique_ptr<std::atomic<uint8_t>[]> work_, precision_;
};

}  // namespace mlprof::analysis
