// CUPTI, loaded with dlopen when a session first traces the GPU, so that libmlprof has no
// link-time dependency on CUDA: a program on a machine without CUDA runs unchanged, and a
// missing or mismatched libcupti is a warning in the profile instead of a failed start.
#pragma once

#include <cupti.h>

#include <string>

namespace mlprof::capture::gpu {

struct CuptiLibrary {
#define MLPROF_CUPTI_FUNCTIONS(X)                                                                           \
  X(cuptiGetVersion) X(cuptiGetResultString) X(cuptiSubscribe) X(cuptiUnsubscribe) X(cuptiEnableDomain)     \
  X(cuptiGetCallbackName) X(cuptiActivityEnable) X(cuptiActivityDisable) X(cuptiActivityRegisterCallbacks)  \
  X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords) X(cuptiGetTimestamp)
#define MLPROF_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  MLPROF_CUPTI_FUNCTIONS(MLPROF_CUPTI_MEMBER)
#undef MLPROF_CUPTI_MEMBER
  // Newer CUPTIs only (null otherwise): lets activity records use the session's clock, and
  // reports the devices a program initialised before the session started.
  decltype(&::cuptiActivityRegisterTimestampCallback) cuptiActivityRegisterTimestampCallback = nullptr;
  decltype(&::cuptiActivityEnableAndDump) cuptiActivityEnableAndDump = nullptr;

  std::string path;  // the file it came from

  // "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" for a result code.
  std::string result_name(CUptiResult result) const;
};

// The environment variable that names the libcupti to load, where the usual search fails.
inline constexpr const char* kCuptiLibraryVariable = "MLPROF_CUPTI_LIBRARY";

// Loads CUPTI once per process (it is never unloaded: CUDA may call into it until exit) from
// $MLPROF_CUPTI_LIBRARY, else libcupti.so.<CUDA major> and libcupti.so on the library path,
// else the toolkit mlprof was built against. Returns null and says why, with the fix, when it
// cannot, or when that CUPTI is older than the headers mlprof was built with.
const CuptiLibrary* load_cupti(std::string* error);

// Loads the CUPTI at `path`, once per path and process.
const CuptiLibrary* load_cupti_from(const std::string& path, std::string* error);

}  // namespace mlprof::capture::gpu
