#include "capture/cupti/cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace mlprof::capture::gpu {
namespace {

constexpr const char* kFix =
    "install CUDA's CUPTI and put the folder holding libcupti.so (the toolkit's lib64, or "
    "extras/CUPTI/lib64) on LD_LIBRARY_PATH, or set MLPROF_CUPTI_LIBRARY to its path";

std::string dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown error";
}

}  // namespace

std::string CuptiLibrary::result_name(CUptiResult result) const {
  const char* text = nullptr;
  if (cuptiGetResultString != nullptr && cuptiGetResultString(result, &text) == CUPTI_SUCCESS && text != nullptr)
    return text;
  return "CUPTI error " + std::to_string(int(result));
}

const CuptiLibrary* load_cupti_from(const std::string& path, std::string* error) {
  // One per file for the process: CUDA may call into a loaded CUPTI until exit.
  static std::mutex mu;
  static auto* loaded = new std::map<std::string, const CuptiLibrary*>;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded->find(path); it != loaded->end()) return it->second;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = "cannot load CUPTI (" + dl_error() + ")";
    return nullptr;
  }
  auto* lib = new CuptiLibrary;
  lib->path = path;
  bool complete = true;
  std::string missing;
#define MLPROF_CUPTI_RESOLVE(name)                                                        \
  lib->name = reinterpret_cast<decltype(lib->name)>(dlsym(handle, #name));                \
  if (lib->name == nullptr) complete = false, missing += (missing.empty() ? "" : ", ") + std::string(#name);
  MLPROF_CUPTI_FUNCTIONS(MLPROF_CUPTI_RESOLVE)
#undef MLPROF_CUPTI_RESOLVE
  lib->cuptiActivityRegisterTimestampCallback = reinterpret_cast<decltype(lib->cuptiActivityRegisterTimestampCallback)>(
      dlsym(handle, "cuptiActivityRegisterTimestampCallback"));
  lib->cuptiActivityEnableAndDump =
      reinterpret_cast<decltype(lib->cuptiActivityEnableAndDump)>(dlsym(handle, "cuptiActivityEnableAndDump"));
  if (!complete) {
    *error = path + " is not a usable CUPTI: it lacks " + missing;
    delete lib;
    dlclose(handle);
    return nullptr;
  }
  // Activity records are read with the struct versions of the headers mlprof was built with:
  // an older CUPTI writes shorter, older records.
  uint32_t version = 0;
  if (lib->cuptiGetVersion(&version) != CUPTI_SUCCESS || version < CUPTI_API_VERSION) {
    *error = path + " is CUPTI API version " + std::to_string(version) + ", older than the " +
             std::to_string(CUPTI_API_VERSION) + " mlprof was built with; point MLPROF_CUPTI_LIBRARY at the "
             "libcupti of CUDA " + std::to_string(CUDA_VERSION / 1000) + " or later";
    delete lib;
    return nullptr;  // the library stays loaded: it may not be safe to unload
  }
  loaded->emplace(path, lib);
  return lib;
}

const CuptiLibrary* load_cupti(std::string* error) {
  static std::mutex mu;
  static const CuptiLibrary* loaded = nullptr;  // from the usual places
  std::lock_guard<std::mutex> lock(mu);
  if (const char* chosen = std::getenv(kCuptiLibraryVariable); chosen != nullptr && *chosen != '\0') {
    const CuptiLibrary* lib = load_cupti_from(chosen, error);
    if (lib == nullptr) *error += " (from " + std::string(kCuptiLibraryVariable) + "=" + chosen + "); " + kFix;
    return lib;
  }
  if (loaded != nullptr) return loaded;
  std::vector<std::string> candidates = {"libcupti.so." + std::to_string(CUDA_VERSION / 1000), "libcupti.so"};
#ifdef MLPROF_BUILT_CUPTI_LIBRARY
  candidates.push_back(MLPROF_BUILT_CUPTI_LIBRARY);
#endif
  std::string first_error;
  for (const std::string& path : candidates) {
    std::string e;
    loaded = load_cupti_from(path, &e);
    if (loaded != nullptr) return loaded;
    if (first_error.empty()) first_error = e;
  }
  *error = first_error + "; " + kFix;
  return nullptr;
}

}  // namespace mlprof::capture::gpu
