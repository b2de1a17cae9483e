// libFuzzer target: the annotation metadata codec (format/annotation.h), "name#k=v,...#".
// Parsing arbitrary text yields views into it (or into the text it decoded); encoding what
// was parsed gives the same name, keys and text values back; the bounded encoder never
// writes past its buffer and agrees with the growing one on the length.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/annotation.h"
#include "fuzz/fuzz_check.h"

namespace {

using mlprof::TraceArg;
using mlprof::format::AnnotationValue;

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

// A view into the input or into text the parse decoded (quoted %XX).
bool inside_parse(std::string_view part, std::string_view text, const mlprof::format::ParsedAnnotation& parsed) {
  if (inside(part, text)) return true;
  for (const std::string& decoded : parsed.decoded)
    if (inside(part, decoded)) return true;
  return false;
}

TraceArg as_trace_arg(std::string_view key, const AnnotationValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return TraceArg(key, *i);
  if (auto* u = std::get_if<uint64_t>(&v)) return TraceArg(key, *u);
  if (auto* d = std::get_if<double>(&v)) return TraceArg(key, *d);
  return TraceArg(key, std::get<std::string_view>(v));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mlprof::fuzz::check;
  namespace format = mlprof::format;
  // The first byte picks the bounded encoder's buffer size; the rest is the annotation.
  if (size == 0) return 0;
  const size_t cap_seed = data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);

  const format::ParsedAnnotation parsed = format::parse_annotation(text);
  check(inside(parsed.name, text), "the name is a view into the input");
  // Metadata is split off only from text that ends with '#', as TraceMe writes it; any other
  // name with a '#' is kept whole.
  check(parsed.name.find('#') == std::string_view::npos || (parsed.name == text && text.back() != '#'),
        "the name ends before the first '#', or is the whole text when that does not end with '#'");
  std::vector<TraceArg> args;
  for (const auto& a : parsed.args) {
    check(!a.key.empty() && inside_parse(a.key, text, parsed), "keys are non-empty views into the input or the parse");
    if (auto* s = std::get_if<std::string_view>(&a.value))
      check(inside_parse(*s, text, parsed), "string values are views into the input or the parse");
    args.push_back(as_trace_arg(a.key, a.value));
  }

  std::string encoded;
  format::append_encoded(encoded, parsed.name, args.data(), args.size());
  const format::ParsedAnnotation again = format::parse_annotation(encoded);
  check(again.name == parsed.name, "encoding what was parsed keeps the name");
  check(again.args.size() == parsed.args.size(), "encoding what was parsed keeps every argument");
  for (size_t i = 0; i < again.args.size(); ++i) {
    check(again.args[i].key == parsed.args[i].key, "and its key");
    // Text reads back as itself (a number written as text may read back as a number).
    const auto* before = std::get_if<std::string_view>(&parsed.args[i].value);
    const auto* after = std::get_if<std::string_view>(&again.args[i].value);
    if (before != nullptr && after != nullptr) check(*before == *after, "and its text");
  }

  // A buffer of exactly `cap` bytes, so that AddressSanitizer sees any write past it.
  const size_t cap = cap_seed % (encoded.size() + 2);
  auto buf = std::make_unique<char[]>(cap);
  const size_t needed = format::encode_into(buf.get(), cap, parsed.name, args.data(), args.size());
  check(needed == encoded.size(), "the bounded encoder needs what the growing one wrote");
  check(std::string_view(buf.get(), std::min(cap, needed)) == std::string_view(encoded).substr(0, std::min(cap, needed)),
        "the bounded encoder writes a prefix of the same text");
  return 0;
}
