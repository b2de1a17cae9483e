#include "server/run_catalog.h"

#include <sys/stat.h>

namespace mlprof::server {

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
    // Size and modification time miss a rewrite that keeps both (a copy that preserves times,
    // a same-size change within one clock tick): the change time and the inode catch those.
    struct stat st {};
    version += h.path;
    if (::stat(h.path.c_str(), &st) == 0) {
      version += ':' + std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
                 std::to_string(st.st_mtim.tv_nsec) + ':' + std::to_string(st.st_ctim.tv_sec) + '.' +
                 std::to_string(st.st_ctim.tv_nsec) + ':' + std::to_string(st.st_ino) + ':' +
                 std::to_string(st.st_dev);
    }
    version += ';';
  }
  return version;
}

}  // namespace mlprof::server
