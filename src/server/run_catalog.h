// The runs and hosts under the served logdir. Every call looks at the disk again (a directory
// listing is cheap), so runs written while the server runs appear without a restart.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/profile_paths.h"

namespace mlprof::server {

class RunCatalog {
 public:
  explicit RunCatalog(std::string logdir) : logdir_(std::move(logdir)) {}

  const std::string& logdir() const { return logdir_; }

  // All runs, sorted by name (newest last); empty when the logdir holds no profile yet.
  std::vector<format::RunLocation> runs() const;

  // The run with this exact name, if it exists now.
  std::optional<format::RunLocation> find_run(std::string_view name) const;

 private:
  std::string logdir_;
};

// Says whether `host` names one of the run's hosts; an empty host means all of them.
bool has_host(const format::RunLocation& run, std::string_view host);

// Changes whenever one of the profile files that a query reads changes (size, modification or
// change time, or the file itself, replaced by a rename), so cached results of a rewritten
// profile are computed again.
std::string files_version(const format::RunLocation& run, std::string_view host);

}  // namespace mlprof::server
