// mlprof::set_thread_name: names the calling thread's line in this and later sessions.
#include <mutex>
#include <string>
#include <unordered_set>

#include "mlprof/mlprof.h"
#include "capture/recorder.h"

namespace mlprof {
namespace {

// Names are kept for the process: chunks point at them until their session is written.
const char* intern_thread_name(std::string_view name) {
  static std::mutex* mu = new std::mutex;
  static auto* names = new std::unordered_set<std::string>;
  std::lock_guard<std::mutex> lock(*mu);
  return names->emplace(name).first->c_str();
}

}  // namespace

void set_thread_name(std::string_view name) {
  capture::set_name_of_this_thread(intern_thread_name(name));
}

}  // namespace mlprof
