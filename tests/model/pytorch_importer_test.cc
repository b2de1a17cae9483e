// The PyTorch importer on hand-written traces of each Kineto schema: what lands where in the
// model, with which stats, and the schema variants from 2021 to now.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/pytorch/importer.h"
#include "model/pytorch_test_support.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

// A recent trace (fractional ts, baseTimeNanoseconds) with one of everything.
constexpr const char* kCurrentTrace = R"json({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42297524224,
                        "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 4},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 10, "tid": 10, "ts": 1000.500, "dur": 100, "args": {"External id": 1}},
    {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 10, "tid": 10, "ts": 1001, "dur": 9, "args": {"External id": 2}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 1020, "dur": 30, "args": {"External id": 3, "Input Dims": [[2, 2], [2, 2]], "Input type": ["float", "float"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1025, "dur": 5, "args": {"External id": 3, "cbid": 211, "correlation": 77}},
    {"ph": "s", "id": 77, "pid": 10, "tid": 10, "ts": 1025, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1040, "dur": 20.25,
     "args": {"External id": 3, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 77,
              "registers per thread": 16, "shared memory": 0, "blocks per SM": 0.3, "warps per SM": 1.2,
              "grid": [24, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 2}},
    {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 1040, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 10, "ts": 1021,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 139926520725504, "Bytes": 4096, "Total Allocated": 8192, "Total Reserved": 20480}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 10, "ts": 1099,
     "args": {"Device Type": 0, "Device Id": -1, "Addr": 94000000, "Bytes": -64, "Total Allocated": 0, "Total Reserved": 0}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 10, "tid": 10, "ts": 1060, "dur": 4, "args": {"External id": 4, "correlation": 78}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1070, "dur": 3, "args": {"External id": 4, "device": 0, "stream": 7, "correlation": 78, "bytes": 4096}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1080, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 79, "bytes": 128}},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 1039, "dur": 50, "args": {"External id": 5}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1090, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 80}},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0", "pid": 10, "tid": 11, "ts": 1065, "dur": 20, "args": {"External id": 6, "Fwd thread id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "MmBackward0", "pid": 10, "tid": 11, "ts": 1066, "dur": 10, "args": {"External id": 7, "Fwd thread id": 1}},
    {"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 10, "tid": 10, "ts": 1000, "dur": 120},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 990, "dur": 200, "args": {"Op count": 0}},
    {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": 990},
    {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1200},
    {"name": "process_name", "ph": "M", "ts": 990, "pid": 10, "tid": 0, "args": {"name": "python3"}},
    {"name": "thread_name", "ph": "M", "ts": 990, "pid": 10, "tid": 10, "args": {"name": "thread 10 (pt_main_thread)"}},
    {"name": "thread_name", "ph": "M", "ts": 990, "pid": 10, "tid": 11, "args": {"name": "thread 11 (pt_autograd_0)"}},
    {"name": "thread_name", "ph": "M", "ts": 990, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}
  ],
  "traceName": "x.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000
})json";

Profile import(std::string_view json, std::string_view host = "host0") {
  Profile p;
  std::string error;
  EXPECT_TRUE(import_pytorch_trace_bytes(json.data(), json.size(), host, &p, &error)) << error;
  return p;
}

