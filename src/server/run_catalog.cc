#include "server/run_catalog.h"

#include <filesystem>
#include <system_error>

namespace mlprof::server {
namespace fs = std::filesystem;

std::vector<format::RunLocation> RunCatalog::runs() const {
  // find_profiles reports "no profile found" as an error; for a server that is just an
  // empty logdir that may fill later.
  return format::find_profiles(logdir_).runs;
}

std::optional<format::RunLocation> RunCatalog::find_run(std::string_view name) const {
  for (auto& run : runs())
    if (run.name == name) return std::move(run);
  return std::nullopt;
}

bool has_host(const format::RunLocation& run, std::string_view host) {
  if (host.empty()) return true;
  for (const auto& h : run.hosts)
    if (h.host == host) return true;
  return false;
}

std::string files_version(const format::RunLocation& run, std::string_view host) {
  std::string version;
  for (const auto& h : run.hosts) {
    if (!host.empty() && h.host != host) continue;
    std::error_code ec;
    const auto size = fs::file_size(h.path, ec);
    const auto time = fs::last_write_time(h.path, ec);
    version += h.path + ':' + std::to_string(ec ? 0 : size) + ':' +
               std::to_string(ec ? 0 : time.time_since_epoch().count()) + ';';
  }
  return version;
}

}  // namespace mlprof::server
