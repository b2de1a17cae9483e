// Ingest on every core (docs/ARCHITECTURE.md §6: a gzipped PyTorch trace read in ≤ 0.6× the time
// `gzip -dc` takes on it; a run's hosts read on all cores). Each figure is taken against its
// baseline in the same run, the two measured in turn, median of three; wall time, so the load
// average of the machine is printed with each line. In its build folder it writes ten
// time-shifted copies of the largest real trace in ../shared/testdata/pytorch (plain and
// gzipped), eight ranks of one copy each and 64 ranks of a smaller trace, then prints:
//   gzip_report: `mlprof report` on the ten copies .json.gz against `gzip -dc` on the same file
//     (target ≤ 0.6×), and its peak RSS (target ≤ 240 MB), beside reading alone (`report --tool
//     trace_viewer`); then the stages of reading that file
//   plain_json_report: MB/s of `mlprof report` on the ten copies as plain JSON (target ≥ 600 MB/s
//     on two cores) and its CPU a byte (target ≤ 2.5 ns), beside the CPU of reading alone
//     (`report --tool trace_viewer`, which computes nothing beyond the load), so that what the
//     overview's analysis adds shows; then the stages of reading that file
//   stages: where the CPU goes, in this process on the same two files: each stage's CPU time
//     (inflate, tokenise, parse, intern, build, index, lines, sort, model) in s and ns per byte
//     of JSON (printed once per file, after the figure above that reads it, when that is asked)
//   ranks_report: a folder of 8 ranks with --jobs 1, 2, 4 against eight times one rank's time
//     (target ≤ 0.6× on two cores), and the speedup per thread count
//   ranks_64_time: the pod viewer and the stragglers on the 64 ranks against reading them
//     (`report --tool trace_viewer`, which computes nothing beyond the load), --jobs 2 each
//     (target <= 1.2x), and the stragglers' peak RSS against one rank's
//   pod_viewer_64_ranks: peak RSS of `report --tool pod_viewer --jobs 2` on 64 ranks against the
//     same command on one of them (target ≤ 1.5×), the same for the overview, and whether the
//     summary-level tools give the whole run's bytes from per-host summaries on those ranks
// Each line says the processor it ran on, its vector extensions and the kernels each stage ran
// with: simdjson's implementation, the structure scanner's and the inflater's. All three are
// chosen at run time, so one binary runs another machine's kernels when told to (the children
// inherit the environment):
//   SIMDJSON_FORCE_IMPLEMENTATION=haswell  simdjson's AVX2 kernels on an AVX-512 machine
//   MLPROF_JSON_SCANNER_BITS=128           the structure scanner's 128-bit path on an AVX2 one
// igzip has no kernel wider than AVX2, so it runs the same one on either.
// Arguments, when given, name the figures to take (`parallel_ingest_bench ranks_report`): only
// their traces are written.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
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
#include "model/ingest_stages.h"
#include "model/gzip_inflater.h"
#include "model/load_profile.h"
#include "model/pytorch/json_structure_scanner.h"
#include "model/pytorch/importer.h"
#include "simdjson.h"
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

