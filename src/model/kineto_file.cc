#include "model/kineto_file.h"

#include <zlib.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace mlprof::model::kineto {
namespace {

constexpr size_t kPadding = 64;  // simdjson::SIMDJSON_PADDING
constexpr size_t kReadChunk = size_t(1) << 20;
constexpr const char* kTooLarge = "more than 4 GiB of JSON, the parser's limit for one document";

bool is_gzip(const unsigned char* bytes, size_t size) { return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

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

// Compressed input, chunk by chunk; a chunk of size 0 is the end.
class JsonText::ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual bool next(const unsigned char** chunk, size_t* size, std::string* error) = 0;
};

namespace {

class MemorySource final : public JsonText::ByteSource {
 public:
  MemorySource(const unsigned char* bytes, size_t size) : bytes_(bytes), size_(size) {}
  bool next(const unsigned char** chunk, size_t* size, std::string*) override {
    *chunk = bytes_;
    *size = std::min<size_t>(size_, UINT32_MAX);  // zlib counts in 32 bits
    bytes_ += *size;
    size_ -= *size;
    return true;
  }

 private:
  const unsigned char* bytes_;
  size_t size_;
};

class FileSource final : public JsonText::ByteSource {
 public:
  FileSource(int fd, const unsigned char* prefix, size_t prefix_size)
      : fd_(fd), buffer_(kReadChunk), prefix_(prefix, prefix + prefix_size) {}
  bool next(const unsigned char** chunk, size_t* size, std::string* error) override {
    if (!prefix_.empty()) {
      buffer_.assign(prefix_.begin(), prefix_.end());
      prefix_.clear();
      *chunk = buffer_.data();
      *size = buffer_.size();
      buffer_.resize(kReadChunk);
      return true;
    }
    const ssize_t n = read_fully(fd_, buffer_.data(), buffer_.size());
    if (n < 0) {
      *error = std::strerror(errno);
      return false;
    }
    *chunk = buffer_.data();
    *size = size_t(n);
    return true;
  }

 private:
  int fd_;
  std::vector<unsigned char> buffer_;
  std::vector<unsigned char> prefix_;  // bytes already read to sniff the format
};

}  // namespace

void JsonText::release() {
  if (mapped_bytes_ > 0) ::munmap(data_, mapped_bytes_);
  else std::free(data_);
  data_ = nullptr;
  size_ = capacity_ = mapped_bytes_ = 0;
}

bool JsonText::reserve(size_t size, std::string* error) {
  if (size > kMaxJsonBytes) {
    *error = kTooLarge;
    return false;
  }
  if (size + kPadding <= capacity_) return true;
  const size_t capacity = size + kPadding;
  void* grown = std::realloc(data_, capacity);
  if (grown == nullptr) {
    *error = "out of memory for " + std::to_string(size >> 20) + " MiB of JSON";
    return false;
  }
  data_ = static_cast<char*>(grown);
  capacity_ = capacity;
  return true;
}

// Maps the file instead of copying it: the mapping sits at the start of a zeroed anonymous
// region one padding longer, so the parser may read past the end of the file.
bool JsonText::map_file(int fd, size_t size, std::string* error) {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  const size_t total = (size + kPadding + page - 1) / page * page;
  void* region = ::mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    *error = std::string("cannot map the file (") + std::strerror(errno) + ")";
    return false;
  }
  if (::mmap(region, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0) == MAP_FAILED) {
    *error = std::string("cannot map the file (") + std::strerror(errno) + ")";
    ::munmap(region, total);
    return false;
  }
  data_ = static_cast<char*>(region);
  size_ = size;
  capacity_ = total;
  mapped_bytes_ = total;
  return true;
}

void JsonText::finish(size_t size) {
  size_ = size;
  std::memset(data_ + size_, 0, kPadding);
}

