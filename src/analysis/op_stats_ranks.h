// One row per rank of the op stats (docs/ARCHITECTURE.md §5.9): each rank's ops' self time on
// the host and on its devices and the op it spent most time in, on one scale (ms over the whole
// profile), before the ops of all ranks together. A rank's row comes from its own op totals,
// so a run read whole and a run read one file at a time (host_summary.h) give the same rows.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/framework_op_stats.h"
#include "model/profile.h"

namespace mlprof::analysis {

// The row of one rank's totals (host and file left to the caller); idle time is no op.
OpStatsRankRow op_stats_rank_row(const OpStatsTotals& totals);
// Every host of the profile, labelled (host_labels.h); empty for fewer than two hosts.
std::vector<OpStatsRankRow> op_stats_rank_rows(const model::Profile& profile);

nlohmann::json to_json(const std::vector<OpStatsRankRow>& rows);

}  // namespace mlprof::analysis
