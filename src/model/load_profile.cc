#include "model/load_profile.h"

#include <sys/stat.h>

#include <vector>

#include "format/profile_paths.h"
#include "model/pytorch_importer.h"
#include "model/xspace_importer.h"

namespace mlprof::model {

bool load_profile(const LoadRequest& request, Profile* profile, LoadError* error) {
  const format::ProfileLocation where = format::find_profiles(request.path);
  if (!where.error.empty()) {
    *error = {request.path, where.error};
    return false;
  }
  std::string problem;
  const format::RunLocation* run = format::select_run(where, request.run, &problem);
  if (run == nullptr) {
    *error = {request.path, problem};
    return false;
  }
  profile->run = run->name;
  // Progress is by bytes over all the files this load reads.
  std::vector<const format::HostFile*> files;
  uint64_t total_bytes = 0;
  for (const format::HostFile& host : run->hosts) {
    if (!request.host.empty() && host.host != request.host) continue;
    files.push_back(&host);
    struct stat st {};
    if (::stat(host.path.c_str(), &st) == 0) total_bytes += uint64_t(st.st_size);
  }
  const bool any = !files.empty();
  uint64_t done_bytes = 0;
  for (const format::HostFile* file : files) {
    const format::HostFile& host = *file;
    struct stat st {};
    const uint64_t file_bytes = ::stat(host.path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
    LoadProgress file_progress;
    if (request.progress && total_bytes > 0) {
      file_progress = [&, file_bytes](double f) {
        request.progress((double(done_bytes) + f * double(file_bytes)) / double(total_bytes));
      };
    }
    const bool imported = host.kind == format::ProfileFileKind::kPyTorchJson
                              ? import_pytorch_trace_file(host.path, host.host, profile, &problem, file_progress)
                              : import_xspace_file(host.path, host.host, profile, &problem, file_progress);
    done_bytes += file_bytes;
    if (request.progress && total_bytes > 0) request.progress(double(done_bytes) / double(total_bytes));
    if (!imported) {
      *error = {host.path, problem};
      return false;
    }
  }
  if (!any) {
    std::string hosts;
    for (const auto& h : run->hosts) hosts += (hosts.empty() ? "" : ", ") + h.host;
    *error = {run->dir, "no host \"" + request.host + "\" in run " + run->name + " (hosts: " + hosts + ")"};
    return false;
  }
  return true;
}

}  // namespace mlprof::model
