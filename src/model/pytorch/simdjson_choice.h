// simdjson picks its kernels once, on first use, from SIMDJSON_FORCE_IMPLEMENTATION when set:
// a name it lacks (or an empty one) makes every parse fail with "no implementation supported by
// this CPU", and one this processor cannot run may stop the process. The PyTorch reader asks
// here first, so that the message names the variable instead.
#pragma once

#include <string>

namespace mlprof::model::kineto {

// Empty when simdjson can parse as the environment asks; else one line saying what is wrong
// with SIMDJSON_FORCE_IMPLEMENTATION and which names would do.
std::string simdjson_choice_problem();

}  // namespace mlprof::model::kineto
