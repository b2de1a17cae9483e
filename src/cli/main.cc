// mlprof: profile ML programs and analyse their profiles.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace mlprof::cli {
namespace {

// The commands, in the order --help lists them.
std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// The first word of the command line that is not an option: the command the user meant.
std::string_view first_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') return argv[i];
  return {};
}

// CLI11's message for a parse error in one line, naming the command it is about and where its
// help is. A missing or unknown command is named as such: CLI11 only says that one is required.
std::string parse_problem(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty()) {
    const std::vector<std::string> commands = command_names(app);
    const std::string_view word = first_word(argc, argv);
    if (word.empty() && argc > 1)
      return fmt::format("{} is not an option of mlprof itself (commands: {})", argv[1], fmt::join(commands, ", "));
    if (word.empty()) return fmt::format("no command given (commands: {})", fmt::join(commands, ", "));
    if (std::find(commands.begin(), commands.end(), word) == commands.end())
      return fmt::format("unknown command \"{}\" (commands: {})", word, fmt::join(commands, ", "));
  }
  std::string what = e.what();
  std::replace(what.begin(), what.end(), '\n', ' ');
  if (chosen.empty()) return fmt::format("{} (see mlprof --help)", what);
  const std::string command = chosen.front()->get_name();
  return fmt::format("{}: {} (see mlprof {} --help)", command, what, command);
}

}  // namespace
}  // namespace mlprof::cli

int main(int argc, char** argv) {
  using namespace mlprof::cli;
  CLI::App app{"mlprof: a profiler for ML training and inference.\n"
               "Reads mlprof, TensorFlow/JAX (.xplane.pb) and PyTorch (trace .json.gz) profiles.",
               "mlprof"};
  app.set_version_flag("--version", "mlprof " MLPROF_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<Command> commands = {
      add_info_command(app),
      add_report_command(app),
      add_diff_command(app),
      add_serve_command(app),
      add_convert_command(app),
      add_run_command(app),
      add_capture_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(parse_problem(app, e, argc, argv));
  }
  for (const auto& c : commands)
    if (c.app->parsed()) return c.run();
  return kUsageError;
}

namespace mlprof::cli {
int bad_input(const std::string& path, const std::string& problem) {
  std::fprintf(stderr, "mlprof: %s: %s\n", path.c_str(), problem.c_str());
  return kBadInput;
}

int usage_error(const std::string& problem) {
  std::fprintf(stderr, "mlprof: %s\n", problem.c_str());
  return kUsageError;
}

void print_note(const std::string& line) { std::fprintf(stderr, "mlprof: note: %s\n", line.c_str()); }
}  // namespace mlprof::cli
