// A small model and training loop the torch tests profile.
#pragma once

#include <torch/torch.h>

namespace mlprof::testing {

struct TinyNetImpl : torch::nn::Module {
  TinyNetImpl()
      : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3).padding(1)))),
        fc(register_module("fc", torch::nn::Linear(4 * 4 * 4, 2))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(conv->forward(x)), 2);
    return fc->forward(x.flatten(1));
  }
  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
};
TORCH_MODULE(TinyNet);

// Runs `steps` training steps on fixed data.
inline void train(TinyNet& net, torch::optim::Optimizer& optimizer, int steps) {
  const torch::Tensor x = torch::ones({2, 1, 8, 8});
  const torch::Tensor y = torch::zeros({2, 2});
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    optimizer.step();
  }
}

}  // namespace mlprof::testing
