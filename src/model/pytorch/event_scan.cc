#include "model/pytorch/event_scan.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace mlprof::model::kineto {
namespace {

constexpr int kMostDepth = 64;  // deeper nesting is left to the On-Demand parser

// One test for a character that is not space (as most ends of tokens are), rather than four.
bool is_space(char c) {
  constexpr uint64_t kSpaces = 1ull << ' ' | 1ull << '\n' | 1ull << '\r' | 1ull << '\t';
  return uint8_t(c) <= ' ' && (kSpaces >> uint8_t(c) & 1) != 0;
}
bool is_digit(char c) { return unsigned(c - '0') < 10; }

// The first character of a number, true, false or null. Like On-Demand, which passes over a
// value it is not asked for without reading it, a scalar is not checked further: a number
// that is read is parsed (pytorch/number.h), and one that is not may be anything.
// (A table: one load, rather than a compare for each such character.)
constexpr auto kScalarStarts = [] {
  std::array<bool, 256> starts{};
  for (const char c : std::string_view("-0123456789tfn")) starts[uint8_t(c)] = true;
  return starts;
}();
bool starts_scalar(char c) { return kScalarStarts[uint8_t(c)]; }

// Passes over the container at token `at` (as Tokens::skip_nested does): the token after it, or
// kNotSkipped. Out of line and given the walk's state by value, since it recurses: a walk that
// handed its own Tokens to it would live in memory rather than registers, and be read again after
// each store into an event.
constexpr uint32_t kNotSkipped = UINT32_MAX;
uint32_t skip_nested_at(const char* text, const uint32_t* index, uint32_t count, bool escapes, uint32_t at, int depth);

// The tokens of one batch, as stage 1 found them: each starts at a structural character, a
// string's opening quote or a scalar's first character, and runs to the next one.
class Tokens {
 public:
  // `escapes`: whether the text may hold a backslash (without one, a string ends at its first
  // quote and holds no escape, which saves looking).
  Tokens(const char* text, const uint32_t* index, uint32_t count, bool escapes, uint32_t at = 0)
      : text_(text), index_(index), count_(count), escapes_(escapes), at_(at) {}

  bool done() const { return at_ == count_; }
  uint32_t at() const { return at_; }
  // No bound is checked: the entry past the last token points at that token, the batch's ']'
  // (EventScan::read), and only take(']') checks that it is not past the end.
  char peek() const { return text_[index_[at_]]; }
  bool take(char c) {
    if (peek() != c || (c == ']' && at_ == count_)) return false;
    ++at_;
    return true;
  }
  // The current token with the whitespace after it (On-Demand's raw_json_token).
  std::string_view token() const { return {text_ + index_[at_], size_t(index_[at_ + 1] - index_[at_])}; }

  // A string's text between its quotes; false when it has an escape (or is not a string).
  bool string(std::string_view* text) {
    std::string_view quoted;
    if (!quoted_string(&quoted)) return false;
    *text = quoted.substr(1, quoted.size() - 2);
    return !escapes_ || std::memchr(text->data(), '\\', text->size()) == nullptr;
  }

  // A key (with its ':'), as key_at reads it.
  bool key(std::string_view* key) {
    // As traces write keys: the colon right after the closing quote. No bound is checked: at_ is
    // at most count_, where the batch's ']' is again (see peek()), which starts no key, and stage 1
    // ends the index with an entry more.
    {
      const uint32_t begin = index_[at_], colon = index_[at_ + 1];
      uint16_t quote_colon;  // the two bytes that end the key, read at once
      std::memcpy(&quote_colon, text_ + colon - 1, 2);
      if (text_[begin] == '"' && quote_colon == ('"' | ':' << 8) && colon - begin >= 2) {
        *key = escapes_ ? key_at(text_ + begin + 1) : std::string_view(text_ + begin + 1, colon - begin - 2);
        at_ += 2;
        return true;
      }
    }
    std::string_view quoted;
    if (!quoted_string(&quoted) || !take(':')) return false;
    *key = escapes_ ? key_at(quoted.data() + 1) : quoted.substr(1, quoted.size() - 2);
    return true;
  }

  // Passes over a value, checking its structure: a string or a scalar here, in the walk of
  // the event (most values passed over are one of those), a container in skip_nested.
  [[gnu::always_inline]] bool skip(int depth = 0) {
    const char c = peek();
    if (starts_scalar(c)) {  // first: most values passed over are numbers
      ++at_;
      return true;
    }
    if (c == '"') {
      std::string_view quoted;
      return quoted_string(&quoted);
    }
    if (c == '{' || c == '[') {
      const uint32_t after = skip_nested_at(text_, index_, count_, escapes_, at_, depth);
      at_ = after == kNotSkipped ? at_ : after;
      return after != kNotSkipped;
    }
    return false;
  }
  bool skip_nested(int depth) {
    if (take('{')) {
      if (take('}')) return true;
      if (depth >= kMostDepth) return false;
      do {
        std::string_view k;
        if (!key(&k) || !skip(depth + 1)) return false;
      } while (take(','));
      return take('}');
    }
    if (!take('[')) return false;
    if (take(']')) return true;
    if (depth >= kMostDepth) return false;
    do {
      if (!skip(depth + 1)) return false;
    } while (take(','));
    return take(']');
  }

