#include "format/annotation.h"

#include <charconv>
#include <cstdio>
#include <cstring>

namespace mlprof::format {
namespace {

// Splits "k1=v1,k2=v2" on commas that are not inside quotes or brackets.
template <typename Fn>
void split_top_level(std::string_view s, Fn&& on_part) {
  int depth = 0;
  char quote = 0;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    switch (c) {
      case '"': case '\'': quote = c; break;
      case '[': case '{': case '(': ++depth; break;
      case ']': case '}': case ')': if (depth > 0) --depth; break;
      case ',':
        if (depth == 0) { on_part(s.substr(begin, i - begin)); begin = i + 1; }
        break;
      default: break;
    }
  }
  on_part(s.substr(begin));
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
    case TraceArg::Kind::kString: sink.put(a.s); break;
  }
}

void encode(Sink& sink, std::string_view name, const TraceArg* args, size_t n) noexcept {
  sink.put(name);
  if (n == 0) return;
  sink.put('#');
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) sink.put(',');
    sink.put(args[i].key);
    sink.put('=');
    encode_value(sink, args[i]);
  }
  sink.put('#');
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
  if (first == std::string_view::npos) {
    out.name = encoded;
    return out;
  }
  out.name = encoded.substr(0, first);
  std::string_view rest = encoded.substr(first + 1);
  const size_t last = rest.rfind('#');
  if (last != std::string_view::npos) rest = rest.substr(0, last);
  split_top_level(rest, [&](std::string_view part) {
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) return;  // not k=v: TraceMe ignores it too
    out.args.push_back({part.substr(0, eq), parse_annotation_value(part.substr(eq + 1))});
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
