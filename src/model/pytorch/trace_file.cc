#include "model/pytorch/trace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mlprof::model::kineto {
namespace {

constexpr size_t kInputChunk = size_t(256) << 10;

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

// A gzip member ends with the size of its text modulo 2^32: the text is at least as large as
// the compressed input, so the smallest such size not below it is the likeliest; and deflate
// makes at most 1032 bytes of one (a trailer that says more is not believed).
uint64_t gzip_text_size(const unsigned char (&trailer)[4], uint64_t compressed) {
  uint64_t size = uint64_t(trailer[0]) | uint64_t(trailer[1]) << 8 | uint64_t(trailer[2]) << 16 | uint64_t(trailer[3]) << 24;
  while (size < compressed) size += uint64_t(1) << 32;
  return std::min(size, compressed * 1032);
}

}  // namespace

JsonSource::JsonSource() = default;

JsonSource::~JsonSource() {
  if (fd_ >= 0) ::close(fd_);
}

bool JsonSource::open_file(const std::string& path, std::string* error, GzipEngine engine, IngestStages* stages) {
  stages_ = stages;
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
  regular_file_ = S_ISREG(st.st_mode);
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
  text_size_hint_ = input_size_;
  unsigned char trailer[4];
  if (gzip_ && input_size_ >= 18 && ::pread(fd_, trailer, 4, off_t(input_size_ - 4)) == 4)
    text_size_hint_ = gzip_text_size(trailer, input_size_);
  if (gzip_) start_inflating(engine);
  return true;
}

void JsonSource::open_bytes(const void* bytes, size_t size, GzipEngine engine) {
  bytes_ = static_cast<const unsigned char*>(bytes);
  input_size_ = size;
  gzip_ = is_gzip(bytes_, size);
  text_size_hint_ = size;
  if (gzip_ && size >= 18) {
    unsigned char trailer[4];
    std::memcpy(trailer, bytes_ + size - 4, 4);
    text_size_hint_ = gzip_text_size(trailer, size);
  }
  if (gzip_) start_inflating(engine);
}

bool JsonSource::rewind(std::string* error) {
  if (!can_rewind()) {
    *error = "the input cannot be read again from its start";
    return false;
  }
  if (fd_ >= 0 && ::lseek(fd_, 0, SEEK_SET) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  sniffed_.clear();
  input_read_ = 0;
  if (gzip_) start_inflating(engine_);
  return true;
}

void JsonSource::start_inflating(GzipEngine engine) {
  engine_ = engine;
  inflater_ = GzipInflater::make(
      engine, [this](const unsigned char** data, size_t* size, std::string* error) { return next_input(data, size, error); });
}

bool JsonSource::read(char* out, size_t room, size_t* got, std::string* error) {
  *got = 0;
  if (room == 0) return true;
  if (!gzip_) return read_plain(out, room, got, error);
  // Inflated straight into `out`: its time moves from the reader's stage to inflate.
  const int64_t begin = stages_ ? thread_cpu_ns() : 0;
  const bool ok = inflater_->read(reinterpret_cast<unsigned char*>(out), room, got, error);
  if (stages_ != nullptr) {
    const int64_t spent = thread_cpu_ns() - begin;
    stages_->add(IngestStages::kInflate, spent);
    stages_->add(IngestStages::kTokenise, -spent);
  }
  return ok;
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

bool JsonSource::next_input(const unsigned char** data, size_t* size, std::string* error) {
  if (fd_ < 0) {  // bytes in memory: all of them at once
    *data = bytes_ + input_read_;
    *size = size_t(input_size_ - input_read_);
    input_read_ = input_size_;
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
  *data = input_.data();
  *size = have + size_t(n);
  return true;
}

}  // namespace mlprof::model::kineto