  // A value's JSON text, checking its structure: it runs to the next token (the ',' or '}'
  // after it), without the whitespace before that.
  bool raw_value(std::string_view* text) {
    const uint32_t begin = index_[at_];
    if (!skip(1) || at_ == count_) return false;
    std::string_view t(text_ + begin, size_t(index_[at_] - begin));
    while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
    *text = t;
    return true;
  }

  // The current token, a number, as its text with the whitespace after it.
  bool number(std::string_view* token_text) {
    const char c = peek();
    if (c != '-' && !is_digit(c)) return false;
    *token_text = token();
    ++at_;
    return true;
  }

 private:
  std::string_view trimmed() const {
    std::string_view t = token();
    while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
    return t;
  }
  bool quoted_string(std::string_view* quoted) {
    if (peek() != '"') return false;
    const std::string_view t = trimmed();
    if (t.size() < 2 || t.back() != '"') return false;
    *quoted = t;
    ++at_;
    return true;
  }

  const char* text_;
  const uint32_t* index_;
  uint32_t count_;
  bool escapes_;
  uint32_t at_ = 0;
};

uint32_t skip_nested_at(const char* text, const uint32_t* index, uint32_t count, bool escapes, uint32_t at, int depth) {
  Tokens t(text, index, count, escapes, at);
  return t.skip_nested(depth) ? t.at() : kNotSkipped;
}

// A string value into *out; a value of another type is passed over, leaving *out alone (and
// *is_string, when asked, false), as On-Demand's INCORRECT_TYPE does for the other parser.
[[gnu::always_inline]] inline bool string_value(Tokens& t, std::string_view* out, bool* is_string = nullptr) {
  if (t.peek() != '"') {
    if (is_string != nullptr) *is_string = false;
    return t.skip();
  }
  if (is_string != nullptr) *is_string = true;
  return t.string(out);
}

// A number token of at most eight bytes and its value.
struct LastNumber {
  uint64_t text = 0;  // its bytes, zeros past its end
  size_t size = 0;    // 0: none yet
  int64_t value = 0;
};
// The last two pids (or tids) read: the events of a batch mostly repeat their thread's, and a
// launch's events alternate between the host thread and the device's stream, so that these
// spare parsing most.
struct RecentNumbers {
  LastNumber newer, older;
};

[[gnu::always_inline]] inline bool thread_id(Tokens& t, ThreadId* id, RecentNumbers* recent) {
  const char c = t.peek();
  if (c == '"') {
    std::string_view label;
    if (!t.string(&label)) return false;
    id->set_string(label);
    return true;
  }
  if (c == '-' || is_digit(c)) {
    std::string_view token;
    if (!t.number(&token)) return false;
    if (token.size() > 8) {
      id->set_number(token);
      return true;
    }
    uint64_t text;
    std::memcpy(&text, token.data(), 8);  // the batch is padded
    text &= ~uint64_t(0) >> (64 - 8 * token.size());
    if (token.size() == recent->newer.size && text == recent->newer.text) {
      id->value = recent->newer.value;
      id->present = true;
      return true;
    }
    if (token.size() == recent->older.size && text == recent->older.text) {
      id->value = recent->older.value;
      id->present = true;
      std::swap(recent->newer, recent->older);
      return true;
    }
    id->set_number(token);
    if (id->present) recent->older = std::exchange(recent->newer, {text, token.size(), id->value});
    return true;
  }
  return t.skip();
}

[[gnu::always_inline]] inline bool int_array(Tokens& t, int64_t (&out)[3]) {
  if (!t.take('[')) return t.skip();
  if (t.take(']')) return true;
  size_t i = 0;
  do {
    int64_t v = 0;
    if (i < 3 && parse_fixed_padded(t.token(), 0, &v)) out[i] = v;  // the batch is padded
    if (!t.skip(1)) return false;
    ++i;
  } while (t.take(','));
  return t.take(']');
}

// A double as On-Demand's get_double reads it; a value of another type is passed over.
[[gnu::always_inline]] inline bool double_value(Tokens& t, double* out) {
  const char c = t.peek();
  if (c != '-' && !is_digit(c)) return t.skip();
  std::string_view token;
  if (!t.number(&token)) return false;
  return simdjson::builtin::numberparsing::parse_double(reinterpret_cast<const uint8_t*>(token.data())).get(*out) ==
         simdjson::SUCCESS;
}

[[gnu::always_inline]] inline bool args(Tokens& t, RawEvent* raw) {
  if (!t.take('{')) return t.skip();
  if (t.take('}')) return true;
  do {
    std::string_view key;
    if (!t.key(&key)) return false;
    int64_t* target = nullptr;
    std::string_view* text = nullptr;
    bool ok = true;
    switch (arg_key(key, raw, &target, &text)) {
      case ArgKey::kCbid:
        raw->has_cbid = true;
        ok = t.skip(1);
        break;
      case ArgKey::kOccupancy:
        ok = double_value(t, &raw->kernel_part().occupancy_pct);
        break;
      case ArgKey::kTheoreticalOccupancy:  // 2021 traces
        ok = raw->kernel_part().occupancy_pct < 0 ? double_value(t, &raw->kernel_part().occupancy_pct) : t.skip(1);
        break;
      case ArgKey::kGrid: ok = int_array(t, raw->kernel_part().grid); break;
      case ArgKey::kBlock: ok = int_array(t, raw->kernel_part().block); break;
      case ArgKey::kName: ok = string_value(t, &raw->arg_name); break;
      case ArgKey::kText: ok = t.peek() == '"' ? t.string(text) : t.raw_value(text); break;
      case ArgKey::kInteger: {
        int64_t n;
        if (parse_fixed_padded(t.token(), 0, &n)) *target = n;  // the batch is padded
        else if (raw->memory != kNoPart && target == &raw->memory_part().addr) return false;  // beyond int64: the other parser keeps its bits
        ok = t.skip(1);
        break;
      }
      case ArgKey::kOther: ok = t.skip(1); break;
    }
    if (!ok) return false;
  } while (t.take(','));
  return t.take('}');
}

// An object's fields after its '{', and its '}'.
[[gnu::always_inline]] inline bool fields(Tokens& t, RawEvent* raw, RecentNumbers (&recent)[2]) {
  do {
    std::string_view key;
    if (!t.key(&key)) return false;
    bool ok = true;
    switch (event_key(key)) {
      case EventKey::kPh: {
        std::string_view ph;
        ok = string_value(t, &ph);
        if (ok && !ph.empty()) raw->ph = ph[0];
        break;
      }
      case EventKey::kTs: raw->ts = t.token(), ok = t.skip(1); break;
      case EventKey::kId: raw->flow_id = t.token(), ok = t.skip(1); break;
      case EventKey::kDur: raw->dur = t.token(), ok = t.skip(1); break;
      case EventKey::kCat: ok = string_value(t, &raw->cat, &raw->has_cat); break;
      case EventKey::kPid: ok = thread_id(t, &raw->pid, &recent[0]); break;
      case EventKey::kTid: ok = thread_id(t, &raw->tid, &recent[1]); break;
      case EventKey::kName: ok = string_value(t, &raw->name); break;
      case EventKey::kArgs: ok = args(t, raw); break;
      case EventKey::kScope: {
        std::string_view scope;
        bool is_string = false;
        ok = string_value(t, &scope, &is_string);
        if (is_string) raw->global_scope = scope == "g";
        break;
      }
      case EventKey::kOther: ok = t.skip(1); break;
    }
    if (!ok) return false;
  } while (t.take(','));
  return t.take('}');
}

// An event, settled (raw_event.h) while its text is in this core's cache.
// `recent`: the last pids and tids read.
[[gnu::always_inline]] inline bool event(Tokens& t, RawEvent* raw, RecentNumbers (&recent)[2]) {
  if (!t.take('{')) return false;  // not an object: the other parser says which element
  if (!t.take('}') && !fields(t, raw, recent)) return false;
  settle(*raw);
  return true;
}

}  // namespace

