// A LibTorch training program with no profiling code at all: the mlprof run tests profile
// it through the preloaded integration. Usage: plain_training [STEPS]
#include <torch/torch.h>

#include <cstdlib>

#include "tiny_model.h"

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 12;
  torch::manual_seed(0);
  mlprof::testing::TinyNet net;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01));
  mlprof::testing::train(net, optimizer, steps);
  return 0;
}
