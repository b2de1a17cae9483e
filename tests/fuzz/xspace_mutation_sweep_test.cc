// A seeded sweep of structured mutants (xspace_mutations.h) of the real XSpace files in
// ../shared/testdata through the importer, every tool and the Chrome export, as `mlprof report
// --format json` and `mlprof convert` run them. Each mutant is refused in one line, or read
// into output that is valid UTF-8 (JSON written with the strict encoder, which throws on
// anything else) and a trace export within a small multiple of the input. The same mutations
// drive `make fuzz`'s xspace_importer target for as long as it is given.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "analysis/analyzed_profile.h"
#include "analysis/tool_registry.h"
#include "analysis/trace_viewer/trace_export.h"
#include "format/chrome_trace_writer.h"
#include "format/utf8_text.h"
#include "fuzz/xspace_mutations.h"
#include "model/xspace/importer.h"

namespace mlprof::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr int kMutantsPerFile = 12;
constexpr size_t kLargestFile = size_t(1) << 20;  // larger files make each mutant slow

std::vector<fs::path> real_xspace_files() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(MLPROF_TESTDATA, ec); !ec && it != fs::end(it); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.ends_with(".xplane.pb") && name.find("CORRUPT") == std::string::npos &&
        it->file_size() <= kLargestFile)
      files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(XSpaceMutationSweep, EveryMutantIsRefusedOrReadIntoValidOutput) {
  const auto files = real_xspace_files();
  if (files.empty()) GTEST_SKIP() << "no .xplane.pb under " << MLPROF_TESTDATA << " (the real profiles are in ../shared/testdata)";
  const fs::path out_dir = fs::temp_directory_path() / ("mlprof_sweep_" + std::to_string(::getpid()));
  fs::create_directories(out_dir);
  int read = 0, refused = 0;
  for (const fs::path& file : files) {
    const std::string original = read_bytes(file);
    for (int seed = 0; seed < kMutantsPerFile; ++seed) {
      std::mt19937_64 rng(uint64_t(seed) * 7919 + original.size());
      std::string bytes = original;
      if (!mutate_xspace(bytes, rng, original.size() * 2 + (size_t(1) << 20))) continue;
      const std::string what = file.filename().string() + " mutant " + std::to_string(seed);
      model::Profile profile;
      std::string error;
      if (!model::import_xspace_bytes(bytes.data(), bytes.size(), "h", &profile, &error)) {
        EXPECT_EQ(error.find('\n'), std::string::npos) << what << ": " << error;
        EXPECT_TRUE(format::is_valid_utf8(error)) << what;
        ++refused;
        continue;
      }
      ++read;
      analysis::AnalyzedProfile analyzed(std::move(profile));
      for (const analysis::Tool& tool : analysis::tools()) {
        if (!tool.has_data(analyzed)) continue;
        try {
          const std::string json = analysis::run_tool(tool, analyzed, {}).json().dump();
          EXPECT_FALSE(json.empty()) << what << " " << tool.id;
        } catch (const std::exception& e) {
          ADD_FAILURE() << what << ", " << tool.id << ": " << e.what();
        }
      }
      const fs::path chrome = out_dir / "trace.json";
      {
        format::TraceOutputFile out(chrome.string());
        format::ChromeTraceWriter writer(out);
        EXPECT_TRUE(analysis::write_trace(analyzed.profile(), writer, &error)) << what << ": " << error;
      }
      const std::string exported = read_bytes(chrome);
      EXPECT_TRUE(format::is_valid_utf8(exported)) << what;
      EXPECT_LE(exported.size(), 40 * bytes.size() + (size_t(1) << 20)) << what;
    }
  }
  fs::remove_all(out_dir);
  std::printf("%d mutants read, %d refused, from %zu files\n", read, refused, files.size());
  EXPECT_GT(read + refused, 0);
}

}  // namespace
}  // namespace mlprof::fuzz
