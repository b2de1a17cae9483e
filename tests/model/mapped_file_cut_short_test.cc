// An XSpace file is mapped while it is read: one that another process writes again shorter
// meanwhile reads as zeros past its new end, not a SIGBUS that ends the process, and the
// mapping says so (the importer then fails with that reason).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "format/scratch_dir.h"
#include "model/cut_short_guard.h"
#include "model/xspace/mapped_file.h"

namespace mlprof::model {
namespace {

TEST(MappedFile, AFileCutShortWhileMappedReadsAsZerosAndSaysSo) {
  testing::ScratchDir dir;
  const std::string path = dir / "space.xplane.pb";
  constexpr size_t kSize = size_t(1) << 20;
  std::ofstream(path, std::ios::binary) << std::string(kSize, 'x');
  xspace::MappedFile file;
  std::string error;
  ASSERT_TRUE(file.open(path, &error)) << error;
  EXPECT_FALSE(file.cut_short());
  std::filesystem::resize_file(path, 1000);
  EXPECT_EQ(file.data()[999], 'x');
  EXPECT_EQ(file.data()[kSize - 1], 0);
  EXPECT_EQ(file.data()[kSize / 2], 0);
  EXPECT_TRUE(file.cut_short());
}

// A guard released no longer claims its range; another mapping's guard is its own.
TEST(MappedFile, GuardsAreEachTheirOwn) {
  testing::ScratchDir dir;
  const std::string a = dir / "a.pb", b = dir / "b.pb";
  std::ofstream(a, std::ios::binary) << std::string(size_t(1) << 16, 'a');
  std::ofstream(b, std::ios::binary) << std::string(size_t(1) << 16, 'b');
  xspace::MappedFile fa, fb;
  std::string error;
  ASSERT_TRUE(fa.open(a, &error)) << error;
  ASSERT_TRUE(fb.open(b, &error)) << error;
  std::filesystem::resize_file(b, 10);
  EXPECT_EQ(fb.data()[(size_t(1) << 16) - 1], 0);
  EXPECT_TRUE(fb.cut_short());
  EXPECT_FALSE(fa.cut_short());
  EXPECT_EQ(fa.data()[(size_t(1) << 16) - 1], 'a');
}

}  // namespace
}  // namespace mlprof::model
