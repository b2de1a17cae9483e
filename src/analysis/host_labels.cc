#include "analysis/host_labels.h"

#include <map>

namespace mlprof::analysis {

std::string rank_label(int64_t rank) { return "rank " + std::to_string(rank); }

std::vector<std::string> host_labels(const std::vector<int64_t>& ranks, const std::vector<std::string>& files) {
  std::map<int64_t, int> hosts_of_rank;
  for (int64_t r : ranks)
    if (r >= 0) ++hosts_of_rank[r];
  std::vector<std::string> out;
  out.reserve(ranks.size());
  for (size_t h = 0; h < ranks.size(); ++h)
    out.push_back(ranks[h] >= 0 && hosts_of_rank[ranks[h]] == 1 ? rank_label(ranks[h]) : files[h]);
  return out;
}

std::vector<std::string> host_labels(const model::Profile& p) {
  std::vector<int64_t> ranks;
  std::vector<std::string> files;
  for (const model::Host& h : p.hosts) {
    ranks.push_back(h.rank);
    files.emplace_back(p.strings.view(h.name));
  }
  return host_labels(ranks, files);
}

}  // namespace mlprof::analysis
