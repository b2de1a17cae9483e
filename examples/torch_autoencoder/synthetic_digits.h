// 28×28 grey images of pen strokes, made up in the program (no download): a stand-in for
// MNIST. Example i is always the same image. `cost_us` adds that much busy work to each
// get(), like decoding or augmenting a real image would.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <random>

class SyntheticDigits : public torch::data::datasets::Dataset<SyntheticDigits> {
 public:
  SyntheticDigits(size_t size, int64_t cost_us) : size_(size), cost_us_(cost_us) {}

  // The image is both the input and the target of the autoencoder.
  torch::data::Example<> get(size_t index) override {
    torch::Tensor image = draw(index);
    burn(cost_us_);
    return {image, image};
  }

  torch::optional<size_t> size() const override { return size_; }

 private:
  static constexpr int kSide = 28;

  // Two to four thick strokes between random points, anti-aliased by distance.
  static torch::Tensor draw(size_t index) {
    std::mt19937 rng(uint32_t(index) * 2654435761u + 1);
    std::uniform_real_distribution<float> coord(4.0f, 24.0f);
    const int strokes = 2 + int(rng() % 3);
    torch::Tensor image = torch::zeros({1, kSide, kSide});
    float* px = image.data_ptr<float>();
    for (int s = 0; s < strokes; ++s) {
      const float x0 = coord(rng), y0 = coord(rng), x1 = coord(rng), y1 = coord(rng);
      const float dx = x1 - x0, dy = y1 - y0, length2 = std::max(dx * dx + dy * dy, 1e-3f);
      for (int y = 0; y < kSide; ++y) {
        for (int x = 0; x < kSide; ++x) {
          const float t = std::clamp(((x - x0) * dx + (y - y0) * dy) / length2, 0.0f, 1.0f);
          const float ex = x - (x0 + t * dx), ey = y - (y0 + t * dy);
          const float ink = std::clamp(2.0f - std::sqrt(ex * ex + ey * ey), 0.0f, 1.0f);
          px[y * kSide + x] = std::max(px[y * kSide + x], ink);
        }
      }
    }
    return image;
  }

  // Spins for `us` microseconds: the price of a slow input stage.
  static void burn(int64_t us) {
    if (us <= 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
    volatile uint64_t sink = 0;
    while (std::chrono::steady_clock::now() < until) sink = sink + 1;
  }

  size_t size_;
  int64_t cost_us_;
};
