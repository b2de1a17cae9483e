#include "model/pytorch/number.h"

namespace mlprof::model::kineto {

bool parse_fixed_rarely(std::string_view token, int decimals, int64_t* out) {
  // A negative number of the usual shapes (some memory events' sizes): its magnitude read as
  // parse_fixed_padded reads the others (the padding after the token is the same), the sign
  // applied here. A magnitude it refuses (2^63 among them) is left to the general way.
  if (token.size() >= 2 && token[0] == '-' && unsigned(token[1] - '0') < 10) {
    int64_t magnitude;
    if (parse_fixed_padded(token.substr(1), decimals, &magnitude)) {
      *out = -magnitude;
      return true;
    }
  }
  return parse_fixed(token, decimals, out);
}

}  // namespace mlprof::model::kineto