TEST(PyTorchImporter, PlacesEachKindOfEvent) {
  const Profile p = import(kCurrentTrace);
  ASSERT_EQ(p.hosts.size(), 1u);
  EXPECT_EQ(p.strings.view(p.hosts[0].name), "host0");
  EXPECT_EQ(p.strings.view(p.hosts[0].hostname), "rank3");
  ASSERT_EQ(p.planes.size(), 3u);
  EXPECT_EQ(p.strings.view(p.planes[0].name), "/host:CPU");
  EXPECT_EQ(p.planes[0].kind, PlaneKind::kHostThreads);
  EXPECT_EQ(p.strings.view(p.planes[1].name), "/device:GPU:0");
  EXPECT_EQ(p.planes[1].kind, PlaneKind::kDevice);
  EXPECT_EQ(p.planes[1].device_ordinal, 0u);
  EXPECT_EQ(p.strings.view(p.planes[1].device_type), "GPU");
  EXPECT_EQ(p.strings.view(p.planes[2].name), "/host:python");
  EXPECT_EQ(p.planes[2].kind, PlaneKind::kOther);

  // Host threads by thread id, named by their metadata events.
  ASSERT_EQ(p.planes[0].num_lines, 2u);
  const Line& main_thread = p.lines[p.planes[0].first_line];
  const Line& autograd = p.lines[p.planes[0].first_line + 1];
  EXPECT_EQ(main_thread.id, 10);
  EXPECT_EQ(p.strings.view(main_thread.name), "thread 10 (pt_main_thread)");
  EXPECT_EQ(main_thread.kind, LineKind::kThread);
  EXPECT_EQ(autograd.id, 11);
  EXPECT_EQ(p.strings.view(autograd.name), "thread 11 (pt_autograd_0)");

  // The device: its stream, then the annotation and synchronisation lines.
  ASSERT_EQ(p.planes[1].num_lines, 3u);
  const Line& stream = p.lines[p.planes[1].first_line];
  EXPECT_EQ(stream.id, 7);
  EXPECT_EQ(p.strings.view(stream.name), "Stream #7(Compute,MemcpyH2D,Memset)");
  EXPECT_EQ(stream.kind, LineKind::kStream);
  EXPECT_EQ(stream.num_events, 3u);
  const Line& scope = p.lines[p.planes[1].first_line + 1];
  EXPECT_EQ(p.strings.view(scope.name), "Framework Name Scope");
  EXPECT_EQ(scope.kind, LineKind::kNameScope);
  EXPECT_EQ(scope.id, int64_t(int32_t(0xdeadbeefu)) + 2);
  const Line& sync = p.lines[p.planes[1].first_line + 2];
  EXPECT_EQ(p.strings.view(sync.name), "Stream Synchronization");
  EXPECT_EQ(sync.kind, LineKind::kOther);

  const CategoryCounts expected{.host_ops = 5, .runtime = 2, .kernels = 1, .memcpys = 1, .memsets = 1,
                                .gpu_annotations = 1, .syncs = 1, .memory = 2, .python = 1};
  EXPECT_EQ(count_categories(p), expected);
  EXPECT_FALSE(has_event(p, "PyTorch Profiler (0)"));  // the profiler's own span
  EXPECT_FALSE(has_event(p, "Record Window End"));
}

TEST(PyTorchImporter, DeviceCapabilitiesAreDevicePlaneStats) {
  const Profile p = import(kCurrentTrace);
  EXPECT_EQ(p.plane_stat(1, kCoreCount)->as_int(), 108);
  EXPECT_EQ(p.plane_stat(1, kMemorySize)->as_uint(), 42297524224u);
  EXPECT_EQ(p.plane_stat(1, kComputeCapMajor)->as_int(), 8);
  EXPECT_EQ(p.plane_stat(1, kComputeCapMinor)->as_int(), 0);
}

TEST(PyTorchImporter, TimesAreExactNanosecondsFromBaseTime) {
  const Profile p = import(kCurrentTrace);
  // The earliest event (the Python frame at ts 1000 us) is the origin.
  EXPECT_EQ(p.origin_ns, 1700000000000000000 + 1000 * 1000);
  const EventIndex step = find_event(p, "ProfilerStep#5");
  EXPECT_EQ(p.start_ps(step), 500 * 1000);  // ts 1000.500 us
  EXPECT_EQ(p.duration_ps(step), 100 * 1000 * 1000);
  EXPECT_EQ(p.duration_ps(find_event(p, "gemm_kernel")), 20250 * 1000);  // dur 20.25 us
  EXPECT_EQ(p.duration_ps(find_event(p, "MemoryAllocation")), 0);
}

