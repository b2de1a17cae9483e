// PyTorch trace ingest (issue 10, docs/ARCHITECTURE.md §6: ≥ 300 MB/s of uncompressed JSON per core;
// `mlprof report` ≥ 50× faster than Holistic Trace Analysis and within 1/10 of its memory).
// From the largest real trace in ../shared/testdata/pytorch it writes, in its own build
// folder, time-shifted copies of the trace in one file: ten copies (as HTA was measured on)
// and enough copies for ≥ 1 GB. Then it prints one line per figure:
//   pytorch_model_memory: model bytes per event on df_index_resolver (the most memory events)
//   pytorch_ingest: ... MB/s per core, events/s, peak RSS, bytes/event (importing the ≥ 1 GB file)
//   pytorch_ingest_gzip: the same for the test file itself, gzip-compressed
//   pytorch_report_vs_hta: `mlprof report` on the trace (HTA: 4.6 s, 320 MB) and on the ten
//     copies (HTA: 92 s, 2.4 GB)
// Times are CPU time (user + system), not wall time: the machine is shared and busy.
//
// Usage: pytorch_ingest_bench [MB of JSON for the ingest file, default 1024]
#include <fcntl.h>
#include <simdjson.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "process_stats.h"
#include "trace_copies.h"
#include "model/pytorch/trace_file.h"
#include "model/pytorch/number.h"
#include "model/pytorch/trace_tokenizer.h"
#include "model/pytorch/importer.h"

namespace {

namespace fs = std::filesystem;
namespace kineto = mlprof::model::kineto;

constexpr const char* kSource = MLPROF_TESTDATA "/pytorch/df_index_resolver__df_index_resolver.json.gz";
// Holistic Trace Analysis loading the trace, as measured for issue 10: one copy, and ten.
constexpr double kHtaOneSeconds = 4.6, kHtaOneBytes = 320e6, kHtaTenSeconds = 92, kHtaTenBytes = 2.4e9;

// The span of the source trace in ns, from the importer itself, which also says how much
// memory the model takes for this trace, the one with the most memory events.
int64_t trace_span_ns() {
  mlprof::model::Profile p;
  std::string error;
  if (!mlprof::model::import_pytorch_trace_file(kSource, "source", &p, &error)) {
    std::fprintf(stderr, "pytorch_ingest_bench: %s: %s\n", kSource, error.c_str());
    return -1;
  }
  int64_t end = 0;
  for (uint32_t e = 0; e < p.num_events(); ++e) end = std::max(end, p.end_ps(e));
  std::printf("pytorch_model_memory: df_index_resolver, %zu events (%zu stats): %.1f bytes/event of model (target <= 48)\n",
              p.num_events(), p.event_stats.size(), double(p.bytes_used()) / double(p.num_events()));
  std::fflush(stdout);
  return end / 1000;
}

// The text's size once inflated.
uint64_t json_bytes(const fs::path& path) {
  kineto::JsonSource source;
  std::string error;
  std::vector<char> buffer(size_t(1) << 20);
  uint64_t total = 0;
  size_t got = 0;
  if (!source.open_file(path, &error)) return 0;
  while (source.read(buffer.data(), buffer.size(), &got, &error) && got > 0) total += got;
  return total;
}

void ingest(const char* label, const fs::path& path) {
  const uint64_t bytes = json_bytes(path);
  mlprof::bench::run_in_child([&] {
    mlprof::bench::reset_peak_rss();
    mlprof::model::Profile profile;
    std::string error;
    const double cpu_begin = mlprof::bench::process_cpu_seconds();
    if (!mlprof::model::import_pytorch_trace_file(path, "bench", &profile, &error)) {
      std::fprintf(stderr, "pytorch_ingest_bench: %s: %s\n", path.c_str(), error.c_str());
      return false;
    }
    const double cpu_s = mlprof::bench::process_cpu_seconds() - cpu_begin;
    const double mb = double(bytes) / 1e6, events = double(profile.num_events());
    std::printf(
        "%s: %.0f MB JSON, %.2f M events: %.0f MB/s per core, %.2f M events/s, peak RSS %.0f MB, "
        "%.1f bytes/event of model (%.1f bytes/event peak RSS), CPU time, one thread\n",
        label, mb, events / 1e6, mb / cpu_s, events / cpu_s / 1e6, double(mlprof::bench::proc_status_kib("VmHWM")) / 1024,
        double(profile.bytes_used()) / events, double(mlprof::bench::proc_status_kib("VmHWM")) * 1024 / events);
    std::fflush(stdout);
    return true;
  });
}

// `mlprof report` on a trace, as a command, against HTA's figures for it.
// The targets are for the ten copies; one copy mostly measures the process's start.
void report_against_hta(const char* what, const fs::path& path, double hta_seconds, double hta_bytes, bool targets) {
  const pid_t child = fork();
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(MLPROF_CLI, MLPROF_CLI, "report", path.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  int status = 0;
  rusage usage{};
  if (child < 0 || ::wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::printf("pytorch_report_vs_hta: mlprof report failed on %s\n", path.c_str());
    return;
  }
  const double cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  const double peak = double(usage.ru_maxrss) * 1024;
  std::printf(
      "pytorch_report_vs_hta: mlprof report on %s (%.0f MB JSON): %.2f s CPU, peak RSS %.0f MB; HTA %.1f s, "
      "%.0f MB: %.0fx faster%s, %.1fx less memory%s\n",
      what, double(json_bytes(path)) / 1e6, cpu_s, peak / 1e6, hta_seconds, hta_bytes / 1e6, hta_seconds / cpu_s,
      targets ? " (target >= 50x)" : "", hta_bytes / peak, targets ? " (target >= 10x)" : "");
}

}  // namespace

int main(int argc, char** argv) {
  const size_t target_mb = argc > 1 ? size_t(std::atol(argv[1])) : 1024;
  if (!fs::exists(kSource)) {
    std::printf("pytorch_ingest: skipped, %s not found (needs ../shared/testdata)\n", kSource);
    return 0;
  }
  const int64_t span_ns = trace_span_ns();
  if (span_ns < 0) return 1;
  const int64_t shift_ns = (span_ns / 1000000 + 1) * 1000000;  // whole milliseconds apart
  const fs::path folder = fs::path(MLPROF_BENCH_DIR) / "pytorch_ingest_data";
  fs::create_directories(folder);
  const fs::path ten = folder / mlprof::bench::copies_file_name(10);
  if (!mlprof::bench::write_copies(kSource, ten, 10, shift_ns)) return 1;
  const int copies = int(std::max<uint64_t>(10, (uint64_t(target_mb) * 1000000 + fs::file_size(ten) / 10 - 1) /
                                                     (fs::file_size(ten) / 10)));
  const fs::path large = folder / mlprof::bench::copies_file_name(copies);
  if (!mlprof::bench::write_copies(kSource, large, copies, shift_ns)) return 1;
  ingest("pytorch_ingest", large);
  ingest("pytorch_ingest_gzip (df_index_resolver.json.gz as it is)", kSource);
  report_against_hta("df_index_resolver.json.gz", kSource, kHtaOneSeconds, kHtaOneBytes, false);
  report_against_hta("10 copies of df_index_resolver", ten, kHtaTenSeconds, kHtaTenBytes, true);
  return 0;
}
