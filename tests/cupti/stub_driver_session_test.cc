// GPU tracing against the CUDA toolkit's stub driver: a libcuda.so.1 that loads but cannot
// start, as where the toolkit is installed without a GPU driver. The toolkit's real CUPTI goes
// as far as the driver lets it, host tracing goes on, and the warning says what is wrong.
// A process of its own: the stub stays loaded.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "mlprof/mlprof.h"

namespace mlprof::testing {
namespace {

TEST(StubDriverSession, TheWarningNamesTheStubAndHostTracingGoesOn) {
  const std::string stub = MLPROF_CUDA_DRIVER_LIBRARY;
  if (stub.find("/stubs/") == std::string::npos) GTEST_SKIP() << stub << " is not the toolkit's stub driver";
  if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr)
    GTEST_SKIP() << "this machine has an NVIDIA driver: the stub cannot stand in for it";
  // Loaded under its soname, the stub is what every later dlopen("libcuda.so.1") gets.
  ASSERT_NE(dlopen(stub.c_str(), RTLD_NOW | RTLD_GLOBAL), nullptr) << dlerror();
  setenv("MLPROF_CUPTI_LIBRARY", MLPROF_TOOLKIT_CUPTI, 1);

  ScratchDir dir;
  ProfilerOptions o;
  o.run_name = "run";
  ASSERT_TRUE(start(dir.path(), o).ok());
  {
    StepTrace step("train", 0);
    MLPROF_TRACE("forward");
  }
  const tp::XSpace space = read_run(stop());
  EXPECT_EQ(names_of(host_events(space)), (std::vector<std::string>{"train", "forward"}));
  ASSERT_EQ(space.warnings_size(), 1);
  const std::string& w = space.warnings(0);
  EXPECT_EQ(w.rfind("mlprof recorded no GPU activity: cupti", 0), 0u) << w;
  EXPECT_NE(w.find("CUPTI_ERROR_UNKNOWN"), std::string::npos) << w;
  EXPECT_NE(w.find("the CUDA driver does not start (cuInit returned "), std::string::npos) << w;
  EXPECT_NE(w.find("CUDA toolkit's stub, not a driver"), std::string::npos) << w;
}

}  // namespace
}  // namespace mlprof::testing
