// A file mapped for reading faults (SIGBUS) where another process has cut it shorter since:
// a profile written again under the same name while it is read. While a guard is held over a
// mapping, such a fault reads zeros instead, and the guard says the file was cut short, so that
// the reader fails with that reason rather than the process dying.
#pragma once

#include <cstddef>

namespace mlprof::model {

// A reader's reason when its guard says so.
inline constexpr const char* kCutShortWhileRead = "the file was cut short while it was read (written again?)";

class CutShortGuard {
 public:
  CutShortGuard() = default;
  CutShortGuard(const CutShortGuard&) = delete;
  CutShortGuard& operator=(const CutShortGuard&) = delete;
  ~CutShortGuard() { release(); }

  // Guards [begin, begin + size) (page-aligned at begin); false when every slot is taken (the
  // mapping is then read unguarded). Installs the process's SIGBUS handler the first time.
  bool guard(const void* begin, size_t size);
  void release();
  // Whether a read of the mapping went past the file's end.
  bool cut_short() const;

 private:
  int slot_ = -1;
};

}  // namespace mlprof::model
