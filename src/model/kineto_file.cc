#include "model/kineto_file.h"

#include <zlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mlprof::model::kineto {
namespace {

constexpr size_t kInputChunk = size_t(256) << 10;

bool is_gzip(const unsigned char* bytes, size_t size) { return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

// Reads until `size` bytes or the end of the file; returns the count, or -1 on error.
ssize_t read_fully(int fd, void* buffer, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, static_cast<char*>(buffer) + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += size_t(n);
  }
  return ssize_t(done);
}

}  // namespace

struct JsonSource::Inflater {
  z_stream zs{};
  bool started = false;
  ~Inflater() {
    if (started) inflateEnd(&zs);
  }
};

JsonSource::JsonSource() = default;

JsonSource::~JsonSource() {
  if (fd_ >= 0) ::close(fd_);
}

bool JsonSource::open_file(const std::string& path, std::string* error) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    *error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "is a directory, expected a trace .json or .json.gz file";
    return false;
  }
  input_size_ = uint64_t(std::max<off_t>(st.st_size, 0));
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  sniffed_.resize(2);
  const ssize_t got = read_fully(fd_, sniffed_.data(), sniffed_.size());
  if (got < 0) {
    *error = std::strerror(errno);
    return false;
  }
  sniffed_.resize(size_t(got));
  input_read_ = size_t(got);
  gzip_ = is_gzip(sniffed_.data(), sniffed_.size());
  return true;
}

void JsonSource::open_bytes(const void* bytes, size_t size) {
  bytes_ = static_cast<const unsigned char*>(bytes);
  input_size_ = size;
  gzip_ = is_gzip(bytes_, size);
}

bool JsonSource::read(char* out, size_t room, size_t* got, std::string* error) {
  *got = 0;
  if (room == 0) return true;
  return gzip_ ? inflate(out, room, got, error) : read_plain(out, room, got, error);
}

bool JsonSource::read_plain(char* out, size_t room, size_t* got, std::string* error) {
  if (bytes_ != nullptr || fd_ < 0) {
    const size_t n = size_t(std::min<uint64_t>(room, input_size_ - input_read_));
    if (n > 0) std::memcpy(out, bytes_ + input_read_, n);
    input_read_ += n;
    *got = n;
    return true;
  }
  size_t done = 0;
  if (!sniffed_.empty()) {
    done = std::min(room, sniffed_.size());
    std::memcpy(out, sniffed_.data(), done);
    sniffed_.erase(sniffed_.begin(), sniffed_.begin() + ptrdiff_t(done));
  }
  const ssize_t n = read_fully(fd_, out + done, room - done);
  if (n < 0) {
    *error = std::strerror(errno);
    return false;
  }
  input_read_ += uint64_t(n);
  *got = done + size_t(n);
  return true;
}

bool JsonSource::next_input(std::string* error) {
  z_stream& zs = inflater_->zs;
  if (fd_ < 0) {  // bytes in memory: all of them at once (zlib counts in 32 bits)
    const size_t n = size_t(std::min<uint64_t>(input_size_ - input_read_, UINT32_MAX));
    zs.next_in = const_cast<unsigned char*>(bytes_ + input_read_);
    zs.avail_in = uInt(n);
    input_read_ += n;
    input_done_ = n == 0;
    return true;
  }
  input_.resize(kInputChunk);
  size_t have = 0;
  if (!sniffed_.empty()) {
    std::memcpy(input_.data(), sniffed_.data(), sniffed_.size());
    have = sniffed_.size();
    sniffed_.clear();
  }
  const ssize_t n = read_fully(fd_, input_.data() + have, input_.size() - have);
  if (n < 0) {
    *error = std::strerror(errno);
    return false;
  }
  input_read_ += uint64_t(n);
  have += size_t(n);
  zs.next_in = input_.data();
  zs.avail_in = uInt(have);
  input_done_ = have == 0;
  return true;
}

// Several gzip members are read one after another, as gunzip does; bytes after the last
// member that do not start another one are ignored, as gunzip does.
bool JsonSource::inflate(char* out, size_t room, size_t* got, std::string* error) {
  if (!inflater_) {
    inflater_ = std::make_unique<Inflater>();
    if (inflateInit2(&inflater_->zs, 15 + 16) != Z_OK) {
      *error = "cannot start gzip decompression";
      return false;
    }
    inflater_->started = true;
  }
  z_stream& zs = inflater_->zs;
  const uInt capacity = uInt(std::min<size_t>(room, UINT32_MAX));
  zs.next_out = reinterpret_cast<unsigned char*>(out);
  zs.avail_out = capacity;
  while (!stream_end_ && zs.avail_out == capacity) {
    if (zs.avail_in == 0 && !input_done_ && !next_input(error)) return false;
    const int rc = ::inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0 && !input_done_ && !next_input(error)) return false;
      if (zs.avail_in >= 2 && is_gzip(zs.next_in, zs.avail_in)) {
        inflateReset(&zs);
        continue;
      }
      stream_end_ = true;
      break;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) {
      if (zs.avail_in == 0 && input_done_ && zs.avail_out == capacity) {
        *error = "truncated gzip data";
        return false;
      }
      continue;
    }
    if (rc == Z_MEM_ERROR) {
      *error = "out of memory while decompressing";
      return false;
    }
    *error = std::string("corrupt gzip data (") + (zs.msg != nullptr ? zs.msg : "inflate failed") + ")";
    return false;
  }
  *got = capacity - zs.avail_out;
  return true;
}

}  // namespace mlprof::model::kineto
