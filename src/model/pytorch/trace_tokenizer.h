// Walks the top level of a PyTorch trace (a JSON object whose traceEvents array holds the
// events) from a JsonSource through a window of bounded size: the events reach the visitor
// in batches of whole events, each a small JSON array that simdjson parses, and the other
// top-level values it asks for come whole, before or after traceEvents as the file has them.
// So memory holds the model and one window, never the whole text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/pytorch/trace_file.h"
#include "model/load_progress.h"

namespace mlprof::model::kineto {

// The largest single event (or wanted top-level value) accepted: one window holds it whole.
inline constexpr size_t kMaxValueBytes = size_t(16) << 20;

// JSON text with the padding simdjson may read past its end.
struct PaddedJson {
  const char* data = nullptr;
  size_t size = 0;
  size_t capacity = 0;  // ≥ size + simdjson's padding
  uint64_t offset = 0;  // where data[0] is in the (uncompressed) text, for error messages
  // An event batch whose end was guessed from the layout of the text (see walk_trace_json) rather
  // than found by a scan: it may end inside a string or a nested value, which its parse must rule
  // out (a parse that takes the batch whole does; see batch_ends_between_elements).
  bool end_guessed = false;
};

class TraceJsonVisitor {
 public:
  virtual ~TraceJsonVisitor() = default;
  // Whether the value of this top-level key (other than traceEvents) is wanted.
  virtual bool wants(std::string_view key) const = 0;
  // A wanted top-level value. On failure return false with a reason in *error.
  virtual bool top_level_value(std::string_view key, const PaddedJson& value, std::string* error) = 0;
  // Some consecutive elements of traceEvents, as the text "[element, element, ...]".
  virtual bool event_batch(const PaddedJson& batch, std::string* error) = 0;
  // The same, from a window of text (`batch` is inside *window) that the visitor may keep rather
  // than copy the batch: it then swaps *window with a buffer of its own (of any size), which the
  // walk goes on in. By default the batch is handed to event_batch().
  virtual bool event_batch_in(const PaddedJson& batch, std::vector<char>* window, std::string* error) {
    (void)window;
    return event_batch(batch, error);
  }
};

// Returns false with a one-line reason (without the path) when the text is not a trace.
// `guess_cuts`: the event array is cut into batches where the text has the separator it had
// between two events already found (such as "\n  },\n  {", with its line breaks), without
// scanning every byte; a batch so cut has end_guessed set. A guess that is wrong (the separator
// inside a string or a nested value) leaves a batch that is not whole JSON: its parse fails, and
// the caller reads the text again without guessing, which says what the text holds exactly as
// that read does. Without line breaks in the separator nothing is guessed. `guessed`, when given,
// is set once a batch with a guessed end has been handed over: until then the walk is the one
// without guessing, to its errors.
bool walk_trace_json(JsonSource& source, TraceJsonVisitor& visitor, const LoadProgress& progress, std::string* error,
                     bool guess_cuts = false, bool* guessed = nullptr);

// Whether an event batch ("[...]", starting where an element starts) ends outside any string at
// the depth it started at, with no container closed that it did not open: a scan of every byte.
bool batch_ends_between_elements(const PaddedJson& batch);

}  // namespace mlprof::model::kineto
