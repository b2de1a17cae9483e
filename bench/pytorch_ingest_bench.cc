// PyTorch trace ingest speed (DESIGN.md §6: ≥ 300 MB/s of uncompressed JSON per core).
// Writes a synthetic Kineto trace shaped like a real training run (steps with a DataLoader
// wait, forward ops on the main thread and backward ops on the autograd thread launching
// kernels with their flows, copies, memsets, allocator records, every argument Kineto writes),
// then times loading it into the model. Prints one line:
//   pytorch_ingest: <MB> MB JSON, <N> events, <MB/s> MB/s, <events/s> events/s, <B> bytes/event ...
//
// Usage: pytorch_ingest_bench [MB of JSON, default 256] [repetitions, default 3]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "model/pytorch_importer.h"

namespace {

using Clock = std::chrono::steady_clock;

// This thread's CPU time (user and system): the cost on one core, whatever else the machine runs.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Writes Kineto-style events until the file holds `target_bytes`.
class TraceWriter {
 public:
  explicit TraceWriter(std::FILE* out) : out_(out) {}

  size_t write(size_t target_bytes) {
    std::fprintf(out_,
                 "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", "
                 "\"totalGlobalMem\": 85051572224, \"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, "
                 "\"numSms\": 108, \"warpSize\": 32}],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
                 "\"world_size\": 8},\n  \"traceEvents\": [\n");
    bool first = true;
    for (int64_t step = 1; size_t(std::ftell(out_)) < target_bytes; ++step) write_step(step, &first);
    std::fprintf(out_,
                 ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 1000.000, \"pid\": %d, \"tid\": %d, "
                 "\"args\": {\"name\": \"thread %d (pt_main_thread)\"}},\n  {\"name\": \"thread_name\", \"ph\": \"M\", "
                 "\"ts\": 1000.000, \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"thread %d (pt_autograd_0)\"}}\n  ],\n"
                 "  \"traceName\": \"bench.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n"
                 "  \"baseTimeNanoseconds\": 1727740000000000000\n}\n",
                 kPid, kPid, kPid, kPid, kAutogradTid, kAutogradTid);
    return size_t(std::ftell(out_));
  }
  size_t events() const { return events_; }

 private:
  static constexpr int kPid = 31337, kAutogradTid = 31400;

