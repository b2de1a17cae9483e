#include "analysis/device_work_names.h"

namespace mlprof::analysis {

DeviceWorkNames::DeviceWorkNames(const model::Profile& p)
    : size_(p.strings.size()), work_(new std::atomic<uint8_t>[size_]()), precision_(new std::atomic<uint8_t>[size_]()) {}

std::shared_ptr<const DeviceWorkNames> DeviceWorkNames::or_own(std::shared_ptr<const DeviceWorkNames> shared,
                                                               const model::Profile& p) {
  return shared ? std::move(shared) : std::make_shared<const DeviceWorkNames>(p);
}

template <typename Value, typename Of>
Value DeviceWorkNames::read_once(std::atomic<uint8_t>* table, const model::Profile& p, model::NameIndex n, Of of) const {
  const model::StringId name = p.names[n].name;
  if (name >= size_) return of(p.strings.view(name));
  uint8_t known = table[name].load(std::memory_order_relaxed);
  if (known == 0) {
    known = uint8_t(uint8_t(of(p.strings.view(name))) + 1);
    table[name].store(known, std::memory_order_relaxed);
  }
  return Value(known - 1);
}

DeviceWork DeviceWorkNames::work(const model::Profile& p, model::NameIndex n) const {
  return read_once<DeviceWork>(work_.get(), p, n, device_work_of_name);
}

Precision DeviceWorkNames::precision(const model::Profile& p, model::NameIndex n) const {
  return read_once<Precision>(precision_.get(), p, n, precision_of_kernel_name);
}

}  // namespace mlprof::analysis
