// CUPTI activity records -> GpuActivityLog. The only code that knows CUPTI's versioned record
// structs: which version is read is chosen at compile time from the CUDA version of the
// headers, and the fields read are those every later version keeps in place.
#pragma once

#include <cupti.h>

#include <string>
#include <string_view>
#include <unordered_map>

#include "capture/cupti/gpu_activity.h"

namespace mlprof::capture::gpu {

// The record versions this build reads.
#if CUDA_VERSION >= 13000
using CuptiKernelRecord = CUpti_ActivityKernel10;
using CuptiMemcpyRecord = CUpti_ActivityMemcpy6;
using CuptiMemsetRecord = CUpti_ActivityMemset4;
using CuptiPeerCopyRecord = CUpti_ActivityMemcpyPtoP4;
using CuptiSyncRecord = CUpti_ActivitySynchronization2;
using CuptiOverheadRecord = CUpti_ActivityOverhead3;
using CuptiDeviceRecord = CUpti_ActivityDevice5;
#elif CUDA_VERSION >= 12000
using CuptiKernelRecord = CUpti_ActivityKernel9;
using CuptiMemcpyRecord = CUpti_ActivityMemcpy5;
using CuptiMemsetRecord = CUpti_ActivityMemset4;
using CuptiPeerCopyRecord = CUpti_ActivityMemcpyPtoP4;
using CuptiSyncRecord = CUpti_ActivitySynchronization;
using CuptiOverheadRecord = CUpti_ActivityOverhead;
using CuptiDeviceRecord = CUpti_ActivityDevice4;
#else
#error "mlprof's CUPTI tracer needs CUDA 12 or later"
#endif

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync":
// CUPTI's callback names carry the API version and per-thread-stream variants.
std::string_view clean_api_name(std::string_view cupti_name);

class CuptiRecordDecoder {
 public:
  // `api_name(domain, cbid)` gives CUPTI's name of a callback id (cuptiGetCallbackName).
  using ApiNamer = std::string (*)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  CuptiRecordDecoder(GpuActivityLog* log, ApiNamer api_name) : log_(log), api_name_(api_name) {}

  // Appends one record; kinds it does not know are ignored.
  void decode(const CUpti_Activity* record);

 private:
  uint32_t api_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  void decode_kernel(const CuptiKernelRecord& r);
  void decode_memcpy(const CuptiMemcpyRecord& r);
  void decode_peer_copy(const CuptiPeerCopyRecord& r);
  void decode_memset(const CuptiMemsetRecord& r);
  void decode_sync(const CuptiSyncRecord& r);
  void decode_api(const CUpti_ActivityAPI& r, ApiDomain domain);
  void decode_overhead(const CuptiOverheadRecord& r);
  void decode_device(const CuptiDeviceRecord& r);

  GpuActivityLog* log_;
  ApiNamer api_name_;
  std::unordered_map<uint64_t, uint32_t> api_names_;  // (domain << 32 | cbid) -> NameTable index
};

}  // namespace mlprof::capture::gpu