bool JsonText::assign(const void* bytes, size_t size, std::string* error) {
  release();
  const auto* b = static_cast<const unsigned char*>(bytes);
  if (is_gzip(b, size)) {
    uint32_t hint = 0;
    if (size >= 18) std::memcpy(&hint, b + size - 4, 4);
    MemorySource source(b, size);
    return inflate(source, hint, error);
  }
  if (!reserve(size, error)) return false;
  if (size > 0) std::memcpy(data_, bytes, size);
  finish(size);
  return true;
}

bool JsonText::read_file(const std::string& path, std::string* error) {
  release();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "is a directory, expected a trace .json or .json.gz file";
    return false;
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  unsigned char magic[2] = {0, 0};
  const ssize_t got = read_fully(fd, magic, sizeof magic);
  if (got < 0) {
    *error = std::strerror(errno);
    return false;
  }
  if (is_gzip(magic, size_t(got))) {
    // The gzip trailer holds the uncompressed size modulo 4 GiB: a hint for one allocation.
    uint32_t hint = 0;
    if (st.st_size < 18 || ::pread(fd, &hint, 4, st.st_size - 4) != 4) hint = 0;
    FileSource source(fd, magic, size_t(got));
    return inflate(source, hint, error);
  }
  const uint64_t file_size = uint64_t(std::max<off_t>(st.st_size, 0));
  if (file_size > kMaxJsonBytes) {
    *error = kTooLarge;
    return false;
  }
  // A regular file is mapped; what cannot be (a pipe, /proc) is read into one buffer.
  if (S_ISREG(st.st_mode) && file_size > 0) return map_file(fd, size_t(file_size), error);
  if (!reserve(size_t(file_size), error)) return false;
  std::memcpy(data_, magic, size_t(got));
  size_t size = size_t(got);
  for (;;) {
    if (size + kPadding >= capacity_ && !reserve(std::max(size + kReadChunk, 2 * (capacity_ - kPadding)), error))
      return false;
    const size_t room = capacity_ - kPadding - size;
    const ssize_t n = read_fully(fd, data_ + size, room);
    if (n < 0) {
      *error = std::strerror(errno);
      return false;
    }
    size += size_t(n);
    if (size_t(n) < room) break;  // a short read: the end of the file
  }
  finish(size);
  return true;
}

// Several gzip members are read one after another, as gunzip does; bytes after the last
// member that do not start another one are ignored, as gunzip does.
bool JsonText::inflate(ByteSource& source, uint64_t size_hint, std::string* error) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) {
    *error = "cannot start gzip decompression";
    return false;
  }
  struct Ender {
    z_stream* zs;
    ~Ender() { inflateEnd(zs); }
  } ender{&zs};
  if (!reserve(size_t(std::clamp<uint64_t>(size_hint, kReadChunk, kMaxJsonBytes)), error)) return false;
  size_t out = 0;
  bool input_done = false;
  auto refill = [&]() -> bool {
    const unsigned char* chunk = nullptr;
    size_t n = 0;
    if (!source.next(&chunk, &n, error)) return false;
    if (n == 0) input_done = true;
    zs.next_in = const_cast<unsigned char*>(chunk);
    zs.avail_in = uInt(n);
    return true;
  };
  for (;;) {
    if (zs.avail_in == 0 && !input_done && !refill()) return false;
    if (out + kPadding >= capacity_ && !reserve(std::max(out + kReadChunk, 2 * (capacity_ - kPadding)), error))
      return false;
    zs.next_out = reinterpret_cast<unsigned char*>(data_ + out);
    zs.avail_out = uInt(std::min<size_t>(capacity_ - kPadding - out, UINT32_MAX));
    const uInt room = zs.avail_out;
    const int rc = ::inflate(&zs, Z_NO_FLUSH);
    out += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0 && !input_done && !refill()) return false;
      if (zs.avail_in >= 2 && is_gzip(zs.next_in, zs.avail_in)) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR || rc == Z_OK) {
      if (zs.avail_in == 0 && input_done && zs.avail_out != 0) {
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
  finish(out);
  return true;
}

}  // namespace mlprof::model::kineto
