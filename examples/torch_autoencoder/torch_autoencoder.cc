// Trains the convolutional autoencoder of the seeds' TensorFlow Profiler article with
// LibTorch, on synthetic 28×28 images fed by a torch::data pipeline. It has no profiling
// code: profile it with
//
//   mlprof run --logdir logs --steps 3:8 -- torch_autoencoder
//   mlprof report logs
//
// The one mlprof line is the DataLoader (mlprof::libtorch::make_data_loader instead of
// torch::data::make_data_loader), so the input pipeline analysis sees its stages.
//
// Flags: --steps N (12)  --batch-size N (16)  --workers N (1)  --filters large|small
//        --input-cost-us N (per example; 0)  --slow-input (the same as --input-cost-us 4000)
//        --threads N (intra-op threads; LibTorch's default)
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "autoencoder.h"
#include "mlprof/torch/data_loader.h"
#include "synthetic_digits.h"

namespace {

struct Flags {
  int64_t steps = 12;
  int64_t batch_size = 16;
  int64_t workers = 1;
  AutoencoderFilters filters = kLargeFilters;
  int64_t input_cost_us = 0;
  int64_t threads = 0;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "torch_autoencoder: %s\n"
               "usage: torch_autoencoder [--steps N] [--batch-size N] [--workers N] [--filters large|small]\n"
               "                         [--input-cost-us N] [--slow-input] [--threads N]\n",
               problem);
  std::exit(1);
}

Flags parse_flags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage((flag + " needs a value").c_str());
      return argv[++i];
    };
    auto number = [&](int64_t min) {
      const std::string v = value();
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || n < min) usage((flag + " " + v + ": expected a number >= " + std::to_string(min)).c_str());
      return int64_t(n);
    };
    if (flag == "--steps") f.steps = number(1);
    else if (flag == "--batch-size") f.batch_size = number(1);
    else if (flag == "--workers") f.workers = number(0);
    else if (flag == "--input-cost-us") f.input_cost_us = number(0);
    else if (flag == "--slow-input") f.input_cost_us = 4000;
    else if (flag == "--threads") f.threads = number(1);
    else if (flag == "--filters") {
      const std::string v = value();
      if (v == "large") f.filters = kLargeFilters;
      else if (v == "small") f.filters = kSmallFilters;
      else usage(("--filters " + v + ": expected large or small").c_str());
    } else if (flag == "--help" || flag == "-h") {
      usage("train the seeds' convolutional autoencoder on synthetic images");
    } else {
      usage(("unknown flag " + flag).c_str());
    }
  }
  return f;
}

// A denoising autoencoder's augmentation: the input gets noise, the target stays clean.
torch::data::Example<> add_noise(torch::data::Example<> example) {
  example.data = (example.data + 0.1 * torch::randn_like(example.data)).clamp(0, 1);
  return example;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = parse_flags(argc, argv);
  torch::manual_seed(1);
  if (flags.threads > 0) torch::set_num_threads(int(flags.threads));

  auto dataset = SyntheticDigits(size_t(flags.steps * flags.batch_size), flags.input_cost_us)
                     .map(torch::data::transforms::Lambda<torch::data::Example<>>(add_noise))
                     .map(torch::data::transforms::Stack<>());
  auto loader = mlprof::libtorch::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(size_t(flags.batch_size)).workers(size_t(flags.workers)));

  Autoencoder model(flags.filters);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));

  std::printf("torch_autoencoder: %lld steps of %lld images, %lld loader workers, filters %lld/%lld, input cost %lld us/image\n",
              (long long)flags.steps, (long long)flags.batch_size, (long long)flags.workers,
              (long long)flags.filters.wide, (long long)flags.filters.narrow, (long long)flags.input_cost_us);
  const auto start = std::chrono::steady_clock::now();
  int64_t step = 0;
  double loss_value = 0;
  for (auto& batch : *loader) {
    optimizer.zero_grad();
    const torch::Tensor reconstruction = model->forward(batch.data);
    torch::Tensor loss = torch::binary_cross_entropy(reconstruction, batch.target);
    loss.backward();
    optimizer.step();
    loss_value = loss.item<double>();
    ++step;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("torch_autoencoder: %lld steps in %.2f s (%.1f ms per step), final loss %.4f\n", (long long)step, seconds,
              1000 * seconds / double(std::max<int64_t>(step, 1)), loss_value);
  return 0;
}
