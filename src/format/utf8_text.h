// Text in profiles is bytes: an XSpace name or stat may hold anything its writer put there (a
// name cut in the middle of a character, a serialized proto as a "bytes" stat). Everything
// mlprof writes (JSON, CSV, text, traces) must be valid UTF-8, so such bytes are made text once,
// where they are read.
#pragma once

#include <string>
#include <string_view>

namespace mlprof::format {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view s);

// `s` with each invalid sequence replaced by U+FFFD, one per maximal invalid subpart (as the
// Unicode standard and browsers' decoders do).
std::string make_valid_utf8(std::string_view s);

// Bytes as lower-case hex, two digits a byte ("\x0a\xff" -> "0aff").
std::string hex_bytes(std::string_view bytes);

}  // namespace mlprof::format
