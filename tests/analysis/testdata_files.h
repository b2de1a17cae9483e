// Finding real profiles in ../shared/testdata by a part of their name (some names carry a host
// name that is long and may change between copies of the data).
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "model/load_profile.h"

namespace mlprof::testing {

// The file in `dir` whose name contains `part`; empty when `dir` or the file is absent.
inline std::filesystem::path testdata_file_named(const std::filesystem::path& dir, std::string_view part) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return {};
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().find(part) != std::string::npos) return e.path();
  return {};
}

// Loads `file` (a path under ../shared/testdata) into `p`; false when it is absent (the caller
// skips), a test failure when it does not load.
inline bool load_testdata_profile(const std::string& file, model::Profile* p) {
  const std::string path = std::string(MLPROF_TESTDATA) + "/" + file;
  if (!std::filesystem::exists(path)) return false;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({path, "", ""}, p, &error)) << error.path << ": " << error.problem;
  return true;
}

// The whole text of a gzip file (XProf's golden answers, Kineto traces), read with zlib
// independently of mlprof's readers; empty when it cannot be opened. Tests that call it link zlib.
inline std::string gunzip(const std::string& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  gzclose(f);
  return out;
}

}  // namespace mlprof::testing
