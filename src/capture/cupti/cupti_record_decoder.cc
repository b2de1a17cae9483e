#include "capture/cupti/cupti_record_decoder.h"

#include <cstring>

namespace mlprof::capture::gpu {
namespace {

CopyKind copy_kind(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return CopyKind::kHostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return CopyKind::kDeviceToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return CopyKind::kDeviceToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CopyKind::kHostToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyKind::kPeerToPeer;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return CopyKind::kArray;
    default: return CopyKind::kUnknown;
  }
}

MemoryKind memory_kind(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return MemoryKind::kManaged;
    default: return MemoryKind::kUnknown;
  }
}

SyncKind sync_kind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return SyncKind::kEventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return SyncKind::kStreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return SyncKind::kStreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return SyncKind::kContextSynchronize;
    default: return SyncKind::kUnknown;
  }
}

const char* overhead_name(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "CUDA driver JIT compilation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "CUPTI resource";
    default: return "CUPTI overhead";
  }
}

// Records are 8-byte aligned in CUPTI's buffers, but reading through a copy keeps the
// decoder free of aliasing assumptions.
template <typename Record>
Record copy_of(const CUpti_Activity* r) {
  Record out;
  std::memcpy(&out, r, sizeof out);
  return out;
}

}  // namespace

std::string_view clean_api_name(std::string_view name) {
  // A trailing "_v<digits>" is the API version.
  const size_t v = name.rfind("_v");
  if (v != std::string_view::npos && v + 2 < name.size() &&
      name.find_first_not_of("0123456789", v + 2) == std::string_view::npos)
    name = name.substr(0, v);
  for (std::string_view suffix : {"_ptsz", "_ptds"})
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  return name;
}

uint32_t CuptiRecordDecoder::api_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const uint64_t key = uint64_t(domain) << 32 | cbid;
  auto [it, added] = api_names_.try_emplace(key, 0);
  if (added) {
    std::string name = api_name_ != nullptr ? api_name_(domain, cbid) : std::string();
    if (name.empty()) name = (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "cuda_runtime_" : "cuda_driver_") + std::to_string(cbid);
    it->second = log_->names.intern(clean_api_name(name));
  }
  return it->second;
}

