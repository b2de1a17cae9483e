#include "model/pytorch/simdjson_choice.h"

#include <simdjson.h>

#include <cstdlib>

namespace mlprof::model::kineto {
namespace {

constexpr const char* kVariable = "SIMDJSON_FORCE_IMPLEMENTATION";

// The implementations this processor runs, by name, as a user would set them.
std::string runnable_names() {
  std::string names;
  for (const simdjson::implementation* impl : simdjson::get_available_implementations())
    if (impl->supported_by_runtime_system()) names += (names.empty() ? "" : ", ") + impl->name();
  return names;
}

}  // namespace

std::string simdjson_choice_problem() {
  const char* forced = std::getenv(kVariable);
  if (forced == nullptr) return "";
  const std::string name = forced;
  const simdjson::implementation* impl = simdjson::get_available_implementations()[name];
  if (impl != nullptr && impl->supported_by_runtime_system()) return "";
  std::string shown = name;  // on one line, whatever the variable holds
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return std::string(kVariable) + " is \"" + shown + "\": " +
         (impl == nullptr ? "simdjson has no implementation of that name" : "this processor cannot run that implementation") +
         " (this processor runs: " + runnable_names() + "); unset it or set one of those";
}

}  // namespace mlprof::model::kineto
