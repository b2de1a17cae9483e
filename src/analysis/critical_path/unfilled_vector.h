// A vector whose resize() leaves new slots unset rather than zero (or a struct's defaults): the
// graph's arrays are sized first and every slot written after, so the fill was a second pass
// over all of them.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
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
  // Left unset when no value is given (plain data: the storage holds one already); else as
  // std::allocator.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    if constexpr (!(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>))
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
