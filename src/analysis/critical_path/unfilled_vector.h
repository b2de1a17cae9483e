// A vector whose resize() leaves new numbers unset rather than zero: the graph's arrays are sized
// first and every slot written after, so the zero-fill was a second pass over all of them.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace mlprof::analysis {

template <typename T>
struct UnfilledAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  UnfilledAllocator() noexcept = default;
  template <typename U>
  UnfilledAllocator(const UnfilledAllocator<U>&) noexcept {}
  template <typename U>
  struct rebind {
    using other = UnfilledAllocator<U>;
  };
  // Default-initialised when no value is given (a number stays unset); else as std::allocator.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using UnfilledVector = std::vector<T, UnfilledAllocator<T>>;

}  // namespace mlprof::analysis
