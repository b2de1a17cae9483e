#include "model/xspace/mapped_file.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace mlprof::model::xspace {

MappedFile::~MappedFile() {
  guard_.release();
  if (map_ != nullptr) ::munmap(map_, size_);
}

bool MappedFile::open(const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const int stat_errno = errno;
  void* map = MAP_FAILED;
  if (stat_ok && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < INT_MAX)
    map = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (!stat_ok) {
    *error = std::strerror(stat_errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "is a directory, expected an .xplane.pb file";
    return false;
  }
  if (st.st_size == 0) {
    *error = "empty file";
    return false;
  }
  if (st.st_size >= INT_MAX) {
    *error = "larger than 2 GiB, the protobuf message limit";
    return false;
  }
  if (map == MAP_FAILED) {
    *error = std::string("cannot map the file: ") + std::strerror(map_errno);
    return false;
  }
  map_ = map;
  size_ = size_t(st.st_size);
  guard_.guard(map_, size_);
  ::madvise(map_, size_, MADV_SEQUENTIAL);
  return true;
}

}  // namespace mlprof::model::xspace
