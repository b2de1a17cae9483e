// mlprof convert IN --to FORMAT -o OUT: writes a profile that mlprof reads (an .xplane.pb, a
// run or logdir, a PyTorch trace or a folder of per-rank traces) in another tool's format.
//   xplane: XSpace for TensorBoard's Profile plugin. OUT ending in .xplane.pb is one file (the
//           profile must have one host); any other OUT is a logdir, written as TensorBoard
//           reads it: OUT/plugins/profile/<run>/<host>.xplane.pb plus its event file.
//   chrome: Chrome's trace-event JSON; perfetto: Perfetto's protobuf trace. Both streamed to
//           OUT, gzip-compressed when OUT ends in ".gz".
#include <fmt/format.h>

#include <array>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "analysis/trace_viewer/trace_export.h"
#include "cli/commands.h"
#include "cli/load_request.h"
#include "format/chrome_trace_writer.h"
#include "format/logdir.h"
#include "format/perfetto_writer.h"
#include "format/run_reservation.h"
#include "model/load_profile.h"
#include "model/xspace/export.h"

namespace mlprof::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string to;
  std::string output;
  std::string run;
  std::string host;
};

int write_xplane(const model::Profile& profile, const ConvertOptions& o) {
  std::string error;
  if (o.output.ends_with(".xplane.pb")) {
    if (profile.hosts.size() != 1) {
      std::fprintf(stderr,
                   "mlprof: %s holds %zu hosts: give a directory as -o to write a logdir with one file per "
                   "host, or pick one with --host\n",
                   o.input.c_str(), profile.hosts.size());
      return kUsageError;
    }
    const std::string parent = std::filesystem::path(o.output).parent_path().string();
    if ((!parent.empty() && !format::make_directories(parent, &error)) ||
        !model::write_host_xspace(profile, 0, o.output, &error))
      return bad_input(o.output, error);
    fmt::print("wrote {}\n", o.output);
    return kOk;
  }
  const std::time_t now = std::time(nullptr);
  for (uint32_t h = 0; h < profile.hosts.size(); ++h) {
    const std::string host(profile.strings.view(profile.hosts[h].name));
    format::RunLocation where;
    if (!format::prepare_run(o.output, profile.run, host, now, &where, &error)) return bad_input(o.output, error);
    const bool written = model::write_host_xspace(profile, h, where.xspace_path, &error);
    format::release_run(o.output, where.run_name, host);
    if (!written) return bad_input(o.output, error);
    fmt::print("wrote {}\n", where.xspace_path);
  }
  return kOk;
}

// A timeline for chrome://tracing or Perfetto's UI.
int write_timeline(const model::Profile& profile, const ConvertOptions& o) {
  format::TraceOutputFile out(o.output);
  if (!out.ok()) return bad_input(o.output, out.error());
  std::string error;
  bool written;
  if (o.to == "chrome") {
    format::ChromeTraceWriter writer(out);
    written = analysis::write_trace(profile, writer, &error);
  } else {
    format::PerfettoWriter writer(out, profile.origin_ns);
    written = analysis::write_trace(profile, writer, &error);
  }
  if (!written) return bad_input(o.output, error);
  fmt::print("wrote {}\n", o.output);
  return kOk;
}

// The formats convert writes.
struct Converter {
  std::string_view name;
  int (*write)(const model::Profile&, const ConvertOptions&);
};
constexpr std::array<Converter, 3> kConverters = {
    {{"xplane", write_xplane}, {"chrome", write_timeline}, {"perfetto", write_timeline}}};

int run_convert(const ConvertOptions& o) {
  const Converter* converter = nullptr;
  for (const Converter& c : kConverters)
    if (c.name == o.to) converter = &c;
  if (converter == nullptr) {
    std::fprintf(stderr, "mlprof: cannot convert to \"%s\" (formats: xplane, chrome, perfetto)\n", o.to.c_str());
    return kUsageError;
  }
  model::Profile profile;
  model::LoadError error;
  if (!model::load_profile(load_request(o.input, o.run, o.host, 0), &profile, &error)) return bad_input(error.path, error.problem);
  return converter->write(profile, o);
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto* sub = app.add_subcommand("convert", "Write a profile in another format (xplane: for TensorBoard; chrome, perfetto: a timeline)");
  auto o = std::make_shared<ConvertOptions>();
  sub->add_option("IN", o->input, std::string(kProfilePathHelp))
      ->required();
  sub->add_option("--to,-t", o->to, "the format to write: xplane, chrome or perfetto")->required();
  sub->add_option("--output,-o", o->output,
                  "xplane: an .xplane.pb file (one host), or a logdir to write <logdir>/plugins/profile/<run>/<host>.xplane.pb; "
                  "chrome, perfetto: a file (gzip when it ends in .gz)")
      ->required();
  sub->add_option("--run", o->run, "the run to convert (default: the newest)");
  sub->add_option("--host", o->host, "convert one host only (default: all hosts of the run)");
  return {sub, [o]() { return run_convert(*o); }};
}

}  // namespace mlprof::cli
