#include "capture/cupti/cupti_errors.h"

namespace mlprof::capture::gpu {

std::string explain_cupti_failure(const std::string& call, CUptiResult result, const std::string& result_name) {
  const std::string what = call + " failed with " + result_name;
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return what +
             ": this user may not trace the GPU. Run the program as root, or let every user profile: "
             "add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in /etc/modprobe.d/ and "
             "reboot (in a container, also start it with --cap-add=SYS_ADMIN); see "
             "https://developer.nvidia.com/CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return what +
             ": another tool already traces the GPU in this process (Nsight Systems, the PyTorch or TensorFlow "
             "profiler...); run one GPU profiler at a time";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return what + ": CUPTI cannot trace this virtualised GPU (vGPU without profiling support)";
    case CUPTI_ERROR_NOT_COMPATIBLE:
      return what + ": the CUPTI library does not match the NVIDIA driver; use the CUPTI of a CUDA toolkit the "
                    "driver supports (MLPROF_CUPTI_LIBRARY names the one to load)";
    default:
      return what;
  }
}

}  // namespace mlprof::capture::gpu
