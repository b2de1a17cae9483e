// Why CUPTI refused to trace, in one sentence with the fix: the text of the warning a profile
// gets instead of GPU events.
#pragma once

#include <cupti.h>

#include <string>

namespace mlprof::capture::gpu {

// `call` is the CUPTI function that failed, `result_name` CUPTI's name for `result`.
std::string explain_cupti_failure(const std::string& call, CUptiResult result, const std::string& result_name);

}  // namespace mlprof::capture::gpu
