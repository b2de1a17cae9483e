// The profiler server with no code change: when libmlprof_rpc loads with MLPROF_SERVER_PORT
// set ("PORT", or "ADDRESS:PORT" to listen elsewhere than 127.0.0.1), the server starts (and
// it stops at process exit, as every server does).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mlprof/server.h"

// Tells libmlprof, which warns about MLPROF_SERVER_PORT when this library is absent, that
// the server is handled here.
extern "C" __attribute__((visibility("default"))) const int mlprof_rpc_server_autostart = 1;

namespace mlprof {
namespace {

bool parse_port(const std::string& text, int* port) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || value < 0 || value > 65535) return false;
  *port = int(value);
  return true;
}

// "6009", "0.0.0.0:6009", "[::1]:6009".
bool parse_listen_spec(const std::string& spec, ServerOptions* options, int* port) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos) return parse_port(spec, port);
  std::string address = spec.substr(0, colon);
  if (address.size() >= 2 && address.front() == '[' && address.back() == ']') address = address.substr(1, address.size() - 2);
  if (address.empty()) return false;
  options->bind_address = address;
  return parse_port(spec.substr(colon + 1), port);
}

// Runs when the library is loaded, before main().
[[maybe_unused]] const bool g_server_auto_started = [] {
  const char* spec = std::getenv("MLPROF_SERVER_PORT");
  if (spec == nullptr || *spec == '\0') return false;
  ServerOptions options;
  int port = 0;
  if (!parse_listen_spec(spec, &options, &port)) {
    std::fprintf(stderr, "mlprof: ignoring MLPROF_SERVER_PORT=%s: expected PORT or ADDRESS:PORT\n", spec);
    return false;
  }
  if (const Status status = start_server(port, options); !status.ok()) {
    std::fprintf(stderr, "mlprof: no profiler server: %s\n", status.message().c_str());
    return false;
  }
  std::fprintf(stderr, "mlprof: profiler server listening on %s:%d\n", options.bind_address.c_str(), server_port());
  return true;
}();

}  // namespace
}  // namespace mlprof
