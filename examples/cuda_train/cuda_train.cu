// A small CUDA training loop traced by mlprof, host and GPU: a one-layer network learns a
// linear map on synthetic data. Each step is marked with StepTrace and does what real training
// steps do on a GPU: read a batch on the host, copy it to the device, run a few kernels
// (forward matrix product, ReLU, loss, backward product, SGD update, a memset of the
// gradients), and copy the loss back.
//
//   cuda_train [--logdir DIR] [--steps N] [--slow-input]
//
// --slow-input makes reading each batch slow, so the GPU waits for its input: the overview
// then reports the run as input-bound. Afterwards:
//   mlprof report DIR                       (step-time breakdown: device compute, copies, input)
//   mlprof report DIR --tool kernel_stats   (the kernels, their launch configuration and time)
#include <cuda_runtime.h>
#include <mlprof/mlprof.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kBatch = 256;
constexpr int kInputs = 512;
constexpr int kOutputs = 256;
constexpr int kTile = 16;
constexpr float kLearningRate = 1e-3f;

// Stops the program with the CUDA error, where it happened.
void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "cuda_train: %s failed: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

// c[m x n] = a[m x k] * b[k x n], or with a transposed (a is k x m) for the weight gradient.
// Tiles in static shared memory, as library kernels do.
template <bool kTransposeA>
__global__ void matmul_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < k; t += kTile) {
    const int ak = t + threadIdx.x, bk = t + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] =
        row < m && ak < k ? (kTransposeA ? a[ak * m + row] : a[row * k + ak]) : 0.f;
    b_tile[threadIdx.y][threadIdx.x] = bk < k && col < n ? b[bk * n + col] : 0.f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

__global__ void relu_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.f);
}

// Mean squared error and its gradient; each block sums its part in dynamic shared memory.
__global__ void mse_loss_kernel(const float* prediction, const float* target, float* gradient, float* loss, int n) {
  extern __shared__ float partial[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float error = 0;
  if (i < n) {
    error = prediction[i] > 0.f ? prediction[i] - target[i] : 0.f;  // through the ReLU
    gradient[i] = 2.f * error / n;
  }
  partial[threadIdx.x] = error * error;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, partial[0] / n);
}

__global__ void sgd_kernel(float* weights, const float* gradient, float learning_rate, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] -= learning_rate * gradient[i];
}

struct Options {
  std::string logdir = "cuda-logdir";
  int steps = 20;
  bool slow_input = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--logdir" && i + 1 < argc) o.logdir = argv[++i];
    else if (a == "--steps" && i + 1 < argc) o.steps = std::atoi(argv[++i]);
    else if (a == "--slow-input") o.slow_input = true;
    else {
      std::fprintf(stderr, "usage: cuda_train [--logdir DIR] [--steps N] [--slow-input]\n");
      std::exit(1);
    }
  }
  return o;
}