EventScan::EventScan() = default;
EventScan::~EventScan() = default;

bool EventScan::read(const PaddedJson& batch, std::vector<RawEvent>* raws, RawParts* parts) {
  if (batch.size > capacity_ || stage1_ == nullptr) {
    const size_t capacity = std::max(batch.size, capacity_);
    std::unique_ptr<simdjson::internal::dom_parser_implementation> fresh;
    if (simdjson::get_active_implementation()->create_dom_parser_implementation(capacity, simdjson::DEFAULT_MAX_DEPTH,
                                                                                fresh) != simdjson::SUCCESS)
      return false;
    stage1_ = std::move(fresh);
    capacity_ = capacity;
  }
  if (stage1_->stage1(reinterpret_cast<const uint8_t*>(batch.data), batch.size, simdjson::stage1_mode::regular) !=
      simdjson::SUCCESS)
    return false;
  // A batch read here ends with the array's ']' (the walk checks that it takes that last): one
  // that does not is left to the other parser at once. The entry past the last token (stage 1's
  // own, the text's end) then points at that ']' too, so that the walk reads a token without a
  // bound check and finds nothing there that it could take but the ']' (see Tokens::take).
  uint32_t* index = stage1_->structural_indexes.get();
  const uint32_t count = stage1_->n_structural_indexes;
  if (count == 0 || batch.data[index[count - 1]] != ']') return false;
  index[count] = index[count - 1];
  // Traces seldom escape anything: one look for a backslash in the whole batch spares one per string.
  Tokens t(batch.data, index, count,
           std::memchr(batch.data, '\\', batch.size) != nullptr);
  const size_t before = raws->size();
  RecentNumbers recent[2];
  bool ok = t.take('[');
  if (ok && !t.take(']')) {
    do {
      RawEvent& raw = raws->emplace_back();
      raw.parts = parts;
      ok = event(t, &raw, recent);
    } while (ok && t.take(','));
    ok = ok && t.take(']');
  }
  if (ok && t.done()) return true;
  raws->resize(before);
  return false;
}

}  // namespace mlprof::model::kineto
