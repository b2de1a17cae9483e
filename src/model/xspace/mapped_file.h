// An XSpace file mapped read-only, and the pages of it already read handed back to the kernel
// as the importer's two passes go, so that the file does not add to the process' memory.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/cut_short_guard.h"
#include "model/load_progress.h"

namespace mlprof::model::xspace {

// The whole file, mapped; unmapped when this goes.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  // Maps `path`. On failure returns false and sets `error` to a one-line reason without the path.
  bool open(const std::string& path, std::string* error);
  const uint8_t* data() const { return static_cast<const uint8_t*>(map_); }
  size_t size() const { return size_; }
  // Whether another process cut the file shorter while it was read (what was past its new end
  // read as zeros).
  bool cut_short() const { return guard_.cut_short(); }

 private:
  CutShortGuard guard_;
  void* map_ = nullptr;
  size_t size_ = 0;
};

// Drops the pages of a read-only mapping once they have been read (they stay in the page cache).
// It sees how far each of the two passes has read, so it also reports progress.
class PageReleaser {
 public:
  PageReleaser() = default;
  PageReleaser(const uint8_t* base, size_t size, const LoadProgress* progress)
      : base_(base), size_(size), progress_(progress) {}
  void release_before(const uint8_t* p) {
    if (base_ == nullptr || p == nullptr || p < base_ || p > base_ + size_) return;
    report(size_t(p - base_));
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t upto = size_t(p - base_) / page * page;
    if (upto <= released_) return;
    ::madvise(const_cast<uint8_t*>(base_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }
  void restart() {
    released_ = 0;
    ++pass_;
  }
  // The whole pages inside [from, to), from any thread (lines counted at once, each apart).
  void release_inside(const uint8_t* from, const uint8_t* to) const {
    if (base_ == nullptr || from < base_ || to > base_ + size_) return;
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t first = (uintptr_t(from) + page - 1) / page * page, last = uintptr_t(to) / page * page;
    if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  }

 private:
  // Each pass is half the work; reports are throttled to steps of 1 %.
  void report(size_t offset) {
    if (progress_ == nullptr || !*progress_ || size_ == 0) return;
    const double f = (double(pass_) + double(offset) / double(size_)) / 2.0;
    if (f < reported_ + 0.01) return;
    reported_ = f;
    (*progress_)(f);
  }

  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
  const LoadProgress* progress_ = nullptr;
  int pass_ = 0;
  double reported_ = 0;
};

}  // namespace mlprof::model::xspace
