#include "cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace mlprof::cli {
namespace {
constexpr auto kShowAfter = std::chrono::milliseconds(300);  // quick loads never flash a bar
constexpr int kWidth = 30;
}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (shown_) std::fprintf(stderr, "\r\033[2K");
}

void ProgressBar::update(double fraction) {
  if (!terminal_) return;
  const int percent = int(std::clamp(fraction, 0.0, 1.0) * 100.0);
  if (percent == last_percent_) return;
  if (!shown_ && std::chrono::steady_clock::now() - start_ < kShowAfter) return;
  last_percent_ = percent;
  shown_ = true;
  const int filled = percent * kWidth / 100;
  std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%", label_.c_str(), filled,
               "##############################", kWidth - filled, "", percent);
  std::fflush(stderr);
}

}  // namespace mlprof::cli
