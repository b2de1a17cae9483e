// The one-row-per-rank table that the overview and the input pipeline print first on a run
// of several ranks (analysis/rank_step_table.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/rank_step_table.h"

namespace mlprof::cli {

// Every category some rank has, or only the input (`input_only`); empty for no rows.
std::string render_rank_steps(const std::vector<analysis::RankStepRow>& rows, bool input_only);

}  // namespace mlprof::cli
