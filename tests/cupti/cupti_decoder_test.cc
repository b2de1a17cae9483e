// CUPTI's own record structs, filled as CUPTI fills them, decoded into GpuActivityLog; API
// names cleaned; CUPTI's refusals explained. No GPU needed: only CUPTI's headers.
#include <gtest/gtest.h>

#include <cstring>

#include "capture/cupti/cupti_errors.h"
#include "capture/cupti/cupti_record_decoder.h"

namespace mlprof::capture::gpu {
namespace {

template <typename Record>
Record zeroed() {
  Record r;
  std::memset(&r, 0, sizeof r);
  return r;
}

std::string fake_api_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211) return "cudaLaunchKernel_v7000";
  return "";
}

TEST(CuptiRecordDecoder, ConcurrentKernel) {
  auto r = zeroed<CuptiKernelRecord>();
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.start = 1000, r.end = 1500;
  r.deviceId = 1, r.contextId = 2, r.streamId = 13, r.correlationId = 99;
  r.gridX = 10, r.gridY = 2, r.gridZ = 1, r.blockX = 128, r.blockY = 1, r.blockZ = 1;
  r.registersPerThread = 40, r.staticSharedMemory = 256, r.dynamicSharedMemory = 4096;
  r.name = "_Z6kernelv";
  GpuActivityLog log;
  CuptiRecordDecoder(&log, fake_api_name).decode(reinterpret_cast<const CUpti_Activity*>(&r));
  ASSERT_EQ(log.kernels.size(), 1u);
  const KernelActivity& k = log.kernels[0];
  EXPECT_EQ(k.start_ns, 1000u);
  EXPECT_EQ(k.end_ns, 1500u);
  EXPECT_EQ(k.device, 1u);
  EXPECT_EQ(k.context, 2u);
  EXPECT_EQ(k.stream, 13u);
  EXPECT_EQ(k.correlation_id, 99u);
  EXPECT_EQ(log.names[k.name], "_Z6kernelv");
  EXPECT_EQ(k.grid[0], 10);
  EXPECT_EQ(k.grid[1], 2);
  EXPECT_EQ(k.block[0], 128);
  EXPECT_EQ(k.registers_per_thread, 40u);
  EXPECT_EQ(k.static_shared_bytes, 256u);
  EXPECT_EQ(k.dynamic_shared_bytes, 4096u);
}

TEST(CuptiRecordDecoder, CopiesLinkToTheRuntimeCall) {
  auto r = zeroed<CuptiMemcpyRecord>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  r.bytes = 1 << 20;
  r.start = 10, r.end = 20, r.streamId = 7;
  r.correlationId = 501;         // the driver call's
  r.runtimeCorrelationId = 500;  // the program's cudaMemcpyAsync
  auto p2p = zeroed<CuptiPeerCopyRecord>();
  p2p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p2p.deviceId = 0, p2p.srcDeviceId = 0, p2p.dstDeviceId = 3, p2p.bytes = 64, p2p.correlationId = 600;
  GpuActivityLog log;
  CuptiRecordDecoder decoder(&log, fake_api_name);
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&r));
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&p2p));
  ASSERT_EQ(log.memcpys.size(), 2u);
  EXPECT_EQ(log.memcpys[0].kind, CopyKind::kHostToDevice);
  EXPECT_EQ(log.memcpys[0].source, MemoryKind::kPinned);
  EXPECT_EQ(log.memcpys[0].destination, MemoryKind::kDevice);
  EXPECT_TRUE(log.memcpys[0].async);
  EXPECT_EQ(log.memcpys[0].bytes, 1u << 20);
  EXPECT_EQ(log.memcpys[0].correlation_id, 500u);
  EXPECT_EQ(log.memcpys[1].kind, CopyKind::kPeerToPeer);
  EXPECT_EQ(log.memcpys[1].destination_device, 3u);
  EXPECT_EQ(log.memcpys[1].correlation_id, 600u);
}