TEST(PyTorchImporter, NestingOnEachThread) {
  const Profile p = import(kCurrentTrace);
  const EventIndex step = find_event(p, "ProfilerStep#5");
  const EventIndex mm = find_event(p, "aten::mm");
  EXPECT_EQ(p.events.parent[step], kNone);
  EXPECT_EQ(p.events.parent[find_event(p, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")], step);
  EXPECT_EQ(p.events.parent[mm], step);
  EXPECT_EQ(p.events.parent[find_event(p, "cudaLaunchKernel")], mm);
  EXPECT_EQ(p.events.parent[find_event(p, "MemoryAllocation")], mm);  // the op that asked
  EXPECT_EQ(p.events.parent[find_event(p, "cudaMemcpyAsync")], step);
  const EventIndex backward = find_event(p, "autograd::engine::evaluate_function: MmBackward0");
  EXPECT_EQ(p.events.parent[find_event(p, "MmBackward0")], backward);
  EXPECT_EQ(p.events.parent[find_event(p, "Memcpy HtoD (Pageable -> Device)")], kNone);
}

TEST(PyTorchImporter, LaunchesAndGpuWorkShareCorrelationIds) {
  const Profile p = import(kCurrentTrace);
  EXPECT_EQ(stat_text(p, find_event(p, "cudaLaunchKernel"), "correlation_id"), "77");
  EXPECT_EQ(stat_text(p, find_event(p, "gemm_kernel"), "correlation_id"), "77");
  EXPECT_EQ(stat_text(p, find_event(p, "cudaMemcpyAsync"), "correlation_id"), "78");
  EXPECT_EQ(stat_text(p, find_event(p, "Memcpy HtoD (Pageable -> Device)"), "correlation_id"), "78");
  EXPECT_EQ(stat_text(p, find_event(p, "Memset (Device)"), "correlation_id"), "79");
  // Host ops carry no stats: the model stays small.
  EXPECT_EQ(p.event_stat_range(find_event(p, "aten::mm")).count, 0u);
}

TEST(PyTorchImporter, GpuWorkNamesItsOpAndLaunchConfig) {
  const Profile p = import(kCurrentTrace);
  const EventIndex kernel = find_event(p, "gemm_kernel");
  EXPECT_EQ(stat_text(p, kernel, "tf_op"), "aten::mm");  // External id 3
  EXPECT_EQ(stat_text(p, kernel, "kernel_details"), "regs:16 shm:0 grid:24,1,1 block:128,1,1 occ_pct:2");
  const EventIndex copy = find_event(p, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(stat_text(p, copy, "memcpy_details"), "kind:HtoD kind_src:pageable kind_dst:device size:4096");
  EXPECT_EQ(stat_text(p, copy, "tf_op"), "<absent>");  // External id 4 names no op
  EXPECT_EQ(stat_text(p, find_event(p, "Memset (Device)"), "memset_details"), "size:128");
}

TEST(PyTorchImporter, MemoryRecordsSpeakTheMemoryProfilesStats) {
  const Profile p = import(kCurrentTrace);
  const EventIndex alloc = find_event(p, "MemoryAllocation");
  EXPECT_EQ(stat_text(p, alloc, "allocator_name"), "cuda:0");
  EXPECT_EQ(p.stat(alloc, p.strings.find("addr"))->as_uint(), 139926520725504u);
  EXPECT_EQ(stat_text(p, alloc, "allocation_bytes"), "4096");
  EXPECT_EQ(stat_text(p, alloc, "bytes_allocated"), "8192");
  EXPECT_EQ(stat_text(p, alloc, "bytes_available"), "12288");  // reserved 20480, of which 8192 in use
  const EventIndex freed = find_event(p, "MemoryDeallocation");
  EXPECT_EQ(stat_text(p, freed, "allocator_name"), "cpu");
  EXPECT_EQ(stat_text(p, freed, "allocation_bytes"), "64");
}

TEST(PyTorchImporter, StepsAndTheirOtherThreadsInTheModelsWords) {
  const Profile p = import(kCurrentTrace);
  const EventIndex step = find_event(p, "ProfilerStep#5");
  EXPECT_EQ(stat_text(p, step, "step_num"), "5");
  EXPECT_EQ(stat_text(p, step, "_r"), "1");
  EXPECT_EQ(stat_text(p, step, "_p"), "10");  // the process
  // The backward pass on the autograd thread consumes the step's context; what it nests
  // follows by nesting.
  const EventIndex backward = find_event(p, "autograd::engine::evaluate_function: MmBackward0");
  EXPECT_EQ(stat_text(p, backward, "_c"), "10");
  EXPECT_EQ(stat_text(p, backward, "_ct"), stat_text(p, step, "_pt"));
  EXPECT_EQ(stat_text(p, find_event(p, "MmBackward0"), "_c"), "<absent>");
  EXPECT_EQ(stat_text(p, find_event(p, "aten::mm"), "_c"), "<absent>");
}

TEST(PyTorchImporter, GzipAndPlainTextGiveTheSameProfile) {
  const std::string compressed = gzip(kCurrentTrace);
  const Profile plain = import(kCurrentTrace), unzipped = import(compressed);
  ASSERT_EQ(plain.num_events(), unzipped.num_events());
  EXPECT_EQ(plain.origin_ns, unzipped.origin_ns);
  EXPECT_EQ(plain.events.start_ps, unzipped.events.start_ps);
  EXPECT_EQ(plain.events.duration_ps, unzipped.events.duration_ps);
  EXPECT_EQ(plain.events.parent, unzipped.events.parent);
  // Two gzip members one after the other read as one stream, as gunzip reads them.
  const std::string text = kCurrentTrace;
  const std::string two_members = gzip(text.substr(0, 100)) + gzip(text.substr(100));
  EXPECT_EQ(import(two_members).num_events(), plain.num_events());
}

// 2021 (PyTorch 1.8/1.9): capitalised categories, quoted thread ids, GPU work on "stream 7"
// threads, "external id", theoretical occupancy, and launch flows as the only link.
TEST(PyTorchImporter, Reads2021Schema) {
  const Profile p = import(R"json({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 4242, "tid": "4242", "ts": 1619000000000100, "dur": 900, "args": {"External id": 1}},
    {"ph": "X", "cat": "Operator", "name": "aten::relu", "pid": 4242, "tid": "4242", "ts": 1619000000000200, "dur": 50, "args": {"External id": 2}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": "4242", "ts": 1619000000000210, "dur": 10, "args": {"external id": 2, "cbid": 211}},
    {"ph": "s", "id": 901, "pid": 4242, "tid": 4242, "ts": 1619000000000210, "cat": "async", "name": "launch"},
    {"ph": "X", "cat": "Kernel", "name": "relu_kernel", "pid": 0, "tid": "stream 7", "ts": 1619000000000300, "dur": 20,
     "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "external id": 2, "registers per thread": 32,
              "shared memory": 1024, "grid": [80, 1, 1], "block": [256, 1, 1], "theoretical occupancy %": 100}},
    {"ph": "f", "id": 901, "pid": 0, "tid": "stream 7", "ts": 1619000000000300, "cat": "async", "name": "launch", "bp": "e"},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": "stream 7", "ts": 1619000000000400, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 902, "bytes": 16}},
    {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 1619000000000500, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 903, "bytes": 8}}
  ]})json");
  EXPECT_EQ(p.origin_ns, 1619000000000100 * 1000);  // no baseTimeNanoseconds: ts is since the epoch
  ASSERT_EQ(p.planes.size(), 2u);
  EXPECT_EQ(p.lines[p.planes[0].first_line].id, 4242);
  EXPECT_EQ(p.strings.view(p.lines[p.planes[0].first_line].name), "thread 4242");
  EXPECT_EQ(p.strings.view(p.lines[p.planes[1].first_line].name), "Stream #7(Compute,MemcpyD2H,Memset)");
  // No correlation argument: the flow arrow links the launch and its kernel.
  EXPECT_EQ(stat_text(p, find_event(p, "cudaLaunchKernel"), "correlation_id"), "901");
  EXPECT_EQ(stat_text(p, find_event(p, "relu_kernel"), "correlation_id"), "901");
  EXPECT_EQ(stat_text(p, find_event(p, "relu_kernel"), "tf_op"), "aten::relu");
  EXPECT_EQ(stat_text(p, find_event(p, "relu_kernel"), "kernel_details"),
            "regs:32 shm:1024 grid:80,1,1 block:256,1,1 occ_pct:100");
  EXPECT_EQ(stat_text(p, find_event(p, "ProfilerStep#1"), "step_num"), "1");
  const CategoryCounts expected{.host_ops = 2, .runtime = 1, .kernels = 1, .memcpys = 1, .memsets = 1};
  EXPECT_EQ(count_categories(p), expected);
}

// Late-2022 traces: integer ts, "async_cpu_to_gpu" flows, correlation in the arguments too.
TEST(PyTorchImporter, ReadsAsyncCpuToGpuFlows) {
  const Profile p = import(R"json({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 4, "args": {"cbid": 211}},
    {"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 100, "cat": "async_cpu_to_gpu", "name": "async_gpu"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 110, "dur": 3, "args": {"device": 0, "stream": 7}},
    {"ph": "f", "id": 5, "pid": 0, "tid": 7, "ts": 110, "cat": "async_cpu_to_gpu", "name": "async_gpu", "bp": "e"}
  ]})json");
  EXPECT_EQ(stat_text(p, find_event(p, "cudaLaunchKernel"), "correlation_id"), "5");
  EXPECT_EQ(stat_text(p, find_event(p, "k"), "correlation_id"), "5");
}

