// The mlprof subcommands. Each one adds itself to the app and returns what to run when the
// user chose it; main() parses and dispatches.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace mlprof::cli {

// What the commands that read profiles take (format::find_profiles), as their help says it.
inline constexpr std::string_view kProfilePathHelp =
    "a logdir, a run directory (one file per host or rank), an .xplane.pb or a PyTorch trace .json(.gz)";

// Exit codes (docs/ARCHITECTURE.md §4).
enum ExitCode : int { kOk = 0, kUsageError = 1, kBadInput = 2 };

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_info_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_capture_command(CLI::App& app);

// Prints "mlprof: <path>: <problem>" on stderr and returns kBadInput.
int bad_input(const std::string& path, const std::string& problem);
// Prints "mlprof: <problem>" on stderr and returns kUsageError: what the command line got wrong.
int usage_error(const std::string& problem);
// Prints "mlprof: note: <line>" on stderr: what a load left out (model::LoadRequest::note).
void print_note(const std::string& line);

}  // namespace mlprof::cli
