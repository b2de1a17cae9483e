#include "model/pytorch/number.h"

namespace mlprof::model::kineto {

bool parse_fixed_rarely(std::string_view token, int decimals, int64_t* out) { return parse_fixed(token, decimals, out); }

}  // namespace mlprof::model::kineto
