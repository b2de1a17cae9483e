// A property a fuzz target checks on what the code under test returned. A broken one aborts,
// which libFuzzer reports as a crash (with the input saved) and the regression test as a
// failed test.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace mlprof::fuzz {

inline void check(bool ok, std::string_view what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %.*s\n", int(what.size()), what.data());
  std::abort();
}

// Errors are one line, without the path (the callers add it), and never empty.
inline void check_one_line_error(std::string_view error) {
  check(!error.empty(), "a rejected input comes with a reason");
  if (error.find('\n') != std::string_view::npos) {
    std::fprintf(stderr, "the reason: %.*s\n", int(error.size()), error.data());
    check(false, "the reason is one line");
  }
}

}  // namespace mlprof::fuzz
