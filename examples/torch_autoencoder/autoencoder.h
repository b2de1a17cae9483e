// The convolutional autoencoder of the TensorFlow Profiler article the project started from:
// Conv2D(512) → MaxPool → Conv2D(128) → MaxPool → Conv2D(128) → UpSample → Conv2D(512) →
// UpSample → Conv2D(1, sigmoid), 3×3 kernels, "same" padding, ReLU. The article's fix for
// its slow step is fewer filters (16 and 8): `small` below.
#pragma once

#include <torch/torch.h>

struct AutoencoderFilters {
  int64_t wide;    // the outer convolutions (512, or 16)
  int64_t narrow;  // the inner ones (128, or 8)
};

inline constexpr AutoencoderFilters kLargeFilters{512, 128};
inline constexpr AutoencoderFilters kSmallFilters{16, 8};

class AutoencoderImpl : public torch::nn::Module {
 public:
  explicit AutoencoderImpl(AutoencoderFilters f)
      : encode1_(conv(1, f.wide)), encode2_(conv(f.wide, f.narrow)), decode1_(conv(f.narrow, f.narrow)),
        decode2_(conv(f.narrow, f.wide)), output_(conv(f.wide, 1)) {
    register_module("encode1", encode1_);
    register_module("encode2", encode2_);
    register_module("decode1", decode1_);
    register_module("decode2", decode2_);
    register_module("output", output_);
  }

  // [N, 1, 28, 28] in [0, 1] → its reconstruction.
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(encode1_->forward(x)), 2);   // 14×14
    x = torch::max_pool2d(torch::relu(encode2_->forward(x)), 2);   // 7×7: the code
    x = upsample(torch::relu(decode1_->forward(x)));               // 14×14
    x = upsample(torch::relu(decode2_->forward(x)));               // 28×28
    return torch::sigmoid(output_->forward(x));
  }

 private:
  static torch::nn::Conv2d conv(int64_t in, int64_t out) {
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).padding(1));
  }
  static torch::Tensor upsample(const torch::Tensor& x) {
    return torch::nn::functional::interpolate(
        x, torch::nn::functional::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kNearest));
  }

  torch::nn::Conv2d encode1_, encode2_, decode1_, decode2_, output_;
};
TORCH_MODULE(Autoencoder);
