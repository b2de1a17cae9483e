// The out-of-line parts of mlprof::Trace: names copied into the thread's buffer.
#include <cstring>

#include "mlprof/mlprof.h"
#include "capture/recorder.h"
#include "format/annotation.h"

namespace mlprof {

using capture::CopiedNameRecord;
using capture::t_state;

// Dynamic names are copied at begin, while the caller's string is alive; the record is
// published at once with end = 0 and completed by end_copy().
void Trace::begin_copy(std::string_view name) noexcept {
  capture::ThreadState& t = t_state;
  CopiedNameRecord* r = capture::stage_copied(t, name.size(), 0, [&](char* out, size_t n) {
    std::memcpy(out, name.data(), n);
  });
  if (r == nullptr) return;
  r->start = now_ticks();
  capture::publish(t, t.pos + capture::copied_record_bytes(r->length));
  start_ = r->start;
  end_slot_ = &r->end;
  epoch_ = t.epoch;
}

void Trace::begin_args(std::string_view name, std::initializer_list<TraceArg> args) noexcept {
  capture::ThreadState& t = t_state;
  const size_t length = format::encode_into(nullptr, 0, name, args.begin(), args.size());
  CopiedNameRecord* r = capture::stage_copied(t, length, 0, [&](char* out, size_t n) {
    format::encode_into(out, n, name, args.begin(), args.size());
  });
  if (r == nullptr) return;
  r->start = now_ticks();
  capture::publish(t, t.pos + capture::copied_record_bytes(r->length));
  start_ = r->start;
  end_slot_ = &r->end;
  epoch_ = t.epoch;
}

// While the thread is still attached to the session of the staged record, that record's
// memory is pinned; otherwise the session is gone and the end is simply not recorded.
void Trace::end_copy(uint64_t stop) noexcept {
  if (t_state.epoch == epoch_) __atomic_store_n(end_slot_, stop, __ATOMIC_RELEASE);
}

std::string encode(std::string_view name, std::initializer_list<TraceArg> args) {
  std::string out;
  format::append_encoded(out, name, args.begin(), args.size());
  return out;
}

}  // namespace mlprof
