// Gzip in memory, for tests and seed files that need a compressed trace.
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace mlprof::testing {

inline std::string gzip(std::string_view bytes, int level = Z_BEST_SPEED) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, uLong(bytes.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = uInt(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace mlprof::testing