void CuptiRecordDecoder::decode(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: decode_kernel(copy_of<CuptiKernelRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_MEMCPY: decode_memcpy(copy_of<CuptiMemcpyRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2: decode_peer_copy(copy_of<CuptiPeerCopyRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_MEMSET: decode_memset(copy_of<CuptiMemsetRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: decode_sync(copy_of<CuptiSyncRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_RUNTIME: decode_api(copy_of<CUpti_ActivityAPI>(record), ApiDomain::kRuntime); break;
    case CUPTI_ACTIVITY_KIND_DRIVER: decode_api(copy_of<CUpti_ActivityAPI>(record), ApiDomain::kDriver); break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD: decode_overhead(copy_of<CuptiOverheadRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_DEVICE: decode_device(copy_of<CuptiDeviceRecord>(record)); break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto r = copy_of<CUpti_ActivityExternalCorrelation>(record);
      log_->external_correlations.push_back({r.correlationId, uint32_t(r.externalKind), r.externalId});
      break;
    }
    default: break;
  }
}

void CuptiRecordDecoder::decode_kernel(const CuptiKernelRecord& r) {
  KernelActivity k;
  k.start_ns = r.start;
  k.end_ns = r.end;
  k.device = r.deviceId;
  k.context = r.contextId;
  k.stream = r.streamId;
  k.correlation_id = r.correlationId;
  k.name = log_->names.intern(r.name != nullptr ? r.name : "unknown kernel");
  k.grid[0] = r.gridX, k.grid[1] = r.gridY, k.grid[2] = r.gridZ;
  k.block[0] = r.blockX, k.block[1] = r.blockY, k.block[2] = r.blockZ;
  k.registers_per_thread = r.registersPerThread;
  k.static_shared_bytes = uint32_t(r.staticSharedMemory);
  k.dynamic_shared_bytes = uint32_t(r.dynamicSharedMemory);
  log_->kernels.push_back(k);
}

void CuptiRecordDecoder::decode_memcpy(const CuptiMemcpyRecord& r) {
  MemcpyActivity m;
  m.start_ns = r.start;
  m.end_ns = r.end;
  m.device = m.destination_device = r.deviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  // The work is started by the runtime call the program made when there is one (the plain
  // correlation id is the driver call's).
  m.correlation_id = r.runtimeCorrelationId != 0 ? r.runtimeCorrelationId : r.correlationId;
  m.bytes = r.bytes;
  m.kind = copy_kind(r.copyKind);
  m.source = memory_kind(r.srcKind);
  m.destination = memory_kind(r.dstKind);
  m.async = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  log_->memcpys.push_back(m);
}

void CuptiRecordDecoder::decode_peer_copy(const CuptiPeerCopyRecord& r) {
  MemcpyActivity m;
  m.start_ns = r.start;
  m.end_ns = r.end;
  m.device = r.deviceId;
  m.destination_device = r.dstDeviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.bytes = r.bytes;
  m.kind = CopyKind::kPeerToPeer;
  m.source = memory_kind(r.srcKind);
  m.destination = memory_kind(r.dstKind);
  m.async = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  log_->memcpys.push_back(m);
}

void CuptiRecordDecoder::decode_memset(const CuptiMemsetRecord& r) {
  MemsetActivity m;
  m.start_ns = r.start;
  m.end_ns = r.end;
  m.device = r.deviceId;
  m.context = r.contextId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.bytes = r.bytes;
  m.memory = memory_kind(r.memoryKind);
  m.async = (r.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
  log_->memsets.push_back(m);
}

void CuptiRecordDecoder::decode_sync(const CuptiSyncRecord& r) {
  SyncActivity s;
  s.start_ns = r.start;
  s.end_ns = r.end;
  s.context = r.contextId;
  s.stream = r.streamId;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE (all ones) when not a stream's
  s.correlation_id = r.correlationId;
  s.kind = sync_kind(r.type);
  log_->syncs.push_back(s);
}

void CuptiRecordDecoder::decode_api(const CUpti_ActivityAPI& r, ApiDomain domain) {
  ApiActivity a;
  a.start_ns = r.start;
  a.end_ns = r.end;
  a.thread = r.threadId;
  a.correlation_id = r.correlationId;
  a.domain = domain;
  a.name = api_name(domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, r.cbid);
  log_->api_calls.push_back(a);
}

void CuptiRecordDecoder::decode_overhead(const CuptiOverheadRecord& r) {
  OverheadActivity o;
  o.start_ns = r.start;
  o.end_ns = r.end;
  o.name = log_->names.intern(overhead_name(r.overheadKind));
  o.on_thread = r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD;
  o.object = o.on_thread ? r.objectId.pt.threadId : r.objectId.dcs.deviceId;
  log_->overheads.push_back(o);
}

void CuptiRecordDecoder::decode_device(const CuptiDeviceRecord& r) {
  DeviceProperties d;
  d.id = r.id;
  d.name = log_->names.intern(r.name != nullptr ? r.name : "");
  d.compute_capability_major = r.computeCapabilityMajor;
  d.compute_capability_minor = r.computeCapabilityMinor;
  d.multiprocessors = r.numMultiprocessors;
  d.core_clock_khz = r.coreClockRate;
  d.memory_bandwidth_bytes_per_s = r.globalMemoryBandwidth * 1000;  // CUPTI gives KB/s
  d.memory_bytes = r.globalMemorySize;
  d.max_warps_per_multiprocessor = r.maxWarpsPerMultiprocessor;
  d.max_blocks_per_multiprocessor = r.maxBlocksPerMultiprocessor;
  d.max_shared_memory_per_multiprocessor = r.maxSharedMemoryPerMultiprocessor;
  d.max_registers_per_multiprocessor = r.maxRegistersPerMultiprocessor;
  d.threads_per_warp = r.numThreadsPerWarp != 0 ? r.numThreadsPerWarp : 32;
  for (DeviceProperties& known : log_->devices)
    if (known.id == d.id) {
      known = d;
      return;
    }
  log_->devices.push_back(d);
}

}  // namespace mlprof::capture::gpu
