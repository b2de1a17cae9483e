#include "model/load_profile.h"

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
  bool any = false;
  for (const format::HostFile& host : run->hosts) {
    if (!request.host.empty() && host.host != request.host) continue;
    any = true;
    const bool imported = host.kind == format::ProfileFileKind::kPyTorchJson
                              ? import_pytorch_trace_file(host.path, host.host, profile, &problem)
                              : import_xspace_file(host.path, host.host, profile, &problem);
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
