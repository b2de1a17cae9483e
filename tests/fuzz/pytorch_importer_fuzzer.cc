// libFuzzer target: the PyTorch trace importer (model/pytorch/importer.h) on bytes that are
// JSON or gzip-compressed JSON, through its public entry point. The result is either a
// one-line error with no host added, or a Profile every tool can walk.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "fuzz/profile_invariants.h"
#include "model/pytorch/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mlprof::fuzz::check;
  mlprof::model::Profile profile;
  std::string error;
  if (!mlprof::model::import_pytorch_trace_bytes(data, size, "fuzz", &profile, &error)) {
    mlprof::fuzz::check_one_line_error(error);
    check(profile.hosts.empty(), "a rejected trace adds no host");
    return 0;
  }
  check(profile.hosts.size() == 1, "an imported trace is one host");
  mlprof::fuzz::check_profile(profile);
  return 0;
}
