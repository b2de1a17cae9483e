// What the multi-rank tools call each host: "rank 3" where its trace records its rank
// (PyTorch's distributedInfo) and no other host of the profile records the same one, else its
// name (the file name without extension, which is also how a user finds its file).
#pragma once

#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

std::string rank_label(int64_t rank);  // "rank 3"
std::vector<std::string> host_labels(const model::Profile& profile);
// The same from each host's recorded rank (-1: none) and file name, in one order.
std::vector<std::string> host_labels(const std::vector<int64_t>& ranks, const std::vector<std::string>& files);

}  // namespace mlprof::analysis
