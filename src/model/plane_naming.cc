#include "model/plane_naming.h"

#include <charconv>

#include "format/xspace_schema.h"

namespace mlprof::model {

namespace xs = format::xspace;

PlaneIdentity identify_plane(std::string_view name) {
  PlaneIdentity id;
  if (name == xs::kHostPlaneName) {
    id.kind = PlaneKind::kHostThreads;
  } else if (name == xs::kHostMetadataPlaneName) {
    id.kind = PlaneKind::kHostMetadata;
  } else if (name == xs::kTaskEnvironmentPlaneName) {
    id.kind = PlaneKind::kTaskEnvironment;
  } else if (name.starts_with(xs::kDevicePlanePrefix)) {
    id.kind = PlaneKind::kDevice;
    std::string_view rest = name.substr(xs::kDevicePlanePrefix.size());  // "GPU:0"
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
  if (name == xs::kStepsLineName) return LineKind::kSteps;
  if (name == xs::kFrameworkOpsLineName || name == xs::kTensorFlowOpsLineName) return LineKind::kFrameworkOps;
  if (name == xs::kNameScopeLineName || name == xs::kTensorFlowNameScopeLineName) return LineKind::kNameScope;
  if (name == xs::kXlaModulesLineName) return LineKind::kXlaModules;
  if (name == xs::kXlaOpsLineName) return LineKind::kXlaOps;
  if (name.starts_with(xs::kStreamLinePrefix)) return LineKind::kStream;
  if (plane == PlaneKind::kHostThreads) return LineKind::kThread;
  if (plane == PlaneKind::kDevice) {
    switch (xs::DerivedLine(id - xs::kDerivedLineIdBase)) {
      case xs::DerivedLine::kSteps: return LineKind::kSteps;
      case xs::DerivedLine::kKernelLaunch: return LineKind::kKernelLaunch;
      case xs::DerivedLine::kNameScope: return LineKind::kNameScope;
      case xs::DerivedLine::kFrameworkOps: return LineKind::kFrameworkOps;
      case xs::DerivedLine::kXlaModules: return LineKind::kXlaModules;
      case xs::DerivedLine::kXlaOps: return LineKind::kXlaOps;
      default: break;
    }
  }
  return LineKind::kOther;
}

}  // namespace mlprof::model
