// MLPROF_SERVER_PORT is read by libmlprof_rpc, not by this library. A program that sets it but
// does not link mlprof::rpc would otherwise get no server and no word about it, so when this
// library loads it looks for libmlprof_rpc's marker and says so once on stderr.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace mlprof::capture {
namespace {

[[maybe_unused]] const bool g_server_port_checked = [] {
  const char* spec = std::getenv("MLPROF_SERVER_PORT");
  if (spec == nullptr || *spec == '\0') return false;
  // Libraries a program links are all mapped before any of them initialises, so the marker
  // is found here whatever the order of initialisation.
  if (dlsym(RTLD_DEFAULT, "mlprof_rpc_server_autostart") != nullptr) return false;
  std::fprintf(stderr,
               "mlprof: MLPROF_SERVER_PORT=%s is set, but this program does not load libmlprof_rpc "
               "(link mlprof::rpc to start the profiler server): no server\n",
               spec);
  return true;
}();

}  // namespace
}  // namespace mlprof::capture
