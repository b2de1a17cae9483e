// A progress bar on stderr for long work (loading a large profile, converting). It stays
// silent when stderr is not a terminal, and for work that ends before it is worth showing.
#pragma once

#include <chrono>
#include <string>

namespace mlprof::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // erases the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(double fraction);

 private:
  std::string label_;
  bool terminal_;
  bool shown_ = false;
  int last_percent_ = -1;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace mlprof::cli
