// Ingest on every core (docs/ARCHITECTURE.md §6: a gzipped PyTorch trace read in ≤ 0.6× the time
// `gzip -dc` takes on it; a run's hosts read on all cores). Each figure is taken against its
// baseline in the same run, the two measured in turn, median of three; wall time, so the load
// average of the machine is printed with each line. In its build folder it writes ten
// time-shifted copies of the largest real trace in ../shared/testdata/pytorch (plain and
// gzipped), eight ranks of one copy each and 64 ranks of a smaller trace, then prints:
//   gzip_report: `mlprof report` on the ten copies .json.gz against `gzip -dc` on the same file
//     (target ≤ 0.6×), and its peak RSS (target ≤ 240 MB)
//   plain_json_report: MB/s of `mlprof report` on the ten copies as plain JSON (target ≥ 600 MB/s
//     on two cores)
//   ranks_report: a folder of 8 ranks with --jobs 1, 2, 4 against eight times one rank's time
//     (target ≤ 0.6× on two cores), and the speedup per thread count
//   pod_viewer_64_ranks: peak RSS of `report --tool pod_viewer --jobs 2` on 64 ranks against the
//     same command on one of them (target ≤ 1.5×), the same for the overview, and whether the
//     summary-level tools give the whole run's bytes from per-host summaries on those ranks
// Arguments, when given, name the figures to take (`parallel_ingest_bench ranks_report`): only
// their traces are written.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/analyzed_profile.h"
#include "analysis/host_summary.h"
#include "analysis/tool_registry.h"
#include "model/load_profile.h"
#include "model/pytorch_importer.h"
#include "trace_copies.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kLarge = MLPROF_TESTDATA "/pytorch/df_index_resolver__df_index_resolver.json.gz";
constexpr const char* kSmall = MLPROF_TESTDATA "/pytorch/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

struct Run {
  double wall_s = 0;
  double cpu_s = 0;  // user + system, all threads
  double peak_mb = 0;
  bool ok = false;
};

// Runs a command with its output thrown away: wall time and peak RSS.
Run run(const std::vector<std::string>& argv) {
  const auto begin = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::_Exit(127);
  }
  int status = 0;
  rusage usage{};
  Run r;
  r.ok = child > 0 && ::wait4(child, &status, 0, &usage) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  r.peak_mb = double(usage.ru_maxrss) * 1024 / 1e6;
  r.cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  return r;
}

// Medians of three runs of each command, run in turn (a, b, c, a, b, c, ...).
std::vector<Run> medians(const std::vector<std::vector<std::string>>& commands, int repeats = 3) {
  std::vector<std::vector<Run>> runs(commands.size());
  for (int k = 0; k < repeats; ++k)
    for (size_t c = 0; c < commands.size(); ++c) runs[c].push_back(run(commands[c]));
  std::vector<Run> out;
  for (auto& r : runs) {
    std::sort(r.begin(), r.end(), [](const Run& a, const Run& b) { return a.wall_s < b.wall_s; });
    Run m = r[r.size() / 2];
    for (const Run& x : r) m.ok = m.ok && x.ok, m.peak_mb = std::max(m.peak_mb, x.peak_mb);
    out.push_back(m);
  }
  return out;
}

std::string load() {
  std::ifstream f("/proc/loadavg");
  double one = 0;
  f >> one;
  char text[64];
  std::snprintf(text, sizeof text, "load %.1f on %ld cores", one, sysconf(_SC_NPROCESSORS_ONLN));
  return text;
}

bool gzip_file(const fs::path& from, const fs::path& to, int level) {
  if (fs::exists(to)) return true;
  std::FILE* in = std::fopen(from.c_str(), "rb");
  const std::string partial = to.string() + ".partial";
  gzFile out = gzopen(partial.c_str(), ("wb" + std::to_string(level)).c_str());
  if (in == nullptr || out == nullptr) return false;
  std::vector<char> buffer(1 << 20);
  size_t n;
  bool ok = true;
  while (ok && (n = std::fread(buffer.data(), 1, buffer.size(), in)) > 0) ok = gzwrite(out, buffer.data(), unsigned(n)) == int(n);
  std::fclose(in);
  ok = gzclose(out) == Z_OK && ok;
  return ok && (fs::rename(partial, to), true);
}

