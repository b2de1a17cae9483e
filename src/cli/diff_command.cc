// mlprof diff A B: two runs side by side (step time, breakdown, ops that got slower or faster).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <optional>

#include "analysis/diff_gate.h"
#include "analysis/framework_op_stats.h"
#include "analysis/host_summary.h"
#include "analysis/overview_page.h"
#include "analysis/profile_diff.h"
#include "cli/commands.h"
#include "cli/load_request.h"
#include "cli/report_text.h"
#include "cli/progress_bar.h"
#include "model/load_profile.h"

namespace mlprof::cli {
namespace {

struct DiffOptions {
  std::string a, b;
  std::string run_a, run_b;
  std::string host;
  std::string format = "text";
  size_t max_ops = 20;
  unsigned jobs = 0;  // --jobs
  std::optional<double> fail_above_pct;  // --fail-above: the CI gate
};

// Exit codes of the --fail-above gate (1 and 2 are usage and input errors): failed, and could
// not judge. The latter is its own status so that CI neither passes nor blames B on figures the
// diff calls not comparable, and a job can choose what to do with it.
constexpr int kSlowerThanAllowed = 3;
constexpr int kGateNotJudged = 4;

// The gate's verdict on stderr, so that stdout keeps the chosen format.
int report_gate(const analysis::DiffGate& gate) {
  if (!gate.judged()) {
    std::fprintf(stderr, "mlprof: --fail-above %.1f cannot judge the step times: %s\n", gate.limit_pct,
                 gate.not_judged_why.c_str());
    return kGateNotJudged;
  }
  if (!gate.failed) {
    std::fprintf(stderr, "mlprof: B's average step is %.1f%% %s than A's (limit %.1f%%): ok\n",
                 std::abs(gate.slower_pct), gate.slower_pct >= 0 ? "slower" : "faster", gate.limit_pct);
    return kOk;
  }
  std::string text = fmt::format("mlprof: B's average step is {:.1f}% slower than A's (limit {:.1f}%)\n",
                                 gate.slower_pct, gate.limit_pct);
  if (!gate.grown_categories.empty()) {
    text += "  categories that grew (ms per step):\n";
    for (const auto& c : gate.grown_categories)
      text += fmt::format("    {:<20} {:>10.3f} -> {:>10.3f}  (+{:.3f})\n", c.key, c.a_ms, c.b_ms, c.b_ms - c.a_ms);
  }
  if (!gate.grown_ops.empty()) {
    text += "  ops that grew (self time, ms per step):\n";
    for (const auto& op : gate.grown_ops)
      text += fmt::format("    {:<40} {:>10.3f} -> {:>10.3f}  (+{:.3f}, {})\n", op.name, op.a_ms, op.b_ms,
                          op.b_ms - op.a_ms, op.status);
  }
  std::fputs(text.c_str(), stderr);
  return kSlowerThanAllowed;
}

struct Analysed {
  analysis::OverviewPage overview;
  analysis::StepOpTimes op_times;
  std::string name;
};

// The overview and the op stats are summary-level tools (tool_registry.h): a run is read one
// file at a time on --jobs threads, each file's hosts summarised on its reading thread and its
// events dropped, as `mlprof report` does; a run whose hosts must be analysed together is read
// again, whole.
bool analyse_from_summaries(const DiffOptions& o, const std::string& path, const std::string& run, Analysed* out,
                            model::LoadError* error, bool* exact) {
  analysis::RunSummary summary;
  {
    ProgressBar bar("loading " + path);
    if (!analysis::load_run_summary(load_request(path, run, o.host, o.jobs, &bar),
                                    analysis::kOverview | analysis::kPodHosts | analysis::kOpTotals | analysis::kStepOpTimes,
                                    &summary, error))
      return false;
  }
  *exact = summary.exact();
  if (!*exact) return true;
  out->op_times = summary.step_op_times();
  out->overview = analysis::compose_overview_page(summary.overview_parts());
  out->name = summary.run();
  return true;
}

bool analyse(const DiffOptions& o, const std::string& path, const std::string& run, Analysed* out,
             model::LoadError* error) {
  bool exact = false;
  if (!analyse_from_summaries(o, path, run, out, error, &exact)) return false;
  if (exact) return true;
  model::Profile profile;
  {
    ProgressBar bar("loading " + path);
    if (!model::load_profile(load_request(path, run, o.host, o.jobs, &bar), &profile, error)) return false;
  }
  const auto steps = analysis::analyze_steps(profile);
  out->op_times = analysis::op_time_by_step(profile, steps);
  out->overview = analysis::compute_overview_page(profile, steps, analysis::compute_framework_op_stats(profile),
                                                  analysis::compute_tf_data_bottleneck_analysis(profile, steps));
  out->name = profile.run;
  return true;
}

int run_diff(const DiffOptions& o) {
  Analysed a, b;
  model::LoadError error;
  if (!analyse(o, o.a, o.run_a, &a, &error)) return bad_input(error.path, error.problem);
  if (!analyse(o, o.b, o.run_b, &b, &error)) return bad_input(error.path, error.problem);
  auto diff = analysis::compute_profile_diff({a.overview, a.op_times}, {b.overview, b.op_times}, o.max_ops);
  diff.a_name = o.a + (a.name.empty() ? "" : " (" + a.name + ")");
  diff.b_name = o.b + (b.name.empty() ? "" : " (" + b.name + ")");
  if (o.format == "json") fmt::print("{}\n", analysis::to_json(diff).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  else if (o.format == "csv") fmt::print("{}", analysis::to_csv(diff));
  else fmt::print("{}", render_text(diff));
  if (o.fail_above_pct) {
    std::fflush(stdout);
    return report_gate(analysis::check_diff_gate(diff, *o.fail_above_pct));
  }
  return kOk;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto* sub = app.add_subcommand("diff", "Compare two runs: step time, breakdown, and ops that got slower or faster");
  auto o = std::make_shared<DiffOptions>();
  sub->add_option("A", o->a, "the baseline: " + std::string(kProfilePathHelp))->required();
  sub->add_option("B", o->b, "the run to compare with A: " + std::string(kProfilePathHelp))->required();
  sub->add_option("--run-a", o->run_a, "run of A (default: the newest)");
  sub->add_option("--run-b", o->run_b, "run of B (default: the newest)");
  sub->add_option("--host", o->host, "compare one host only");
  sub->add_option("--format,-f", o->format, "text, json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  sub->add_option("--max-ops", o->max_ops, "how many changed ops to list")->capture_default_str();
  add_jobs_option(sub, &o->jobs);
  sub->add_option("--fail-above", o->fail_above_pct,
                  "exit with status 3 when B's average step is more than PCT % slower than A's, listing the "
                  "categories and ops that grew (a gate for CI); with status 4 and the reason when the step "
                  "times cannot be judged (the diff says not comparable: only one run has step markers; or A "
                  "has no step time)")
      ->check(CLI::NonNegativeNumber);
  return {sub, [o]() { return run_diff(*o); }};
}

}  // namespace mlprof::cli