// Writers that drop `cat`: the name and arguments tell what an event is.
TEST(PyTorchImporter, ReadsEventsWithoutCategory) {
  const Profile p = import(R"json({"traceEvents": [
    {"ph": "X", "name": "aten::add", "pid": 3, "tid": 3, "ts": 10, "dur": 20, "args": {"External id": 9}},
    {"ph": "X", "name": "cudaLaunchKernel", "pid": 3, "tid": 3, "ts": 12, "dur": 3, "args": {"cbid": 211, "correlation": 4}},
    {"ph": "X", "name": "add_kernel", "pid": 1, "tid": 9, "ts": 40, "dur": 2, "args": {"device": 1, "stream": 9, "correlation": 4, "External id": 9}},
    {"ph": "X", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 1, "tid": 9, "ts": 50, "dur": 2, "args": {"device": 1, "stream": 9, "correlation": 5, "bytes": 64}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 3, "tid": 3, "ts": 11, "args": {"Device Type": 1, "Device Id": 1, "Addr": 1, "Bytes": 64, "Total Allocated": 64, "Total Reserved": 2097152}}
  ]})json");
  const CategoryCounts expected{.host_ops = 1, .runtime = 1, .kernels = 1, .memcpys = 1, .memory = 1};
  EXPECT_EQ(count_categories(p), expected);
  EXPECT_EQ(p.strings.view(p.planes[1].name), "/device:GPU:1");
  EXPECT_EQ(stat_text(p, find_event(p, "add_kernel"), "tf_op"), "aten::add");
}

