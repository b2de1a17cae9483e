// start_device_tracer() of a build without CUDA: it only says so.
#include "capture/cupti/device_tracer.h"

namespace mlprof::capture {

std::unique_ptr<DeviceTracer> start_device_tracer(const ProfilerOptions&, std::string* why_not) {
  *why_not = "this mlprof was built without CUDA, so it cannot trace GPUs; rebuild it where the CUDA toolkit "
             "(with CUPTI) is installed";
  return nullptr;
}

}  // namespace mlprof::capture