// The host side of the input pipeline: a batch and its targets (y = x * true_w), made on the
// CPU as a data loader would.
void read_batch(std::mt19937& rng, const std::vector<float>& true_w, float* x, float* y, bool slow) {
  mlprof::Trace trace("Iterator::Generator");  // the step's thread waiting for its next batch
  std::normal_distribution<float> normal;
  for (int i = 0; i < kBatch * kInputs; ++i) x[i] = normal(rng);
  for (int r = 0; r < kBatch; ++r)
    for (int c = 0; c < kOutputs; ++c) {
      float s = 0;
      for (int k = 0; k < kInputs; ++k) s += x[r * kInputs + k] * true_w[k * kOutputs + c];
      y[r * kOutputs + c] = std::fmax(s, 0.f);
    }
  if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(30));  // a slow file system
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuda_train: no CUDA GPU here (%s); this example needs an NVIDIA GPU and driver\n",
                 cudaGetErrorString(cudaGetLastError()));
    return 1;
  }

  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 0.05f);
  std::vector<float> true_w(kInputs * kOutputs), w(kInputs * kOutputs);
  for (float& v : true_w) v = normal(rng);
  for (float& v : w) v = normal(rng);

  // Pinned host buffers: asynchronous copies need them.
  float *x_host, *y_host, *loss_host;
  check(cudaMallocHost(&x_host, sizeof(float) * kBatch * kInputs), "cudaMallocHost");
  check(cudaMallocHost(&y_host, sizeof(float) * kBatch * kOutputs), "cudaMallocHost");
  check(cudaMallocHost(&loss_host, sizeof(float)), "cudaMallocHost");
  float *x, *y, *w_dev, *out, *grad_out, *grad_w, *loss;
  check(cudaMalloc(&x, sizeof(float) * kBatch * kInputs), "cudaMalloc");
  check(cudaMalloc(&y, sizeof(float) * kBatch * kOutputs), "cudaMalloc");
  check(cudaMalloc(&w_dev, sizeof(float) * kInputs * kOutputs), "cudaMalloc");
  check(cudaMalloc(&out, sizeof(float) * kBatch * kOutputs), "cudaMalloc");
  check(cudaMalloc(&grad_out, sizeof(float) * kBatch * kOutputs), "cudaMalloc");
  check(cudaMalloc(&grad_w, sizeof(float) * kInputs * kOutputs), "cudaMalloc");
  check(cudaMalloc(&loss, sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(w_dev, w.data(), sizeof(float) * w.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");

  mlprof::ProfilerOptions options;
  options.device_tracer_level = 1;  // the default; 0 would trace the host only
  if (const mlprof::Status started = mlprof::start(o.logdir, options); !started.ok()) {
    std::fprintf(stderr, "%s\n", started.message().c_str());
    return 1;
  }

  const dim3 tile(kTile, kTile);
  const int outputs = kBatch * kOutputs, weights = kInputs * kOutputs;
  for (int step = 0; step < o.steps; ++step) {
    mlprof::StepTrace step_trace("train", step);
    read_batch(rng, true_w, x_host, y_host, o.slow_input);
    {
      mlprof::Trace t("copy_batch");
      check(cudaMemcpyAsync(x, x_host, sizeof(float) * kBatch * kInputs, cudaMemcpyHostToDevice, stream), "copy x");
      check(cudaMemcpyAsync(y, y_host, sizeof(float) * outputs, cudaMemcpyHostToDevice, stream), "copy y");
    }
    {
      mlprof::Trace t("forward");
      matmul_kernel<false><<<dim3(kOutputs / kTile, kBatch / kTile), tile, 0, stream>>>(x, w_dev, out, kBatch, kOutputs, kInputs);
      relu_kernel<<<(outputs + 255) / 256, 256, 0, stream>>>(out, outputs);
      check(cudaMemsetAsync(loss, 0, sizeof(float), stream), "cudaMemsetAsync");
      mse_loss_kernel<<<(outputs + 255) / 256, 256, 256 * sizeof(float), stream>>>(out, y, grad_out, loss, outputs);
    }
    {
      mlprof::Trace t("backward");
      check(cudaMemsetAsync(grad_w, 0, sizeof(float) * weights, stream), "cudaMemsetAsync");
      matmul_kernel<true><<<dim3(kOutputs / kTile, kInputs / kTile), tile, 0, stream>>>(x, grad_out, grad_w, kInputs, kOutputs, kBatch);
    }
    {
      mlprof::Trace t("optimizer");
      sgd_kernel<<<(weights + 255) / 256, 256, 0, stream>>>(w_dev, grad_w, kLearningRate, weights);
      check(cudaGetLastError(), "kernel launch");
      check(cudaMemcpyAsync(loss_host, loss, sizeof(float), cudaMemcpyDeviceToHost, stream), "copy loss");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    if (step % 5 == 0) std::printf("step %d: loss %.5f\n", step, *loss_host);
  }

  const mlprof::RunInfo run = mlprof::stop();
  if (run.status.ok()) {
    std::printf("profile: %s (%llu events)\nnext: mlprof report %s --tool kernel_stats\n", run.xspace_path.c_str(),
                static_cast<unsigned long long>(run.events), o.logdir.c_str());
  }
  cudaStreamDestroy(stream);
  for (float* p : {x, y, w_dev, out, grad_out, grad_w, loss}) cudaFree(p);
  for (float* p : {x_host, y_host, loss_host}) cudaFreeHost(p);
  return run.status.ok() ? 0 : 1;
}