// Older Kineto copied the correlation id into "External id": it then names no op.
TEST(PyTorchImporter, ExternalIdEqualToCorrelationNamesNoOp) {
  const Profile p = import(R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 3, "tid": 3, "ts": 10, "dur": 20, "args": {"External id": 4}},
    {"ph": "X", "cat": "kernel", "name": "fill_kernel", "pid": 0, "tid": 7, "ts": 40, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 4, "External id": 4}}
  ]})json");
  EXPECT_EQ(stat_text(p, find_event(p, "fill_kernel"), "tf_op"), "<absent>");
}

TEST(PyTorchImporter, SeveralRanksFormOnePod) {
  const std::string rank1 = R"json({"distributedInfo": {"rank": 1}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 3, "tid": 3, "ts": 1700000000000010, "dur": 5}]})json";
  const std::string rank0 = R"json({"distributedInfo": {"rank": 0}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 3, "tid": 3, "ts": 1700000000000020, "dur": 5}]})json";
  Profile p;
  std::string error;
  ASSERT_TRUE(import_pytorch_trace_bytes(rank1.data(), rank1.size(), "worker1", &p, &error)) << error;
  ASSERT_TRUE(import_pytorch_trace_bytes(rank0.data(), rank0.size(), "worker0", &p, &error)) << error;
  ASSERT_EQ(p.hosts.size(), 2u);
  EXPECT_EQ(p.strings.view(p.hosts[0].hostname), "rank1");
  EXPECT_EQ(p.strings.view(p.hosts[1].hostname), "rank0");
  EXPECT_EQ(p.planes[p.hosts[1].first_plane].host, 1u);
  // One clock for the pod: the first host fixes the origin, the second is measured from it.
  EXPECT_EQ(p.origin_ns, 1700000000000010 * 1000);
  EXPECT_EQ(p.start_ps(1), 10 * 1000 * 1000);
}

// A thread's events in any order of the file land on its line by start, the longer of two
// that start together first, then in the file's order: runs in order, shuffled events and ties.
TEST(PyTorchImporter, LinesAreInTimeOrderWhateverTheFilesOrder) {
  struct Written {
    int ts, dur, index;
  };
  std::vector<Written> written;
  uint32_t seed = 12345;
  auto random = [&](int n) { return int((seed = seed * 1103515245u + 12345u) >> 16) % n; };
  for (int i = 0; i < 60; ++i) written.push_back({i, 1, i});                    // a run in order
  for (int i = 0; i < 60; ++i) written.push_back({i / 2, 1 + i % 3, 60 + i});  // a second one over it
  for (int i = 0; i < 300; ++i) written.push_back({random(40), random(4), 120 + i});  // shuffled, with ties
  for (int i = 0; i < 60; ++i) written.push_back({1000 + i, 1, 420 + i});       // a later window
  std::string json = R"({"traceEvents": [)";
  for (const Written& w : written)
    json += (w.index ? ", " : "") + std::string(R"({"ph": "X", "cat": "cpu_op", "name": "e)") + std::to_string(w.index) +
            R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(w.ts) + R"(, "dur": )" + std::to_string(w.dur) + "}";
  json += "]}";
  const Profile p = import(json);
  std::sort(written.begin(), written.end(), [](const Written& a, const Written& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.dur != b.dur ? a.dur > b.dur : a.index < b.index;
  });
  ASSERT_EQ(p.num_events(), written.size());
  for (size_t k = 0; k < written.size(); ++k) EXPECT_EQ(p.name(EventIndex(k)), "e" + std::to_string(written[k].index)) << k;
}

