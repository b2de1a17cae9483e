// mlprof: profile ML programs and analyse their profiles.
#include <cstdio>
#include <vector>

#include "cli/commands.h"

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
    app.exit(e);
    return kUsageError;
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

void print_note(const std::string& line) { std::fprintf(stderr, "mlprof: note: %s\n", line.c_str()); }
}  // namespace mlprof::cli