// The span of a trace in whole milliseconds, rounded up: copies this far apart do not overlap.
int64_t shift_ns(const char* source) {
  mlprof::model::Profile p;
  std::string error;
  if (!mlprof::model::import_pytorch_trace_file(source, "source", &p, &error)) return -1;
  int64_t end = 0;
  for (uint32_t e = 0; e < p.num_events(); ++e) end = std::max(end, p.end_ps(e));
  return (end / 1000000000 + 1) * 1000000;
}

// `count` ranks of one copy each, the k-th k spans later, gzipped, in `folder`.
bool write_ranks(const char* source, const fs::path& folder, int count) {
  const int64_t shift = shift_ns(source);
  if (shift < 0) return false;
  fs::create_directories(folder);
  for (int k = 0; k < count; ++k) {
    const fs::path plain = folder / ("rank" + std::to_string(k) + ".json.tmp");
    const fs::path gz = folder / ("rank" + std::to_string(k) + ".pt.trace.json.gz");
    if (fs::exists(gz)) continue;
    if (!mlprof::bench::write_copies(source, plain, 1, shift, k) || !gzip_file(plain, gz, 1)) return false;
    fs::remove(plain);
  }
  return true;
}

// Whether a summary-level tool gives the same JSON and CSV from the run's per-host summaries as
// from the whole run read into one profile.
bool same_from_summaries(const fs::path& run, const mlprof::analysis::Tool& tool) {
  namespace analysis = mlprof::analysis;
  mlprof::model::Profile profile;
  mlprof::model::LoadError error;
  if (!mlprof::model::load_profile({run.string(), "", ""}, &profile, &error)) return false;
  const analysis::AnalyzedProfile whole(std::move(profile));
  analysis::RunSummary summary;
  if (!analysis::load_run_summary({run.string(), "", ""}, tool.from_summary->reads, &summary, &error)) return false;
  if (!summary.exact()) return true;  // mlprof report reads such a run whole
  const analysis::ToolResult a = analysis::run_tool(tool, whole, {}), b = analysis::run_tool(tool, summary, {});
  auto csv = [](const analysis::ToolResult& r) {
    try {
      return r.csv();
    } catch (const analysis::ToolRequestError&) {
      return std::string();
    }
  };
  return a.json().dump() == b.json().dump() && csv(a) == csv(b);
}

