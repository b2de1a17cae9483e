#include "format/xspace_schema.h"

#include <climits>
#include <utility>

namespace mlprof::format::xspace {
namespace {

// In the order they appear in a stream's name.
constexpr std::pair<StreamActivity, std::string_view> kStreamActivityNames[] = {
    {kStreamCompute, "Compute"},     {kStreamMemcpyH2D, "MemcpyH2D"}, {kStreamMemcpyD2H, "MemcpyD2H"},
    {kStreamMemcpyD2D, "MemcpyD2D"}, {kStreamMemcpyP2P, "MemcpyP2P"}, {kStreamMemcpyH2H, "MemcpyH2H"},
    {kStreamMemcpyOther, "Memcpy"},  {kStreamMemset, "Memset"}};

}  // namespace

std::string device_plane_name(std::string_view type, int64_t ordinal) {
  return std::string(kDevicePlanePrefix) + std::string(type) + ":" + std::to_string(ordinal);
}

std::string_view stream_activity_name(StreamActivity activity) {
  for (auto [bit, name] : kStreamActivityNames)
    if (bit == activity) return name;
  return "Memcpy";
}

std::string stream_line_name(int64_t stream_id, uint8_t activities) {
  std::string name = std::string(kStreamLinePrefix) + std::to_string(stream_id) + "(";
  bool first = true;
  for (auto [bit, text] : kStreamActivityNames) {
    if ((activities & bit) == 0) continue;
    if (!first) name += ',';
    name += text;
    first = false;
  }
  return name + ")";
}

// TensorFlow spells directions H2D, CUPTI's names and Kineto HtoD; some runtimes shout MEMCPY.
CopyDirection copy_direction(std::string_view name) {
  const auto contains = [name](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (!contains("emcpy") && !contains("MEMCPY")) return CopyDirection::kNotACopy;
  if (contains("H2D") || contains("HtoD")) return CopyDirection::kHostToDevice;
  if (contains("D2H") || contains("DtoH")) return CopyDirection::kDeviceToHost;
  if (contains("D2D") || contains("DtoD")) return CopyDirection::kDeviceToDevice;
  if (contains("P2P") || contains("PtoP")) return CopyDirection::kPeerToPeer;
  if (contains("H2H") || contains("HtoH")) return CopyDirection::kHostToHost;
  return CopyDirection::kUnknown;
}

StreamActivity stream_activity_of(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kHostToDevice: return kStreamMemcpyH2D;
    case CopyDirection::kDeviceToHost: return kStreamMemcpyD2H;
    case CopyDirection::kDeviceToDevice: return kStreamMemcpyD2D;
    case CopyDirection::kPeerToPeer: return kStreamMemcpyP2P;
    case CopyDirection::kHostToHost: return kStreamMemcpyH2H;
    default: return kStreamMemcpyOther;
  }
}

bool profiler_step_number(std::string_view name, int64_t* n) {
  if (!name.starts_with(kProfilerStepPrefix)) return false;
  int64_t v = 0;
  bool any = false;
  for (char c : name.substr(kProfilerStepPrefix.size())) {
    if (c < '0' || c > '9' || v > INT64_MAX / 10 - 9) return false;
    v = v * 10 + (c - '0');
    any = true;
  }
  *n = v;
  return any;
}

}  // namespace mlprof::format::xspace
