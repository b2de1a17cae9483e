#include "analysis/device_work_names.h"

namespace mlprof::analysis {

DeviceWorkNames::DeviceWorkNames(const model::Profile& p)
    : size_(p.names.size()), work_(new std::atomic<uint8_t>[size_]()), precision_(new std::atomic<uint8_t>[size_]()) {}

DeviceWork DeviceWorkNames::work(const model::Profile& p, model::NameIndex n) const {
  // A name made after this table (none while the profile is analysed) is read each time.
  if (n >= size_) return device_work_of_name(p.strings.view(p.names[n].name));
  uint8_t known = work_[n].load(std::memory_order_relaxed);
  if (known == 0) {
    known = uint8_t(uint8_t(device_work_of_name(p.strings.view(p.names[n].name))) + 1);
    work_[n].store(known, std::memory_order_relaxed);
  }
  return DeviceWork(known - 1);
}

Precision DeviceWorkNames::precision(const model::Profile& p, model::NameIndex n) const {
  if (n >= size_) return precision_of_kernel_name(p.strings.view(p.names[n].name));
  uint8_t known = precision_[n].load(std::memory_order_relaxed);
  if (known == 0) {
    known = uint8_t(uint8_t(precision_of_kernel_name(p.strings.view(p.names[n].name))) + 1);
    precision_[n].store(known, std::memory_order_relaxed);
  }
  return Precision(known - 1);
}

}  // namespace mlprof::analysis