  void begin(bool* first) {
    std::fputs(*first ? "  " : ",\n  ", out_);
    *first = false;
    ++events_;
  }
  void op(bool* first, const char* cat, const char* name, int tid, double ts, double dur) {
    const long long external_id = ++external_id_;
    begin(first);
    std::fprintf(out_,
                 "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                 "\"dur\": %.3f, \"args\": {\"External id\": %lld, \"Record function id\": 0, \"Sequence number\": %lld, "
                 "\"Fwd thread id\": 0, \"Ev Idx\": %lld, \"Input Dims\": [[512, 1024], [1024, 1024], []], "
                 "\"Input type\": [\"float\", \"float\", \"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"1\"]}}",
                 cat, name, kPid, tid, ts, dur, external_id, external_id / 3,
                 (long long)events_);
  }
  // A runtime call, its GPU work and the flow arrow between them, as Kineto writes them.
  void launch(bool* first, int tid, double ts, double gpu_ts, double gpu_dur, int kind) {
    const long long correlation = ++correlation_;
    begin(first);
    std::fprintf(out_,
                 "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                 "\"dur\": 4.251, \"args\": {\"External id\": %lld, \"cbid\": 211, \"correlation\": %lld}}",
                 kind == 0 ? "cudaLaunchKernel" : "cudaMemcpyAsync", kPid, tid, ts, (long long)external_id_, correlation);
    begin(first);
    std::fprintf(out_,
                 "{\"ph\": \"s\", \"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"cat\": \"ac2g\", "
                 "\"name\": \"ac2g\"}",
                 correlation, kPid, tid, ts);
    begin(first);
    if (kind == 0) {
      std::fprintf(out_,
                   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
                   "\"dur\": %.3f, \"args\": {\"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": 1, "
                   "\"stream\": 7, \"correlation\": %lld, \"registers per thread\": %d, \"shared memory\": %d, "
                   "\"blocks per SM\": 4.740741, \"warps per SM\": 75.851852, \"grid\": [%d, 1, 1], "
                   "\"block\": [256, 1, 1], \"est. achieved occupancy %%\": %d}}",
                   kKernels[correlation % 4], gpu_ts, gpu_dur, (long long)external_id_, correlation,
                   32 + int(correlation % 4) * 32, int(correlation % 3) * 16384, 512 << (correlation % 3),
                   25 + int(correlation % 4) * 15);
    } else {
      std::fprintf(out_,
                   "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", "
                   "\"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %lld, "
                   "\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %lld, \"bytes\": 3895296, "
                   "\"memory bandwidth (GB/s)\": 11.182329192416114}}",
                   gpu_ts, gpu_dur, (long long)external_id_, correlation);
    }
    begin(first);
    std::fprintf(out_,
                 "{\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"cat\": \"ac2g\", "
                 "\"name\": \"ac2g\", \"bp\": \"e\"}",
                 correlation, gpu_ts);
  }
  void memory(bool* first, int tid, double ts, long long bytes) {
    allocated_ += bytes;
    begin(first);
    std::fprintf(out_,
                 "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": %d, "
                 "\"tid\": %d, \"ts\": %.3f, \"args\": {\"Total Reserved\": 12782141440, \"Total Allocated\": %lld, "
                 "\"Bytes\": %lld, \"Addr\": %lld, \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": %lld}}",
                 kPid, tid, ts, allocated_, bytes, 139926520725504ll + (long long)(events_ % 4096) * 5242880,
                 (long long)events_);
  }

  // One training step: about 60 µs of host work per layer, the GPU a little behind.
  void write_step(int64_t step, bool* first) {
    const double step_begin = now_;
    const double step_dur = 12 * 150.0 + 200;
    begin(first);
    std::fprintf(out_,
                 "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%lld\", \"pid\": %d, "
                 "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %lld, \"Record function id\": 0, "
                 "\"Ev Idx\": %lld}}",
                 (long long)step, kPid, kPid, step_begin, step_dur, (long long)++external_id_, (long long)events_);
    op(first, "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", kPid, now_ + 1, 60);
    launch(first, kPid, now_ + 70, now_ + 80, 120.5, 1);
    double t = now_ + 100, gpu = now_ + 110;
    for (int layer = 0; layer < 12; ++layer, t += 75, gpu += 70) {
      op(first, "cpu_op", "aten::linear", kPid, t, 60);
      op(first, "cpu_op", "aten::addmm", kPid, t + 5, 40);
      memory(first, kPid, t + 8, 2097152);
      launch(first, kPid, t + 20, gpu, 55.25, 0);
      // The backward pass of the layer, on the autograd thread.
      const double b = t + 1000;
      op(first, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", kAutogradTid, b, 50);
      op(first, "cpu_op", "aten::mm", kAutogradTid, b + 5, 30);
      launch(first, kAutogradTid, b + 10, gpu + 900, 40.125, 0);
      memory(first, kAutogradTid, b + 40, -2097152);
    }
    now_ = step_begin + step_dur + 10;
  }

  static constexpr const char* kKernels[4] = {
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_"
      "128x128_32x3_nn_align4::Params)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
      "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
      "ampere_sgemm_128x64_tn",
      "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, "
      "float const*, float const*, float*, float*, float*)"};

  std::FILE* out_;
  size_t events_ = 0;
  long long external_id_ = 0, correlation_ = 0, allocated_ = 1 << 30;
  double now_ = 2413668742269.099;  // µs, before baseTimeNanoseconds, as recent traces write
};

}  // namespace

int main(int argc, char** argv) {
  const size_t megabytes = argc > 1 ? size_t(std::atol(argv[1])) : 256;
  const int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const std::string path =
      (std::filesystem::temp_directory_path() / ("mlprof-ingest-bench-" + std::to_string(getpid()) + ".pt.trace.json"))
          .string();
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) {
    std::perror(path.c_str());
    return 1;
  }
  TraceWriter writer(out);
  const size_t bytes = writer.write(megabytes << 20);
  std::fclose(out);

  double best_s = 1e30, best_cpu_s = 1e30;
  size_t events = 0, model_bytes = 0;
  for (int r = 0; r < repetitions; ++r) {
    mlprof::model::Profile profile;
    std::string error;
    const auto begin = Clock::now();
    const double cpu_begin = thread_cpu_seconds();
    if (!mlprof::model::import_pytorch_trace_file(path, "bench", &profile, &error)) {
      std::fprintf(stderr, "pytorch_ingest_bench: %s: %s\n", path.c_str(), error.c_str());
      std::filesystem::remove(path);
      return 1;
    }
    best_cpu_s = std::min(best_cpu_s, thread_cpu_seconds() - cpu_begin);
    best_s = std::min(best_s, std::chrono::duration<double>(Clock::now() - begin).count());
    events = profile.num_events();
    model_bytes = profile.bytes_used();
  }
  std::filesystem::remove(path);
  const double mb = double(bytes) / 1e6;
  std::printf(
      "pytorch_ingest: %.1f MB JSON, %zu trace events, %zu model events, %.0f MB/s per core (%.0f MB/s wall), "
      "%.2f M events/s, %.1f bytes/event of model memory (best of %d, one thread)\n",
      mb, writer.events(), events, mb / best_cpu_s, mb / best_s, double(events) / best_cpu_s / 1e6,
      double(model_bytes) / double(events), repetitions);
  return 0;
}
