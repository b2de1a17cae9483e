// Finding real profiles in ../shared/testdata by a part of their name (some names carry a host
// name that is long and may change between copies of the data).
#pragma once

#include <filesystem>
#include <string_view>

namespace mlprof::testing {

// The file in `dir` whose name contains `part`; empty when `dir` or the file is absent.
inline std::filesystem::path testdata_file_named(const std::filesystem::path& dir, std::string_view part) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return {};
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().find(part) != std::string::npos) return e.path();
  return {};
}

}  // namespace mlprof::testing
