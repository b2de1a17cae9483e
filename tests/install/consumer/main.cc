// Records a few steps with the installed SDK and prints where the profile went.
#include <mlprof/mlprof.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 1;
  mlprof::Profile session(argv[1]);
  if (!session.status().ok()) {
    std::fprintf(stderr, "%s\n", session.status().message().c_str());
    return 1;
  }
  for (int step = 0; step < 3; ++step) {
    mlprof::StepTrace s("train", step);
    MLPROF_TRACE("work");
  }
  return 0;
}
