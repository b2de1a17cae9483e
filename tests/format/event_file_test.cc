#include "format/event_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "format/scratch_dir.h"

namespace mlprof::format {
namespace {

const std::string kReferenceName = "events.out.tfevents.1583461681.localhost.profile-empty";

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(EmptyEventFile, MatchesTensorFlowsFileByteForByte) {
  const std::string reference = std::string(MLPROF_TESTDATA) + "/tensorflow/" + kReferenceName;
  if (!std::filesystem::exists(reference)) {
    GTEST_SKIP() << "no TensorFlow test data at " << reference
                 << " (../shared/testdata is only beside CI checkouts)";
  }
  const std::string expected = read_all(reference);
  ASSERT_EQ(expected.size(), 40u);
  // TensorFlow wrote wall_time = 1583461681.0, the second in the file name.
  EXPECT_EQ(empty_event_file_bytes(1583461681.0), expected);
  EXPECT_EQ(empty_event_file_name(1583461681, "localhost"), kReferenceName);
}

TEST(EmptyEventFile, IsFortyBytesWithTenDigitSeconds) {
  EXPECT_EQ(empty_event_file_bytes(1700000000.0).size(), 40u);
  EXPECT_EQ(empty_event_file_name(42, "h"), "events.out.tfevents.0000000042.h.profile-empty");
}

TEST(EmptyEventFile, IsWrittenOncePerLogdir) {
  mlprof::testing::ScratchDir dir;
  std::string error;
  ASSERT_TRUE(ensure_empty_event_file(dir.path(), "host", 1700000000, &error)) << error;
  ASSERT_TRUE(ensure_empty_event_file(dir.path(), "host", 1700000005, &error)) << error;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "events.out.tfevents.1700000000.host.profile-empty");
    EXPECT_EQ(read_all(entry.path().string()), empty_event_file_bytes(1700000000.0));
  }
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace mlprof::format
