// Gzip traces inflate the same with both engines (ISA-L's igzip when the build has it, and
// zlib), straight into the reader's buffer: real files, several members, a reader that takes
// one byte at a time or stops early, and broken input.
#include <gtest/gtest.h>

#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/gzip_bytes.h"
#include "model/pytorch/trace_file.h"
#include "model/profile_equal.h"
#include "model/pytorch/importer.h"

namespace mlprof::model {
namespace {

using testing::gzip;

constexpr GzipEngine kEngines[] = {GzipEngine::kFastest, GzipEngine::kZlib};
const std::string kDir = std::string(MLPROF_TESTDATA) + "/pytorch";

struct Text {
  bool ok = false;
  std::string text, error;
};

Text inflate_all(kineto::JsonSource& source, size_t piece) {
  Text r;
  std::vector<char> buffer(piece);
  size_t got = 0;
  while ((r.ok = source.read(buffer.data(), buffer.size(), &got, &r.error)) && got > 0) r.text.append(buffer.data(), got);
  return r;
}

Text inflate_bytes(const std::string& gz, GzipEngine engine, size_t piece = 1 << 16) {
  kineto::JsonSource source;
  source.open_bytes(gz.data(), gz.size(), engine);
  return inflate_all(source, piece);
}

// Text that compresses to several deflate blocks and fills several of the reader's buffers.
std::string many_megabytes() {
  std::string text;
  for (uint64_t i = 0; text.size() < (size_t(9) << 20); ++i) text += "{\"name\": \"op" + std::to_string(i * 7919 % 100003) + "\"},\n";
  return text;
}

TEST(GzipInflate, BothEnginesAreThere) {
  EXPECT_STREQ(gzip_engine_name(GzipEngine::kZlib), "zlib");
  // The project's bootstrap installs libisal-dev: a build without it falls back to zlib.
  EXPECT_STREQ(gzip_engine_name(GzipEngine::kFastest), have_igzip() ? "igzip" : "zlib");
}

// ISA-L's igzip decodes with its AVX2 kernel on any processor that has AVX2 (it has none wider).
TEST(GzipInflate, NamesTheKernelItInflatesWith) {
  EXPECT_EQ(gzip_kernel_name(GzipEngine::kZlib), "zlib");
#if defined(__x86_64__)
  if (have_igzip() && __builtin_cpu_supports("avx2")) EXPECT_EQ(gzip_kernel_name(GzipEngine::kFastest), "igzip avx2");
#endif
  EXPECT_EQ(gzip_kernel_name(GzipEngine::kFastest).rfind(gzip_engine_name(GzipEngine::kFastest), 0), 0u);
}

TEST(GzipInflate, LargeTextInAnyPieceSize) {
  const std::string text = many_megabytes(), gz = gzip(text, Z_DEFAULT_COMPRESSION);
  for (GzipEngine engine : kEngines) {
    SCOPED_TRACE(gzip_engine_name(engine));
    for (size_t piece : {size_t(1) << 20, size_t(4096), size_t(3 << 20)}) {
      const Text r = inflate_bytes(gz, engine, piece);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_TRUE(r.text == text) << "piece " << piece << ": " << r.text.size() << " bytes of " << text.size();
    }
    const Text small = inflate_bytes(gz.substr(0, 0) + gzip("{}"), engine, 1);
    EXPECT_EQ(small.text, "{}");
  }
}

TEST(GzipInflate, MembersFollowOneAnotherAndTrailingBytesAreIgnored) {
  const std::string gz = gzip("first ") + gzip("") + gzip("second", Z_BEST_COMPRESSION) + std::string(5, '\0');
  for (GzipEngine engine : kEngines) {
    SCOPED_TRACE(gzip_engine_name(engine));
    const Text r = inflate_bytes(gz, engine);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.text, "first second");
  }
}

TEST(GzipInflate, BrokenInputSaysWhatIsWrong) {
  const std::string text = many_megabytes(), gz = gzip(text);
  std::string bad_crc = gzip("{\"traceEvents\": []}");
  bad_crc[bad_crc.size() - 6] ^= 0x55;  // the trailer's CRC-32
  std::string bad_block = gz;
  bad_block[10] = char(0xff);  // the first block's header: a reserved block type
  for (GzipEngine engine : kEngines) {
    SCOPED_TRACE(gzip_engine_name(engine));
    for (size_t cut : {size_t(10), gz.size() / 2, gz.size() - 4}) {
      const Text r = inflate_bytes(gz.substr(0, cut), engine);
      EXPECT_FALSE(r.ok);
      EXPECT_EQ(r.error, "truncated gzip data") << "cut at " << cut;
    }
    const Text crc = inflate_bytes(bad_crc, engine);
    EXPECT_FALSE(crc.ok);
    EXPECT_EQ(crc.error, "corrupt gzip data (incorrect data check)");
    const Text block = inflate_bytes(bad_block, engine);
    EXPECT_FALSE(block.ok);
    EXPECT_EQ(block.error.rfind("corrupt gzip data (", 0), 0u) << block.error;
  }
}

// The reader may stop early (a JSON error in the first piece): the source goes with the rest
// of the text never inflated.
TEST(GzipInflate, ReaderThatStopsEarly) {
  const std::string gz = gzip(many_megabytes());
  for (GzipEngine engine : kEngines) {
    for (int i = 0; i < 20; ++i) {
      kineto::JsonSource source;
      source.open_bytes(gz.data(), gz.size(), engine);
      char c[16];
      size_t got = 0;
      std::string error;
      ASSERT_TRUE(source.read(c, sizeof c, &got, &error));
      EXPECT_EQ(got, sizeof c);
    }
  }
}

// df_index_resolver's trace inflates to 53,733,385 bytes (`gzip -dc FILE | wc -c`, gzip 1.12)
// with both engines, and imports to the same model.
TEST(GzipInflate, RealTraceWithBothEngines) {
  const std::string path = kDir + "/df_index_resolver__df_index_resolver.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found (needs ../shared/testdata)";
  uLong crc[2] = {};
  for (int k = 0; k < 2; ++k) {
    kineto::JsonSource source;
    std::string error;
    ASSERT_TRUE(source.open_file(path, &error, kEngines[k])) << error;
    const Text r = inflate_all(source, 1 << 20);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.text.size(), 53733385u);
    crc[k] = crc32(0, reinterpret_cast<const Bytef*>(r.text.data()), uInt(r.text.size()));
    EXPECT_EQ(source.input_read(), std::filesystem::file_size(path));
  }
  EXPECT_EQ(crc[0], crc[1]);

  const std::string small = kDir + "/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  std::string error;
  Profile fast, zlib;
  ASSERT_TRUE(import_pytorch_trace_file(small, "h", &fast, &error)) << error;
  kineto::JsonSource source;
  ASSERT_TRUE(source.open_file(small, &error, GzipEngine::kZlib)) << error;
  const Text text = inflate_all(source, 1 << 20);
  ASSERT_TRUE(text.ok);
  ASSERT_TRUE(import_pytorch_trace_bytes(text.text.data(), text.text.size(), "h", &zlib, &error)) << error;
  testing::expect_same_profile(fast, zlib);
}

}  // namespace
}  // namespace mlprof::model
