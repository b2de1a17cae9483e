#include "format/annotation.h"

#include <charconv>
#include <cstdio>
#include <cstring>

namespace mlprof::format {
namespace {

// TraceMe's splitter (TensorFlow's parse_annotation.cc) keeps a stack of what is open: a
// quote closes only the same quote on top, a bracket only its own opener, and a comma splits
// only when nothing is open. Feeds one character; true when it is a comma that splits.
template <typename Stack>
bool splits_at(Stack& open, char c) {
  switch (c) {
    case '"': case '\'':
      if (!open.empty() && open.back() == c) open.pop_back();
      else open.push_back(c);
      return false;
    case '[': case '{': case '(': open.push_back(c); return false;
    case ']': case '}': case ')': {
      const char opener = c == ']' ? '[' : c == '}' ? '{' : '(';
      if (!open.empty() && open.back() == opener) open.pop_back();
      return false;
    }
    case ',': return open.empty();
    default: return false;
  }
}

// Splits "k1=v1,k2=v2" where TraceMe's splitter does.
template <typename Fn>
void split_top_level(std::string_view s, Fn&& on_part) {
  std::string open;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (splits_at(open, s[i])) {
      on_part(s.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  on_part(s.substr(begin));
}

// The encoder's stack: no allocation; nesting deeper than it holds counts as not bare.
struct BoundedStack {
  char open[32];
  size_t n = 0;
  bool overflow = false;
  bool empty() const noexcept { return n == 0; }
  char back() const noexcept { return open[n - 1]; }
  void pop_back() noexcept { --n; }
  void push_back(char c) noexcept {
    if (n == sizeof open) overflow = true;
    else open[n++] = c;
  }
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Whether text written as it is reads back as itself, in TraceMe's parser as in ours: one
// part for the splitter, no '#' (which ends the metadata), no space at its ends (TraceMe trims
// it), not empty (TraceMe drops the pair) and not in double quotes (which ours takes off).
// A key also holds no '=', which ends it.
bool reads_back_bare(std::string_view text, bool key) noexcept {
  if (text.empty() || text.front() == '"' || is_space(text.front()) || is_space(text.back())) return false;
  BoundedStack open;
  for (const char c : text) {
    if (c == '#' || (key && c == '=') || splits_at(open, c)) return false;
  }
  return open.empty() && !open.overflow;
}

// Inside double quotes these are written %XX, so that the quoted text opens and closes
// nothing for the splitter and holds no '#'; '%' itself, so that reading it back is exact.
bool escaped_in_quotes(char c, bool key) {
  switch (c) {
    case '%': case '"': case '\'': case '#': case '[': case ']': case '{': case '}': case '(': case ')': return true;
    case '=': return key;
    default: return false;
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Bounded appender used by both encoders: counts what it would need, writes what fits.
struct Sink {
  char* buf;
  size_t cap;
  size_t len = 0;
  void put(std::string_view s) noexcept {
    if (len < cap) std::memcpy(buf + len, s.data(), std::min(s.size(), cap - len));
    len += s.size();
  }
  void put(char c) noexcept { put(std::string_view(&c, 1)); }
};

// Text as it is when it reads back so, else in double quotes with its troublesome characters
// as %XX: TraceMe's parser keeps such a value whole (quotes included), ours takes them off.
void put_text(Sink& sink, std::string_view text, bool key) noexcept {
  if (reads_back_bare(text, key)) {
    sink.put(text);
    return;
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  sink.put('"');
  for (const char c : text) {
    if (escaped_in_quotes(c, key)) {
      const char escaped[3] = {'%', kHex[uint8_t(c) >> 4], kHex[uint8_t(c) & 15]};
      sink.put(std::string_view(escaped, 3));
    } else {
      sink.put(c);
    }
  }
  sink.put('"');
}

void encode_value(Sink& sink, const TraceArg& a) noexcept {
  char tmp[64];
  switch (a.kind) {
    case TraceArg::Kind::kInt: {
      auto r = std::to_chars(tmp, tmp + sizeof tmp, a.i);
      sink.put(std::string_view(tmp, r.ptr - tmp));
      break;
    }
    case TraceArg::Kind::kUint: {
      auto r = std::to_chars(tmp, tmp + sizeof tmp, a.u);
      sink.put(std::string_view(tmp, r.ptr - tmp));
      break;
    }
    case TraceArg::Kind::kDouble: {
      auto r = std::to_chars(tmp, tmp + sizeof tmp, a.d);
      sink.put(std::string_view(tmp, r.ptr - tmp));
      break;
    }
    case TraceArg::Kind::kBool: sink.put(a.b ? "1" : "0"); break;
    case TraceArg::Kind::kString: put_text(sink, a.s, /*key=*/false); break;
  }
}

void encode(Sink& sink, std::string_view name, const TraceArg* args, size_t n) noexcept {
  sink.put(name);
  if (n == 0) return;
  sink.put('#');
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) sink.put(',');
    put_text(sink, args[i].key, /*key=*/true);
    sink.put('=');
    encode_value(sink, args[i]);
  }
  sink.put('#');
}

bool is_quoted(std::string_view text) { return text.size() >= 2 && text.front() == '"' && text.back() == '"'; }

// The text inside double quotes with its %XX decoded (a '%' not followed by two hex digits
// stays), or the text itself when it is not quoted.
std::string_view unquoted(std::string_view text, ParsedAnnotation& out) {
  if (!is_quoted(text)) return text;
  text = text.substr(1, text.size() - 2);
  if (text.find('%') == std::string_view::npos) return text;
  std::string& decoded = out.decoded.emplace_front();
  decoded.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const int high = text[i] == '%' && i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
    const int low = high >= 0 ? hex_digit(text[i + 2]) : -1;
    if (low >= 0) {
      decoded.push_back(char(high * 16 + low));
      i += 2;
    } else {
      decoded.push_back(text[i]);
    }
  }
  return decoded;
}

}  // namespace

AnnotationValue parse_annotation_value(std::string_view text) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (!text.empty()) {
    int64_t i = 0;
    if (auto r = std::from_chars(b, e, i); r.ec == std::errc() && r.ptr == e) return i;
    uint64_t u = 0;
    if (auto r = std::from_chars(b, e, u); r.ec == std::errc() && r.ptr == e) return u;
    double d = 0;
    if (auto r = std::from_chars(b, e, d); r.ec == std::errc() && r.ptr == e) return d;
  }
  return text;
}

ParsedAnnotation parse_annotation(std::string_view encoded) {
  ParsedAnnotation out;
  const size_t first = encoded.find('#');
  // Encoded metadata ends with '#' (as TraceMe writes it). Other names with a '#' are names:
  // "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "Optimizer.step#SGD.step".
  if (first == std::string_view::npos || encoded.back() != '#') {
    out.name = encoded;
    return out;
  }
  out.name = encoded.substr(0, first);
  std::string_view rest = encoded.substr(first + 1);
  if (!rest.empty()) rest.remove_suffix(1);  // the closing '#'
  split_top_level(rest, [&](std::string_view part) {
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) return;  // not k=v: TraceMe ignores it too
    const std::string_view key = unquoted(part.substr(0, eq), out);
    if (key.empty()) return;
    const std::string_view value = part.substr(eq + 1);
    if (is_quoted(value)) out.args.push_back({key, unquoted(value, out)});
    else out.args.push_back({key, parse_annotation_value(value)});
  });
  return out;
}

void append_encoded(std::string& out, std::string_view name, const TraceArg* args, size_t n) {
  Sink probe{nullptr, 0};
  encode(probe, name, args, n);
  const size_t at = out.size();
  out.resize(at + probe.len);
  Sink sink{out.data() + at, probe.len};
  encode(sink, name, args, n);
}

size_t encode_into(char* buf, size_t cap, std::string_view name, const TraceArg* args,
                   size_t n) noexcept {
  Sink sink{buf, cap};
  encode(sink, name, args, n);
  return sink.len;
}

}  // namespace mlprof::format
