// Replays every committed fuzz input through its target's entry point: the seed corpus
// (tests/fuzz/corpus/<target>/) and the inputs of past findings (tests/fuzz/regressions/
// <target>/), so that `make test` keeps every fixed crash fixed. The targets' entry points
// are compiled in under the names CMakeLists.txt gives them (<target>_fuzz_one_input).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_targets.h"  // generated: FUZZ_TARGET(name) for each target built

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(MLPROF_SOURCE_DIR) / "tests/fuzz" / kind / target;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void replay(const std::string& target, int (*one_input)(const uint8_t*, size_t)) {
  const auto files = inputs_of(target);
  ASSERT_FALSE(files.empty()) << "no corpus for fuzz target " << target << " under tests/fuzz/corpus/" << target;
  for (const auto& file : files) {
    // Said before the run: a crash ends the process, and this line names the input.
    std::fprintf(stderr, "replaying %s\n", file.string().c_str());
    const std::string bytes = read_bytes(file);
    EXPECT_EQ(one_input(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0) << file;
  }
}

}  // namespace

#define FUZZ_TARGET(name)                                         \
  extern "C" int name##_fuzz_one_input(const uint8_t*, size_t); \
  TEST(FuzzRegression, name) { replay(#name, name##_fuzz_one_input); }
MLPROF_FUZZ_TARGETS
