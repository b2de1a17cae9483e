// The names PyTorch's profiler gives an op's and a collective's arguments (Kineto's `args`):
// the reader keeps them under these names as stats of the op's or kernel's event name, and
// the analysis looks them up by them.
#pragma once

#include <string_view>

namespace mlprof::model {

inline constexpr std::string_view kArgInputType = "Input type";  // ["c10::BFloat16", "float", ...]
inline constexpr std::string_view kArgInputDims = "Input Dims";  // [[4, 3], [3], []]
inline constexpr std::string_view kArgCollectiveName = "Collective name";
inline constexpr std::string_view kArgInMsgNelems = "In msg nelems";
inline constexpr std::string_view kArgOutMsgNelems = "Out msg nelems";
inline constexpr std::string_view kArgInSplitSize = "In split size";
inline constexpr std::string_view kArgOutSplitSize = "Out split size";
inline constexpr std::string_view kArgDtype = "dtype";
inline constexpr std::string_view kArgGroupSize = "Group size";
inline constexpr std::string_view kArgProcessGroupName = "Process Group Name";
inline constexpr std::string_view kArgProcessGroupRanks = "Process Group Ranks";
// A CUDA event wait (Kineto's cuda_sync events "Event Sync" and "Stream Wait Event"): the
// correlation id of the cudaEventRecord call waited for, the stream that event was recorded on,
// and, for a stream waiting, that stream.
inline constexpr std::string_view kArgWaitOnEventRecord = "wait_on_cuda_event_record_corr_id";
inline constexpr std::string_view kArgWaitOnStream = "wait_on_stream";
inline constexpr std::string_view kArgWaitingStream = "stream";

}  // namespace mlprof::model
