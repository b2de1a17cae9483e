// gzip for HTTP bodies. The server compresses its own answers and keeps the HTTP library from
// compressing them, because the library picks Brotli at its slowest setting for browsers that
// accept it: seconds for a few megabytes of op stats, where gzip takes milliseconds.
#pragma once

#include <string>
#include <string_view>

namespace mlprof::server {

// Whether an Accept-Encoding header value allows gzip.
bool accepts_gzip(std::string_view accept_encoding);

// The bytes gzip-compressed (fast level), or empty when compression fails.
std::string gzip_compress(std::string_view bytes);

}  // namespace mlprof::server