double megabytes_of_text(const fs::path& path) { return double(fs::file_size(path)) / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> asked(argv + 1, argv + argc);
  const auto wanted = [&](const char* figure) {
    return asked.empty() || std::find(asked.begin(), asked.end(), figure) != asked.end();
  };
  if (!fs::exists(kLarge) || !fs::exists(kSmall)) {
    std::printf("parallel_ingest: skipped, the PyTorch traces of ../shared/testdata were not found\n");
    return 0;
  }
  const std::string mlprof = MLPROF_CLI;
  const fs::path folder = fs::path(MLPROF_BENCH_DIR) / "parallel_ingest_data";
  fs::create_directories(folder);
  const fs::path ten = folder / "df_index_x10.pt.trace.json", ten_gz = folder / "df_index_x10.pt.trace.json.gz";
  const bool single_file = wanted("gzip_report") || wanted("plain_json_report");
  const int64_t shift = single_file ? shift_ns(kLarge) : 0;
  if (shift < 0 ||
      (single_file && (!mlprof::bench::write_copies(kLarge, ten, 10, shift) || !gzip_file(ten, ten_gz, 6))) ||
      (wanted("ranks_report") && !write_ranks(kLarge, folder / "ranks8", 8)) ||
      (wanted("pod_viewer_64_ranks") && !write_ranks(kSmall, folder / "ranks64", 64))) {
    std::printf("parallel_ingest: could not write the bench's traces in %s\n", folder.c_str());
    return 1;
  }
  int status = 0;

  if (wanted("gzip_report")) {
    const auto r = medians({{"gzip", "-dc", ten_gz}, {mlprof, "report", ten_gz}});
    const double ratio = r[1].wall_s / r[0].wall_s;
    std::printf("gzip_report: mlprof report on 10 copies of df_index_resolver (%.0f MB .json.gz, %.0f MB JSON): "
                "%.2f s (%.2f s CPU), gzip -dc %.2f s (%.2f s CPU): %.2fx gzip -dc (target <= 0.6: %s), peak RSS "
                "%.0f MB (target <= 240: %s), %s\n",
                double(fs::file_size(ten_gz)) / 1e6, megabytes_of_text(ten), r[1].wall_s, r[1].cpu_s, r[0].wall_s,
                r[0].cpu_s, ratio, ratio <= 0.6 ? "met" : "NOT met", r[1].peak_mb, r[1].peak_mb <= 240 ? "met" : "NOT met",
                load().c_str());
    status |= !r[1].ok;
  }
  if (wanted("plain_json_report")) {
    const auto r = medians({{mlprof, "report", ten, "--jobs", "2"}});
    const double mb_per_s = megabytes_of_text(ten) / r[0].wall_s;
    std::printf("plain_json_report: mlprof report on the same as plain JSON: %.2f s (%.2f s CPU), %.0f MB/s (target >= "
                "600 on two cores: %s), peak RSS %.0f MB, %s\n",
                r[0].wall_s, r[0].cpu_s, mb_per_s, mb_per_s >= 600 ? "met" : "NOT met", r[0].peak_mb, load().c_str());
    status |= !r[0].ok;
  }
  if (wanted("ranks_report")) {
    const fs::path ranks = folder / "ranks8";
    const auto r = medians({{mlprof, "report", ranks / "rank0.pt.trace.json.gz"},
                            {mlprof, "report", ranks, "--jobs", "1"},
                            {mlprof, "report", ranks, "--jobs", "2"},
                            {mlprof, "report", ranks, "--jobs", "4"}});
    const double ratio = r[2].wall_s / (8 * r[0].wall_s);
    std::printf("ranks_report: 8 ranks of df_index_resolver: one rank %.2f s; all 8 with --jobs 1 %.2f s (%.2f s CPU), "
                "2 %.2f s (%.2f s CPU, %.2fx faster), 4 %.2f s (%.2fx); --jobs 2 is %.2fx eight times one rank's "
                "(target <= 0.6: %s), %s\n",
                r[0].wall_s, r[1].wall_s, r[1].cpu_s, r[2].wall_s, r[2].cpu_s, r[1].wall_s / r[2].wall_s, r[3].wall_s,
                r[1].wall_s / r[3].wall_s, ratio, ratio <= 0.6 ? "met" : "NOT met", load().c_str());
    for (const Run& x : r) status |= !x.ok;
  }
  if (wanted("pod_viewer_64_ranks")) {
    // The same command on one rank and on all 64, two ranks in flight (--jobs 2): the peak RSS of
    // the process (its rusage), the largest of three runs each.
    const fs::path ranks = folder / "ranks64";
    const auto r = medians({{mlprof, "report", ranks / "rank0.pt.trace.json.gz", "--tool", "pod_viewer", "--jobs", "2"},
                            {mlprof, "report", ranks, "--tool", "pod_viewer", "--jobs", "2"}});
    const double ratio = r[1].peak_mb / r[0].peak_mb;
    std::printf("pod_viewer_64_ranks: report --tool pod_viewer --jobs 2 on 64 ranks of ns_resolution_trace: peak RSS "
                "%.0f MB in %.2f s; on one of them %.0f MB: %.2fx one rank's (target <= 1.5: %s), %s\n",
                r[1].peak_mb, r[1].wall_s, r[0].peak_mb, ratio, ratio <= 1.5 ? "met" : "NOT met", load().c_str());
    for (const Run& x : r) status |= !x.ok;
    // The overview, the other summary-level tool, the same way.
    const auto o = medians({{mlprof, "report", ranks / "rank0.pt.trace.json.gz", "--jobs", "2"},
                            {mlprof, "report", ranks, "--jobs", "2"}});
    const double overview_ratio = o[1].peak_mb / o[0].peak_mb;
    std::printf("overview_64_ranks: report (overview_page) --jobs 2 on the 64 ranks: peak RSS %.0f MB in %.2f s; on one "
                "of them %.0f MB: %.2fx one rank's, %s\n",
                o[1].peak_mb, o[1].wall_s, o[0].peak_mb, overview_ratio, load().c_str());
    for (const Run& x : o) status |= !x.ok;
    std::string differs;
    for (const mlprof::analysis::Tool& tool : mlprof::analysis::tools())
      if (tool.reads_summaries() && !same_from_summaries(ranks, tool)) differs += " " + std::string(tool.id);
    std::printf("summaries_64_ranks: every summary-level tool's JSON and CSV from per-host summaries against the "
                "whole run's on the 64 ranks: %s\n",
                differs.empty() ? "byte-identical" : ("DIFFER:" + differs).c_str());
    status |= !differs.empty();
  }
  return status;
}
