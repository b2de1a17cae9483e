// device_tracing_failure_matters(): does this process use CUDA at all?
#include <link.h>

#include <cstring>

#include "capture/cupti/device_tracer.h"

namespace mlprof::capture {

bool device_tracing_failure_matters() {
  // The CUDA runtime or driver mapped into the process: a program linked with libcudart, or
  // one that reached the driver (the static runtime loads it on first use).
  bool uses_cuda = false;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* found) {
        const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const char* base = std::strrchr(name, '/');
        base = base != nullptr ? base + 1 : name;
        if (std::strncmp(base, "libcudart.so", 12) == 0 || std::strncmp(base, "libcuda.so", 10) == 0) {
          *static_cast<bool*>(found) = true;
          return 1;
        }
        return 0;
      },
      &uses_cuda);
  return uses_cuda;
}

}  // namespace mlprof::capture
