#include "model/plane_naming.h"

#include <charconv>

namespace mlprof::model {
namespace {

// Derived lines' ids: 0xdeadbeef + k, which TensorFlow stores sign-extended from 32 bits.
constexpr int64_t kDerivedLineBase = int64_t(int32_t(0xdeadbeefu));

}  // namespace

PlaneIdentity identify_plane(std::string_view name) {
  PlaneIdentity id;
  if (name == "/host:CPU") {
    id.kind = PlaneKind::kHostThreads;
  } else if (name == "/host:metadata") {
    id.kind = PlaneKind::kHostMetadata;
  } else if (name == "Task Environment") {
    id.kind = PlaneKind::kTaskEnvironment;
  } else if (name.starts_with("/device:")) {
    id.kind = PlaneKind::kDevice;
    std::string_view rest = name.substr(8);  // "GPU:0"
    const size_t colon = rest.rfind(':');
    if (colon != std::string_view::npos) {
      id.device_type = rest.substr(0, colon);
      uint32_t ordinal = 0;
      std::string_view digits = rest.substr(colon + 1);
      auto r = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
      if (r.ec == std::errc() && r.ptr == digits.data() + digits.size()) id.device_ordinal = ordinal;
    } else {
      id.device_type = rest;
    }
  }
  return id;
}

LineKind identify_line(PlaneKind plane, std::string_view name, int64_t id) {
  if (name == "Steps") return LineKind::kSteps;
  if (name == "Framework Ops" || name == "TensorFlow Ops") return LineKind::kFrameworkOps;
  if (name == "Framework Name Scope" || name == "TensorFlow Name Scope") return LineKind::kNameScope;
  if (name == "XLA Modules") return LineKind::kXlaModules;
  if (name == "XLA Ops") return LineKind::kXlaOps;
  if (name.starts_with("Stream #")) return LineKind::kStream;
  if (plane == PlaneKind::kHostThreads) return LineKind::kThread;
  if (plane == PlaneKind::kDevice) {
    switch (id - kDerivedLineBase) {
      case 0: return LineKind::kSteps;
      case 1: return LineKind::kKernelLaunch;
      case 2: return LineKind::kNameScope;
      case 3: return LineKind::kFrameworkOps;
      case 4: return LineKind::kXlaModules;
      case 5: return LineKind::kXlaOps;
      default: break;
    }
  }
  return LineKind::kOther;
}

}  // namespace mlprof::model