// "on <model name> (<vector extensions>; kernels: simdjson <name>, scanner <name>, inflate <name>)",
// from /proc/cpuinfo and what each stage chose.
std::string machine() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "an unknown processor", flags;
  while (std::getline(f, line) && (flags.empty() || model == "an unknown processor")) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name") model = value;
    else if (key == "flags") flags = " " + value + " ";
  }
  std::string extensions;
  for (const char* flag : {"sse4_2", "avx", "avx2", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512vbmi", "avx512_vbmi2"})
    if (flags.find(" " + std::string(flag) + " ") != std::string::npos) extensions += (extensions.empty() ? "" : " ") + std::string(flag);
  namespace m = mlprof::model;
  return "on " + model + " (" + (extensions.empty() ? "no vector extensions known here" : extensions) +
         "; kernels: simdjson " + std::string(simdjson::get_active_implementation()->name()) + ", scanner " +
         m::JsonStructureScanner().kernel_name() + ", inflate " + m::gzip_kernel_name(m::GzipEngine::kFastest) + ")";
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

double process_cpu_s() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Runs `work` in a child process: what it allocates does not stay in this one, whose size every
// later child starts with (a child's peak RSS counts what it had before it ran its command).
template <typename Work>
bool in_child(Work work) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    const bool ok = work();
    std::fflush(stdout);
    std::_Exit(ok ? 0 : 1);
  }
  int status = 0;
  return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Reads `file` in this process as `mlprof report` does (parsed ahead on every core) and prints each
// stage's CPU time: the least of three reads for each.
bool print_stages(const fs::path& file, double json_mb) {
  namespace model = mlprof::model;
  std::array<double, model::IngestStages::kCount> least;
  least.fill(1e300);
  double wall = 1e300, cpu = 1e300;
  for (int k = 0; k < 3; ++k) {
    model::IngestStages stages;
    model::Profile profile;
    std::string error;
    const double cpu_before = process_cpu_s();
    const auto begin = std::chrono::steady_clock::now();
    if (!model::import_pytorch_trace_file(file, "bench", &profile, &error, {}, true, &stages)) {
      std::printf("stages: %s: %s\n", file.c_str(), error.c_str());
      return false;
    }
    wall = std::min(wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    cpu = std::min(cpu, process_cpu_s() - cpu_before);
    for (size_t s = 0; s < least.size(); ++s)
      least[s] = std::min(least[s], stages.seconds(model::IngestStages::Stage(s)));
  }
  std::string text;
  double staged = 0;
  for (size_t s = 0; s < least.size(); ++s) {
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %.3f s (%.2f ns/B)", s ? ", " : "", model::IngestStages::kNames[s],
                  least[s], least[s] * 1e3 / json_mb);
    text += part;
    staged += least[s];
  }
  std::printf("stages: reading %s in this process: %.2f s, %.2f s CPU (%.2f ns a byte of JSON; the stages %.2f s): %s; "
              "%s, %s\n",
              file.filename().c_str(), wall, cpu, cpu * 1e3 / json_mb, staged, text.c_str(), load().c_str(),
              machine().c_str());
  return true;
}

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
  const fs::path ten = folder / mlprof::bench::copies_file_name(10), ten_gz = ten.string() + ".gz";
  const bool single_file = wanted("gzip_report") || wanted("plain_json_report") || wanted("stages");
  const int64_t shift = single_file ? shift_ns(kLarge) : 0;
  if (shift < 0 ||
      (single_file && (!mlprof::bench::write_copies(kLarge, ten, 10, shift) || !gzip_file(ten, ten_gz, 6))) ||
      (wanted("ranks_report") && !write_ranks(kLarge, folder / "ranks8", 8)) ||
      ((wanted("pod_viewer_64_ranks") || wanted("ranks_64_time")) && !write_ranks(kSmall, folder / "ranks64", 64))) {
    std::printf("parallel_ingest: could not write the bench's traces in %s\n", folder.c_str());
    return 1;
  }
  int status = 0;

  if (wanted("gzip_report")) {
    const auto r = medians({{"gzip", "-dc", ten_gz}, {mlprof, "report", ten_gz}, {mlprof, "report", ten_gz, "--tool", "trace_viewer"}});
    const double ratio = r[1].wall_s / r[0].wall_s;
    std::printf("gzip_report: mlprof report on 10 copies of df_index_resolver (%.0f MB .json.gz, %.0f MB JSON): "
                "%.2f s (%.2f s CPU), gzip -dc %.2f s (%.2f s CPU): %.2fx gzip -dc (target <= 0.6: %s), peak RSS "
                "%.0f MB (target <= 240: %s), %.2f ns CPU a byte of JSON; reading alone (--tool trace_viewer) %.2f s "
                "(%.2f s CPU), %.2fx gzip -dc, peak RSS %.0f MB, %s, %s\n",
                double(fs::file_size(ten_gz)) / 1e6, megabytes_of_text(ten), r[1].wall_s, r[1].cpu_s, r[0].wall_s,
                r[0].cpu_s, ratio, ratio <= 0.6 ? "met" : "NOT met", r[1].peak_mb, r[1].peak_mb <= 240 ? "met" : "NOT met",
                r[1].cpu_s * 1e3 / megabytes_of_text(ten), r[2].wall_s, r[2].cpu_s, r[2].wall_s / r[0].wall_s, r[2].peak_mb,
                load().c_str(), machine().c_str());
    status |= !r[2].ok;
    status |= !r[1].ok;
    status |= !in_child([&] { return print_stages(ten_gz, megabytes_of_text(ten)); });
  }
  if (wanted("plain_json_report")) {
    const auto r = medians({{mlprof, "report", ten, "--jobs", "2"}, {mlprof, "report", ten, "--tool", "trace_viewer", "--jobs", "2"}});
    const double mb_per_s = megabytes_of_text(ten) / r[0].wall_s;
    const double ns_per_byte = r[0].cpu_s * 1e3 / megabytes_of_text(ten);
    std::printf("plain_json_report: mlprof report on the same as plain JSON: %.2f s (%.2f s CPU), %.0f MB/s (target >= "
                "600 on two cores: %s), %.2f ns CPU a byte (target <= 2.5: %s), peak RSS %.0f MB; reading alone (--tool "
                "trace_viewer) %.2f s (%.2f s CPU, %.0f MB/s, %.2f ns CPU a byte, peak RSS %.0f MB), %s, %s\n",
                r[0].wall_s, r[0].cpu_s, mb_per_s, mb_per_s >= 600 ? "met" : "NOT met", ns_per_byte,
                ns_per_byte <= 2.5 ? "met" : "NOT met", r[0].peak_mb, r[1].wall_s, r[1].cpu_s,
                megabytes_of_text(ten) / r[1].wall_s, r[1].cpu_s * 1e3 / megabytes_of_text(ten), r[1].peak_mb,
                load().c_str(), machine().c_str());
    status |= !r[0].ok || !r[1].ok;
    status |= !in_child([&] { return print_stages(ten, megabytes_of_text(ten)); });
  }
  if (wanted("stages")) {  // each file once: after the figure that reads it, when that was asked
    if (!wanted("plain_json_report"))
      status |= !in_child([&] { return print_stages(ten, megabytes_of_text(ten)); });
    if (!wanted("gzip_report"))
      status |= !in_child([&] { return print_stages(ten_gz, megabytes_of_text(ten)); });
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
                "(target <= 0.6: %s), %s, %s\n",
                r[0].wall_s, r[1].wall_s, r[1].cpu_s, r[2].wall_s, r[2].cpu_s, r[1].wall_s / r[2].wall_s, r[3].wall_s,
                r[1].wall_s / r[3].wall_s, ratio, ratio <= 0.6 ? "met" : "NOT met", load().c_str(), machine().c_str());
    for (const Run& x : r) status |= !x.ok;
  }
  if (wanted("ranks_64_time")) {
    const fs::path ranks = folder / "ranks64";
    auto tool = [&](const char* id) { return std::vector<std::string>{mlprof, "report", ranks, "--tool", id, "--jobs", "2"}; };
    const auto r = medians({tool("trace_viewer"), tool("pod_viewer"), tool("stragglers"),
                            {mlprof, "report", ranks / "rank0.pt.trace.json.gz", "--tool", "stragglers", "--jobs", "2"}});
    const double pod = r[1].wall_s / r[0].wall_s, stragglers = r[2].wall_s / r[0].wall_s;
    std::printf("ranks_64_time: 64 ranks of ns_resolution_trace, --jobs 2: read %.2f s (%.0f MB); pod viewer %.2f s, "
                "%.2fx reading (target <= 1.2: %s); stragglers %.2f s, %.2fx reading (target <= 1.2: %s), peak RSS "
                "%.0f MB, %.2fx one rank's %.0f MB, %s, %s\n",
                r[0].wall_s, r[0].peak_mb, r[1].wall_s, pod, pod <= 1.2 ? "met" : "NOT met", r[2].wall_s, stragglers,
                stragglers <= 1.2 ? "met" : "NOT met", r[2].peak_mb, r[2].peak_mb / r[3].peak_mb, r[3].peak_mb,
                load().c_str(), machine().c_str());
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
                "%.0f MB in %.2f s; on one of them %.0f MB: %.2fx one rank's (target <= 1.5: %s), %s, %s\n",
                r[1].peak_mb, r[1].wall_s, r[0].peak_mb, ratio, ratio <= 1.5 ? "met" : "NOT met", load().c_str(),
                machine().c_str());
    for (const Run& x : r) status |= !x.ok;
    // The overview, the other summary-level tool, the same way.
    const auto o = medians({{mlprof, "report", ranks / "rank0.pt.trace.json.gz", "--jobs", "2"},
                            {mlprof, "report", ranks, "--jobs", "2"}});
    const double overview_ratio = o[1].peak_mb / o[0].peak_mb;
    std::printf("overview_64_ranks: report (overview_page) --jobs 2 on the 64 ranks: peak RSS %.0f MB in %.2f s; on one "
                "of them %.0f MB: %.2fx one rank's, %s, %s\n",
                o[1].peak_mb, o[1].wall_s, o[0].peak_mb, overview_ratio, load().c_str(), machine().c_str());
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
