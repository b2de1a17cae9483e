#include "model/pytorch/trace_tokenizer.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "model/pytorch/json_structure_scanner.h"

namespace mlprof::model::kineto {
namespace {

namespace od = simdjson::ondemand;

// A batch this size, its structural index and its parsed events stay in one core's cache while
// simdjson walks it (and the batches in flight take little memory).
constexpr size_t kWindowBytes = size_t(256) << 10;
constexpr size_t kPadding = 64;                   // simdjson::SIMDJSON_PADDING
// How far back from a window's end a guessed cut is looked for (events are a few hundred bytes),
// and the longest separator learnt.
constexpr size_t kGuessReach = size_t(64) << 10;
constexpr size_t kLongestSeparator = 64;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string megabytes(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

class Walker {
 public:
  Walker(JsonSource& source, TraceJsonVisitor& visitor, const LoadProgress& progress, std::string* error,
         bool guess_cuts, bool* guessed)
      : source_(source), visitor_(visitor), progress_(progress), error_(*error), guess_cuts_(guess_cuts),
        guessed_(guessed) {}

  bool run();

 private:
  bool fail(std::string reason) {
    error_ = std::move(reason);
    return false;
  }
  bool invalid_at(size_t at, const char* what) {
    return fail(std::string("not valid JSON (") + what + ") at byte " + std::to_string(offset_ + at));
  }
  bool truncated(const char* where) { return fail(std::string("not valid JSON (the text ends ") + where + ")"); }

  bool more(size_t keep_from);  // reads more text, keeping [keep_from, end_)
  // The window's text now starts `count` bytes later: every position moves back by that much.
  void drop_front(size_t count) {
    end_ -= count;
    offset_ += count;
    pos_ -= std::min(pos_, count);
    scan_pos_ -= std::min(scan_pos_, count);
    mark_ -= std::min(mark_, count);
  }
  bool skip_space();            // moves pos_ to the next character that is not a space (or the end)
  bool at_end() const { return pos_ == end_; }
  bool not_an_object();
  bool read_array_form();
  bool read_key(std::string* key);
  bool read_value(const std::string& key, bool wanted);
  bool read_events() { return guess_cuts_ ? read_events_guessing() : read_events_scanning(); }
  bool read_events_scanning();
  bool read_events_guessing();
  // After a batch, the ',' before the next element (or the array's ']', left for the caller),
  // once the window holds it: clears *need_separator then, setting *after_comma for a ','.
  bool take_separator(bool* need_separator, bool* after_comma);
  void learn_separator(size_t value_end);
  size_t guess_cut(size_t from, size_t to) const;
  bool hand_over_batch(size_t begin, size_t end, bool after_comma, bool may_give_window, bool end_guessed = false);
  void go_on_in_new_window(const char* old, size_t end, char written_at_end);

  JsonSource& source_;
  TraceJsonVisitor& visitor_;
  const LoadProgress& progress_;
  std::string& error_;
  JsonStructureScanner scanner_;
  const bool guess_cuts_;
  bool* guessed_;  // set at the first batch handed over with a guessed end (may be null)
  // What the text has between two events, from the first '}' (with its line's indentation when
  // it starts a line) to the next '{'; empty until learnt, or when it has no line break.
  std::string separator_;

  std::vector<char> buffer_;
  size_t window_ = 0;   // text capacity; the buffer holds kPadding + 1 more
  size_t end_ = 0;      // text is buffer[0, end_)
  bool eof_ = false;
  uint64_t offset_ = 0; // where buffer[0] is in the text
  // Positions in the buffer, moved together when the window slides.
  size_t pos_ = 0, scan_pos_ = 0, mark_ = 0;
};

// Slides [keep_from, end_) (and one character before it, where a batch puts its '[') to the
// front, grows the window when that is all of it, and reads text after it.
bool Walker::more(size_t keep_from) {
  const size_t keep = keep_from > 0 ? keep_from - 1 : 0;
  if (keep > 0) {
    std::memmove(buffer_.data(), buffer_.data() + keep, end_ - keep);
    drop_front(keep);
  }
  if (end_ == window_) {
    if (window_ >= kMaxValueBytes)
      return fail("a value in the JSON (an event, or a top-level value) is larger than " + megabytes(kMaxValueBytes) +
                  " (at byte " + std::to_string(offset_ + keep_from - keep) + ")");
    const size_t grown = window_ == 0 ? kWindowBytes : window_ * 2;
    try {
      buffer_.resize(grown + kPadding + 1);
    } catch (const std::bad_alloc&) {
      return fail("out of memory for a window of " + megabytes(grown) + " of JSON");
    }
    window_ = grown;
  }
  size_t got = 0;
  if (!source_.read(buffer_.data() + end_, window_ - end_, &got, &error_)) return false;
  end_ += got;
  eof_ = got == 0;
  std::memset(buffer_.data() + end_, 0, kPadding + 1);
  if (progress_ && source_.input_size() > 0)
    progress_(std::min(1.0, double(source_.input_read()) / double(source_.input_size())));
  return true;
}

bool Walker::skip_space() {
  for (;;) {
    while (pos_ < end_ && is_space(buffer_[pos_])) ++pos_;
    if (pos_ < end_ || eof_) return true;
    if (!more(pos_)) return false;
  }
}

bool Walker::run() {
  if (!more(0) || !skip_space()) return false;
  if (at_end()) return fail("empty file");
  if (buffer_[pos_] == '[') return read_array_form();
  if (buffer_[pos_] != '{') return not_an_object();
  ++pos_;
  bool has_events = false;
  for (bool first = true;; first = false) {
    if (!skip_space()) return false;
    if (at_end()) return truncated("inside the top-level object");
    if (first && buffer_[pos_] == '}') {
      ++pos_;
      break;
    }
    if (buffer_[pos_] != '"') return invalid_at(pos_, "expected a key");
    std::string key;
    if (!read_key(&key) || !skip_space()) return false;
    if (at_end()) return truncated("inside the top-level object");
    if (buffer_[pos_] != ':') return invalid_at(pos_, "expected ':' after a key");
    ++pos_;
    if (!skip_space()) return false;
    if (at_end()) return truncated("inside the top-level object");
    if (key == "traceEvents") {
      if (buffer_[pos_] != '[') return fail("not a PyTorch trace: traceEvents is not an array");
      ++pos_;
      if (!read_events()) return false;
      has_events = true;
    } else if (!read_value(key, visitor_.wants(key))) {
      return false;
    }
    if (!skip_space()) return false;
    if (at_end()) return truncated("inside the top-level object");
    const char c = buffer_[pos_++];
    if (c == '}') break;
    if (c != ',') return invalid_at(pos_ - 1, "expected ',' or '}' after a value");
  }
  if (!skip_space()) return false;
  if (!at_end()) return fail("not valid JSON (content after the top-level object)");
  if (!has_events) return fail("not a PyTorch trace: no traceEvents");
  return true;
}

// PyTorch built without Kineto (torch.profiler, export_chrome_trace) writes the Chrome trace's
// array form: the events alone, "[{...}, ...]", which reads as traceEvents.
bool Walker::read_array_form() {
  ++pos_;
  if (!read_events() || !skip_space()) return false;
  if (!at_end()) return fail("not valid JSON (content after the top-level array)");
  return true;
}

// The text does not start with '{' or '[': say what it is, from as much of it as one window holds.
bool Walker::not_an_object() {
  while (!eof_ && end_ < window_)
    if (!more(pos_)) return false;
  const size_t size = end_ - pos_;
  std::string padded(buffer_.data() + pos_, size);
  padded.append(kPadding, '\0');
  od::parser parser;
  od::document doc;
  od::json_type type;
  if (parser.iterate(padded.data(), size, padded.size()).get(doc) || doc.type().get(type))
    return fail("not valid JSON");
  // type() only looks at the first character: "not json" starts like null.
  bool parses = false;
  const char* what = "null";
  switch (type) {
    case od::json_type::null: { bool is_null = false; parses = doc.is_null().get(is_null) == simdjson::SUCCESS && is_null; break; }
    case od::json_type::boolean: { bool b; parses = doc.get_bool().get(b) == simdjson::SUCCESS; what = "a boolean"; break; }
    case od::json_type::number: { double d; parses = doc.get_double().get(d) == simdjson::SUCCESS; what = "a number"; break; }
    case od::json_type::string: { std::string_view v; parses = doc.get_string().get(v) == simdjson::SUCCESS; what = "a string"; break; }
    default: break;
  }
  if (!parses) return fail("not valid JSON");
  return fail(std::string("not a PyTorch trace: the JSON is ") + what + ", expected an object with traceEvents or an array of events");
}

// A key as written between its quotes (ours have no escapes, so one with escapes matches none).
bool Walker::read_key(std::string* key) {
  size_t at = pos_ + 1;
  for (;;) {
    while (at < end_ && buffer_[at] != '"') at += buffer_[at] == '\\' ? 2 : 1;
    if (at < end_) break;
    if (eof_) return truncated("inside a key");
    const size_t consumed = at - pos_;
    if (!more(pos_)) return false;
    at = pos_ + consumed;
  }
  key->assign(buffer_.data() + pos_ + 1, at - pos_ - 1);
  pos_ = at + 1;
  return true;
}

// A top-level value ends at the ',' or '}' after it; a wanted one is handed over whole, the
// others are passed over however large.
bool Walker::read_value(const std::string& key, bool wanted) {
  scanner_.reset();
  mark_ = scan_pos_ = pos_;
  JsonStructureScanner::Result r;
  for (;;) {
    r = scanner_.scan(buffer_.data(), scan_pos_, end_, true);
    if (r.stop != JsonStructureScanner::Stop::kNone) break;
    scan_pos_ = end_;
    if (eof_) return truncated("inside a top-level value");
    if (!more(wanted ? mark_ : end_)) return false;
  }
  if (r.stop == JsonStructureScanner::Stop::kClose && buffer_[r.at] != '}')
    return invalid_at(r.at, "mismatched brackets");
  pos_ = r.at;
  if (!wanted) return true;
  size_t size = r.at - mark_;
  while (size > 0 && is_space(buffer_[mark_ + size - 1])) --size;
  if (size == 0) return invalid_at(r.at, "a key without a value");
  std::string padded(buffer_.data() + mark_, size);
  padded.append(kPadding, '\0');
  return visitor_.top_level_value(key, {padded.data(), size, padded.size(), offset_ + mark_}, &error_);
}

bool Walker::take_separator(bool* need_separator, bool* after_comma) {
  while (mark_ < end_ && is_space(buffer_[mark_])) ++mark_;
  if (mark_ == end_) return true;
  const char c = buffer_[mark_];
  if (c == ',') ++mark_, *after_comma = true;
  else if (c != ']') return invalid_at(mark_, "expected ',' between events");
  *need_separator = false;
  return true;
}

// The elements of traceEvents, in batches: each batch ends where a window's last whole
// element ends, and simdjson checks everything between.
bool Walker::read_events_scanning() {
  scanner_.reset();
  mark_ = scan_pos_ = pos_;  // mark_: where the next batch begins
  bool need_separator = false, after_comma = false;
  for (;;) {
    if (need_separator && !take_separator(&need_separator, &after_comma)) return false;
    const JsonStructureScanner::Result r = scanner_.scan(buffer_.data(), scan_pos_, end_, false);
    scan_pos_ = end_;
    if (r.stop == JsonStructureScanner::Stop::kClose) {
      if (buffer_[r.at] != ']') return invalid_at(r.at, "mismatched brackets");
      if (!hand_over_batch(mark_, r.at, after_comma, false)) return false;
      pos_ = r.at + 1;
      return true;
    }
    if (!need_separator && r.last_value_end > mark_) {
      const size_t begin = mark_;
      mark_ = r.last_value_end;  // before the hand-over, which may move the window's positions
      if (!hand_over_batch(begin, mark_, after_comma, true)) return false;
      need_separator = true;
      after_comma = false;
    }
    if (eof_) return truncated("inside traceEvents");
    if (!more(mark_)) return false;
  }
}

// As read_events_scanning, but a batch ends at the last separator like the one learnt that the
// window's end holds, found without scanning the text before it. Where there is none (or none
// learnt yet, and at the end of the text) the scanner finds the last whole element from the
// batch's start instead, as the other does, and the text around that element's end teaches the
// separator.
bool Walker::read_events_guessing() {
  mark_ = pos_;  // where the next batch begins
  bool need_separator = false, after_comma = false;
  for (;;) {
    if (need_separator && !take_separator(&need_separator, &after_comma)) return false;
    if (!need_separator) {
      const size_t cut = eof_ ? 0 : guess_cut(mark_, end_);
      const size_t begin = mark_;
      if (cut > mark_) {
        mark_ = cut;  // before the hand-over, which may move the window's positions
        if (guessed_ != nullptr) *guessed_ = true;
        if (!hand_over_batch(begin, mark_, after_comma, true, true)) return false;
        need_separator = true;
        after_comma = false;
      } else {
        scanner_.reset();
        const JsonStructureScanner::Result r = scanner_.scan(buffer_.data(), mark_, end_, false);
        if (r.stop == JsonStructureScanner::Stop::kClose) {
          if (buffer_[r.at] != ']') return invalid_at(r.at, "mismatched brackets");
          if (!hand_over_batch(mark_, r.at, after_comma, false)) return false;
          pos_ = r.at + 1;
          return true;
        }
        if (r.last_value_end > mark_) {
          mark_ = r.last_value_end;
          learn_separator(mark_);  // also where the text changed its layout
          if (!hand_over_batch(begin, mark_, after_comma, true)) return false;
          need_separator = true;
          after_comma = false;
        }
      }
    }
    if (eof_) return truncated("inside traceEvents");
    if (!more(mark_)) return false;
  }
}

// Learns the separator from the text around the end of an element that a scan found.
void Walker::learn_separator(size_t value_end) {
  const char* b = buffer_.data();
  if (value_end == 0 || b[value_end - 1] != '}') return;
  size_t first = value_end - 1;  // the '}', or the line break before it
  while (first > 0 && (b[first - 1] == ' ' || b[first - 1] == '\t')) --first;
  first = first > 0 && b[first - 1] == '\n' ? first - 1 : value_end - 1;
  size_t at = value_end;
  while (at < end_ && is_space(b[at])) ++at;
  if (at == end_ || b[at] != ',') return;
  ++at;
  while (at < end_ && is_space(b[at])) ++at;
  if (at == end_ || b[at] != '{' || at + 1 - first > kLongestSeparator) return;
  const std::string_view separator(b + first, at + 1 - first);
  if (separator.find('\n') != std::string_view::npos) separator_ = separator;
}

// Just past the '}' of the last separator in text[from, to) near its end, or 0 when there is none.
size_t Walker::guess_cut(size_t from, size_t to) const {
  const size_t n = separator_.size();
  if (n == 0 || to - from < n) return 0;
  const size_t close = separator_.find('}');
  const char* b = buffer_.data();
  const size_t lowest = std::max(from, to > kGuessReach ? to - kGuessReach : 0) + n - 1;  // of a separator's '{'
  for (size_t end = to; end > lowest;) {
    const void* found = memrchr(b + lowest, '{', end - lowest);
    if (found == nullptr) return 0;
    const size_t open = size_t(static_cast<const char*>(found) - b);
    if (std::memcmp(b + open + 1 - n, separator_.data(), n) == 0) return open + 1 - n + close + 1;
    end = open;
  }
  return 0;
}

// Hands over buffer[begin, end) as "[...]": the character before it (a '[' or ',' already
// read) becomes '[' and the one at `end` becomes ']' for the while.
bool Walker::hand_over_batch(size_t begin, size_t end, bool after_comma, bool may_give_window, bool end_guessed) {
  char* b = buffer_.data();
  size_t first = begin;
  while (first < end && is_space(b[first])) ++first;
  if (first == end) return after_comma ? invalid_at(end, "a ',' before ']'") : true;
  const char saved = b[end];
  b[begin - 1] = '[';
  b[end] = ']';
  const PaddedJson batch{b + begin - 1, end - begin + 2, window_ + kPadding + 1 - (begin - 1), offset_ + begin - 1,
                         end_guessed};
  const bool ok = may_give_window ? visitor_.event_batch_in(batch, &buffer_, &error_) : visitor_.event_batch(batch, &error_);
  if (buffer_.data() == b) {
    b[end] = saved;
    return ok;
  }
  if (ok) go_on_in_new_window(b, end, saved);
  return ok;
}

// The visitor took the window with the batch in it and gave another: the text after the batch
// (and the character before it, as more() keeps) goes to the front of the new one. The old one
// is only read here, as the parsers read it.
void Walker::go_on_in_new_window(const char* old, size_t end, char written_at_end) {
  const size_t from = end - 1;
  if (buffer_.size() < window_ + kPadding + 1) buffer_.resize(window_ + kPadding + 1);
  std::memcpy(buffer_.data(), old + from, end_ - from);
  buffer_[end - from] = written_at_end;
  drop_front(from);
  std::memset(buffer_.data() + end_, 0, kPadding + 1);
}

}  // namespace

bool walk_trace_json(JsonSource& source, TraceJsonVisitor& visitor, const LoadProgress& progress, std::string* error,
                     bool guess_cuts, bool* guessed) {
  Walker walker(source, visitor, progress, error, guess_cuts, guessed);
  return walker.run();
}

bool batch_ends_between_elements(const PaddedJson& batch) {
  if (batch.size < 2) return false;
  JsonStructureScanner scanner;
  const JsonStructureScanner::Result r = scanner.scan(batch.data, 1, batch.size - 1, false);
  return r.stop == JsonStructureScanner::Stop::kNone && scanner.depth() == 0 && !scanner.in_string();
}

}  // namespace mlprof::model::kineto