TEST(PyTorchImporter, UnknownPhasesAreCountedNotFatal) {
  const Profile p = import(R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "B", "name": "b", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "C", "name": "counter", "pid": 1, "ts": 3, "args": {"v": 1}}
  ]})json");
  EXPECT_EQ(p.num_events(), 1u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("2 events"), std::string::npos) << p.warnings[0];
}

// What PyTorch records on ops and collectives (model/op_arg_names.h) lands as stats of the
// event's name, as written, whichever parser reads the batch: an escaped name sends this small
// trace's only batch to the On-Demand parser.
TEST(PyTorchImporter, OpAndCollectiveArgumentsAreKeptByBothParsers) {
  constexpr const char* kTemplate = R"json({"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
   "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
     "args": {"External id": 3, "Input type": ["c10::BFloat16", "c10::BFloat16"], "Input Dims": [[2, 4], [4, 8]]}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
     "args": {"External id": 4, "Process Group Name": "0", "Out msg nelems": 2049000, "Process Group Ranks": "[0, 1]",
              "Group size": 2, "In msg nelems": 2049000, "In split size": "[]", "Out split size": "[]",
              "dtype": "Float", "Collective name": "allreduce"}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 30,
     "dur": 40, "args": {"External id": 4, "device": 0, "stream": 7, "correlation": 9, "grid": [8, 1, 1],
     "block": [544, 1, 1], "Collective name": "allreduce", "In msg nelems": 6637568, "Out msg nelems": 6637568,
     "Group size": 2, "dtype": "Float", "Process Group Name": "0", "Process Group Ranks": "[0, 1]"}},
    {"ph": "X", "cat": "cpu_op", "name": "NAME", "pid": 1, "tid": 1, "ts": 80, "dur": 1}
  ]})json";
  for (const std::string name : {"plain", R"(an \"escaped\" name)"}) {
    std::string json = kTemplate;
    json.replace(json.find("NAME"), 4, name);
    const Profile p = import(json);
    SCOPED_TRACE(name);
    const EventIndex mm = find_event(p, "aten::mm");
    EXPECT_EQ(stat_text(p, mm, "Input type"), R"(["c10::BFloat16", "c10::BFloat16"])");
    EXPECT_EQ(stat_text(p, mm, "Input Dims"), "[[2, 4], [4, 8]]");
    EXPECT_EQ(stat_text(p, mm, "Collective name"), "<absent>");
    const EventIndex comms = find_event(p, "record_param_comms");
    EXPECT_EQ(stat_text(p, comms, "Collective name"), "allreduce");
    EXPECT_EQ(stat_text(p, comms, "In msg nelems"), "2049000");
    EXPECT_EQ(stat_text(p, comms, "Out msg nelems"), "2049000");
    EXPECT_EQ(stat_text(p, comms, "In split size"), "[]");
    EXPECT_EQ(stat_text(p, comms, "Out split size"), "[]");
    EXPECT_EQ(stat_text(p, comms, "dtype"), "Float");
    EXPECT_EQ(stat_text(p, comms, "Group size"), "2");
    EXPECT_EQ(stat_text(p, comms, "Process Group Name"), "0");
    EXPECT_EQ(stat_text(p, comms, "Process Group Ranks"), "[0, 1]");
    const EventIndex kernel = find_event(p, "ncclKernel_AllReduce_RING_LL_Sum_float");
    EXPECT_EQ(stat_text(p, kernel, "Collective name"), "allreduce");
    EXPECT_EQ(stat_text(p, kernel, "In msg nelems"), "6637568");
    EXPECT_EQ(stat_text(p, kernel, "tf_op"), "record_param_comms");  // the launch's op, as before
    EXPECT_EQ(stat_text(p, kernel, "kernel_details"), "grid:8,1,1 block:544,1,1");
  }
}

}  // namespace
}  // namespace mlprof::model
