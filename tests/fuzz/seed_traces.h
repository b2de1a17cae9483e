// Small PyTorch (Kineto) traces for the fuzz seeds and the server target's fixture: one of
// each kind of event the importer places, in the current and in an old (2021) schema.
#pragma once

namespace mlprof::fuzz {

inline constexpr const char* kCurrentKinetoTrace = R"json({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "GPU 0", "totalGlobalMem": 42297524224, "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 1000.5, "dur": 100, "args": {"External id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 1020, "dur": 30, "args": {"External id": 3, "Input Dims": [[2, 2], [2, 2]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1025, "dur": 5, "args": {"External id": 3, "cbid": 211, "correlation": 77}},
    {"ph": "s", "id": 77, "pid": 10, "tid": 10, "ts": 1025, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1040, "dur": 20.25,
     "args": {"External id": 3, "device": 0, "context": 1, "stream": 7, "correlation": 77, "registers per thread": 16,
              "shared memory": 0, "blocks per SM": 0.3, "warps per SM": 1.2, "grid": [24, 1, 1], "block": [128, 1, 1],
              "est. achieved occupancy %": 2}},
    {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 1040, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 10, "ts": 1021,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 139926520725504, "Bytes": 4096, "Total Allocated": 8192, "Total Reserved": 20480}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 10, "ts": 1099,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 139926520725504, "Bytes": -4096, "Total Allocated": 4096, "Total Reserved": 20480}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1070, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 78, "bytes": 4096}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1080, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 79, "bytes": 128}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 1039, "dur": 50, "args": {"External id": 5}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1090, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 80}},
    {"ph": "X", "cat": "cpu_op", "name": "MmBackward0", "pid": 10, "tid": 11, "ts": 1066, "dur": 10, "args": {"External id": 7, "Fwd thread id": 1}},
    {"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 10, "tid": 10, "ts": 1000, "dur": 120},
    {"name": "process_name", "ph": "M", "ts": 990, "pid": 10, "tid": 0, "args": {"name": "python3"}},
    {"name": "thread_name", "ph": "M", "ts": 990, "pid": 10, "tid": 10, "args": {"name": "thread 10 (pt_main_thread)"}},
    {"name": "thread_name", "ph": "M", "ts": 990, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}
  ],
  "traceName": "x.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000
})json";

// 2021: integer microseconds, "Kernel" categories, no baseTimeNanoseconds.
inline constexpr const char* kOldKinetoTrace = R"json({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#0", "pid": 5, "tid": "5", "ts": 100, "dur": 50},
  {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 5, "tid": "5", "ts": 110, "dur": 5, "args": {"Input dims": [[4], [4]]}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 5, "tid": "5", "ts": 111, "dur": 2, "args": {"correlation": 9, "external id": 2}},
  {"ph": "X", "cat": "Kernel", "name": "add_kernel", "pid": 0, "tid": "stream 7", "ts": 120, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 9, "external id": 2}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH", "pid": 0, "tid": "stream 7", "ts": 130, "dur": 1, "args": {"device": 0, "stream": 7, "bytes": 16}}
]})json";

}  // namespace mlprof::fuzz
