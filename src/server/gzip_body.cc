#include "server/gzip_body.h"

#include <zlib.h>

namespace mlprof::server {

bool accepts_gzip(std::string_view accept_encoding) {
  const auto at = accept_encoding.find("gzip");
  if (at == std::string_view::npos) return false;
  // "gzip;q=0" refuses it.
  const auto rest = accept_encoding.substr(at + 4);
  const auto end = rest.find(',');
  const auto params = rest.substr(0, end);
  return params.find("q=0") == std::string_view::npos || params.find("q=0.") != std::string_view::npos;
}

std::string gzip_compress(std::string_view bytes) {
  if (bytes.size() > (1u << 30)) return {};  // zlib counts in 32 bits; send such bodies as they are
  z_stream z{};
  // 15 window bits + 16: a gzip header; level 4 is fast and still shrinks JSON ~10x.
  if (deflateInit2(&z, 4, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, uLong(bytes.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = uInt(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : std::string();
}

}  // namespace mlprof::server