TEST(CuptiRecordDecoder, MemsetSyncApiOverheadExternalAndDevice) {
  GpuActivityLog log;
  CuptiRecordDecoder decoder(&log, fake_api_name);
  auto memset = zeroed<CuptiMemsetRecord>();
  memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  memset.bytes = 128, memset.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, memset.correlationId = 7;
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&memset));
  auto sync = zeroed<CuptiSyncRecord>();
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.contextId = 1, sync.streamId = 7, sync.correlationId = 8;
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&sync));
  auto runtime = zeroed<CUpti_ActivityAPI>();
  runtime.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  runtime.cbid = 211, runtime.threadId = 77, runtime.correlationId = 9, runtime.start = 1, runtime.end = 2;
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&runtime));
  auto driver = runtime;
  driver.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  driver.cbid = 5;  // no name known: a placeholder
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&driver));
  auto overhead = zeroed<CuptiOverheadRecord>();
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  overhead.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  overhead.objectId.pt.threadId = 77;
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&overhead));
  auto external = zeroed<CUpti_ActivityExternalCorrelation>();
  external.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  external.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  external.externalId = 1234, external.correlationId = 9;
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&external));
  auto device = zeroed<CuptiDeviceRecord>();
  device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  device.id = 0, device.name = "Tesla V100-SXM2-16GB", device.coreClockRate = 1530000;
  device.globalMemoryBandwidth = 898048000, device.numMultiprocessors = 80, device.computeCapabilityMajor = 7;
  device.maxWarpsPerMultiprocessor = 64, device.numThreadsPerWarp = 32;
  decoder.decode(reinterpret_cast<const CUpti_Activity*>(&device));

  ASSERT_EQ(log.memsets.size(), 1u);
  EXPECT_EQ(log.memsets[0].memory, MemoryKind::kDevice);
  ASSERT_EQ(log.syncs.size(), 1u);
  EXPECT_EQ(log.syncs[0].kind, SyncKind::kStreamSynchronize);
  EXPECT_EQ(log.syncs[0].stream, 7u);
  ASSERT_EQ(log.api_calls.size(), 2u);
  EXPECT_EQ(log.names[log.api_calls[0].name], "cudaLaunchKernel");
  EXPECT_EQ(log.api_calls[0].thread, 77u);
  EXPECT_EQ(log.api_calls[0].domain, ApiDomain::kRuntime);
  EXPECT_EQ(log.names[log.api_calls[1].name], "cuda_driver_5");
  EXPECT_EQ(log.api_calls[1].domain, ApiDomain::kDriver);
  ASSERT_EQ(log.overheads.size(), 1u);
  EXPECT_EQ(log.names[log.overheads[0].name], "CUPTI buffer flush");
  EXPECT_TRUE(log.overheads[0].on_thread);
  EXPECT_EQ(log.overheads[0].object, 77u);
  ASSERT_EQ(log.external_correlations.size(), 1u);
  EXPECT_EQ(log.external_correlations[0].external_id, 1234u);
  ASSERT_EQ(log.devices.size(), 1u);
  EXPECT_EQ(log.names[log.devices[0].name], "Tesla V100-SXM2-16GB");
  EXPECT_EQ(log.devices[0].memory_bandwidth_bytes_per_s, 898048000000u);  // KB/s -> bytes/s
  EXPECT_EQ(log.devices[0].multiprocessors, 80u);
}

TEST(CuptiRecordDecoder, CleanApiNames) {
  EXPECT_EQ(clean_api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(clean_api_name("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(clean_api_name("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(clean_api_name("cuMemcpyHtoD_v2"), "cuMemcpyHtoD");
  EXPECT_EQ(clean_api_name("cudaStreamSynchronize_ptsz"), "cudaStreamSynchronize");
  EXPECT_EQ(clean_api_name("name_version"), "name_version");
}

TEST(CuptiErrors, InsufficientPrivilegesSaysHowToAllowProfiling) {
  const std::string m = explain_cupti_failure("cuptiActivityEnable(CONCURRENT_KERNEL)",
                                              CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_NE(m.find("cuptiActivityEnable(CONCURRENT_KERNEL) failed with CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
            std::string::npos) << m;
  EXPECT_NE(m.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << m;
  EXPECT_NE(m.find("root"), std::string::npos) << m;
  const std::string other = explain_cupti_failure("cuptiSubscribe", CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                                                  "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  EXPECT_NE(other.find("one GPU profiler at a time"), std::string::npos) << other;
}

}  // namespace
}  // namespace mlprof::capture::gpu
