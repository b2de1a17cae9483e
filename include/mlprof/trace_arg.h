// One key=value pair of annotation metadata (the k=v inside name#k=v,...#).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace mlprof {

struct TraceArg {
  enum class Kind : uint8_t { kInt, kUint, kDouble, kString, kBool };

  std::string_view key;
  Kind kind;
  union {
    int64_t i;
    uint64_t u;
    double d;
    bool b;
  };
  std::string_view s;

  template <typename T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T> &&
                                             !std::is_same_v<T, bool>, int> = 0>
  TraceArg(std::string_view k, T v) noexcept : key(k), kind(Kind::kInt), i(v) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && std::is_unsigned_v<T> &&
                                             !std::is_same_v<T, bool>, int> = 0>
  TraceArg(std::string_view k, T v) noexcept : key(k), kind(Kind::kUint), u(v) {}
  TraceArg(std::string_view k, bool v) noexcept : key(k), kind(Kind::kBool), b(v) {}
  TraceArg(std::string_view k, double v) noexcept : key(k), kind(Kind::kDouble), d(v) {}
  TraceArg(std::string_view k, float v) noexcept : key(k), kind(Kind::kDouble), d(v) {}
  TraceArg(std::string_view k, std::string_view v) noexcept : key(k), kind(Kind::kString), i(0), s(v) {}
  TraceArg(std::string_view k, const char* v) noexcept : TraceArg(k, std::string_view(v)) {}
  TraceArg(std::string_view k, const std::string& v) noexcept : TraceArg(k, std::string_view(v)) {}
};

}  // namespace mlprof
