#include "format/event_file.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "format/crc32c.h"
#include "format/logdir.h"

namespace mlprof::format {
namespace {

constexpr char kFileVersion[] = "brain.Event:2";
constexpr char kSuffix[] = ".profile-empty";

void append_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((value >> (8 * i)) & 0xffu));
}

// tensorflow.Event{wall_time = 1 (double), file_version = 3 (string)}.
std::string event_proto(double wall_time) {
  std::string out;
  out.push_back(char(0x09));  // field 1, 64-bit
  uint64_t bits = 0;
  std::memcpy(&bits, &wall_time, sizeof bits);
  append_le(out, bits, 8);
  out.push_back(char(0x1a));  // field 3, length-delimited
  out.push_back(char(sizeof kFileVersion - 1));
  out.append(kFileVersion, sizeof kFileVersion - 1);
  return out;
}

}  // namespace

std::string empty_event_file_bytes(double wall_time_seconds) {
  // TFRecord: uint64 length, masked crc of the length, data, masked crc of the data.
  const std::string data = event_proto(wall_time_seconds);
  std::string out;
  append_le(out, data.size(), 8);
  append_le(out, mask_crc(crc32c(out.data(), 8)), 4);
  out += data;
  append_le(out, mask_crc(crc32c(data.data(), data.size())), 4);
  return out;
}

std::string empty_event_file_name(int64_t unix_seconds, const std::string& host) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%010lld", static_cast<long long>(unix_seconds));
  return std::string("events.out.tfevents.") + seconds + "." + host + kSuffix;
}

bool ensure_empty_event_file(const std::string& logdir, const std::string& host,
                             int64_t unix_seconds, std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(logdir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() >= sizeof kSuffix - 1 &&
        name.compare(name.size() - (sizeof kSuffix - 1), std::string::npos, kSuffix) == 0) {
      return true;  // TensorBoard needs one per logdir, not one per run
    }
  }
  const std::string path = logdir + "/" + empty_event_file_name(unix_seconds, host);
  return write_file_atomically(path, empty_event_file_bytes(double(unix_seconds)), error);
}

}  // namespace mlprof::format
