#include "format/xspace_reader.h"

#include <google/protobuf/io/coded_stream.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace mlprof::format {
namespace {

bool has_unknown_fields(const google::protobuf::Message& m) {
  return !m.GetReflection()->GetUnknownFields(m).empty();
}

}  // namespace

bool parse_xspace(const void* data, size_t size, tensorflow::profiler::XSpace* space,
                  std::string* error) {
  if (size == 0) {
    *error = "empty file";
    return false;
  }
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data), int(std::min<size_t>(size, INT_MAX)));
  in.SetTotalBytesLimit(INT_MAX);
  if (!space->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    *error = "not a valid XSpace protobuf (truncated or corrupt)";
    return false;
  }
  // Arbitrary bytes often parse as a message made only of unknown fields; a real XSpace
  // uses only the fields we know, at least at the top two levels.
  bool foreign = has_unknown_fields(*space);
  for (const auto& plane : space->planes()) foreign = foreign || has_unknown_fields(plane);
  if (foreign || (space->planes_size() == 0 && space->hostnames_size() == 0 &&
                  space->errors_size() == 0 && space->warnings_size() == 0)) {
    *error = "not an XSpace profile (no planes)";
    return false;
  }
  return true;
}

bool read_xspace(const std::string& path, tensorflow::profiler::XSpace* space, std::string* error) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "is a directory, expected an .xplane.pb file";
    return false;
  }
  if (st.st_size >= INT_MAX) {
    *error = "larger than 2 GiB, the protobuf message limit";
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = std::strerror(errno);
    return false;
  }
  std::string bytes(size_t(st.st_size), '\0');
  if (!f.read(bytes.data(), std::streamsize(bytes.size()))) {
    *error = "read failed";
    return false;
  }
  return parse_xspace(bytes.data(), bytes.size(), space, error);
}

}  // namespace mlprof::format
