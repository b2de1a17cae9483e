// A CUDA program profiled on a machine without a GPU driver, for real: the session asks for
// GPU tracing, cannot have it, records its host events all the same and says why in the
// profile's warnings. Also CUPTI loaded from the toolkit, and a wrong CUPTI path.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "capture/cupti/cupti_library.h"
#include "capture/run_reader.h"
#include "format/scratch_dir.h"
#include "mlprof/mlprof.h"

namespace mlprof::testing {
namespace {

bool driver_installed() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  return driver != nullptr;
}

class NoGpuSession : public ::testing::Test {
 protected:
  void SetUp() override {
    if (driver_installed()) GTEST_SKIP() << "this machine has an NVIDIA driver: the no-GPU path cannot be tested";
    unsetenv(capture::gpu::kCuptiLibraryVariable);
    // What a CUDA program does first; without a driver the runtime says so.
    int devices = -1;
    EXPECT_NE(cudaGetDeviceCount(&devices), cudaSuccess);
  }
  void TearDown() override { unsetenv(capture::gpu::kCuptiLibraryVariable); }

  // A session with device tracing asked for, a step of host work, and what it wrote.
  tp::XSpace profile(int device_tracer_level) {
    ProfilerOptions o;
    o.device_tracer_level = device_tracer_level;
    o.run_name = "run";
    EXPECT_TRUE(start(dir_.path(), o).ok());
    {
      StepTrace step("train", 0);
      MLPROF_TRACE("forward");
    }
    return read_run(stop());
  }

  std::vector<std::string> warnings(const tp::XSpace& space) {
    return {space.warnings().begin(), space.warnings().end()};
  }

  ScratchDir dir_;
};

TEST_F(NoGpuSession, HostEventsAreWrittenAndAWarningSaysWhyThereAreNoGpuEvents) {
  const tp::XSpace space = profile(1);
  EXPECT_EQ(names_of(host_events(space)), (std::vector<std::string>{"train", "forward"}));
  for (const auto& plane : space.planes()) EXPECT_EQ(plane.name().rfind("/device:", 0), std::string::npos);
  ASSERT_EQ(space.warnings_size(), 1) << ::testing::PrintToString(warnings(space));
  const std::string& w = space.warnings(0);
  EXPECT_EQ(w.rfind("mlprof recorded no GPU activity: this machine has no NVIDIA driver (", 0), 0u) << w;
  EXPECT_NE(w.find("libcuda.so.1"), std::string::npos) << w;
  EXPECT_NE(w.find("install the NVIDIA driver"), std::string::npos) << w;
}

TEST_F(NoGpuSession, NoWarningWhenGpuTracingIsOff) {
  const tp::XSpace space = profile(0);
  EXPECT_EQ(host_events(space).size(), 2u);
  EXPECT_EQ(space.warnings_size(), 0);
}

TEST_F(NoGpuSession, AMissingCuptiLibraryIsNamedWithTheFix) {
  setenv(capture::gpu::kCuptiLibraryVariable, "/nonexistent/libcupti.so.13", 1);
  const tp::XSpace space = profile(1);
  EXPECT_EQ(host_events(space).size(), 2u);
  ASSERT_EQ(space.warnings_size(), 1);
  const std::string& w = space.warnings(0);
  EXPECT_EQ(w.rfind("mlprof recorded no GPU activity: cannot load CUPTI (", 0), 0u) << w;
  EXPECT_NE(w.find("MLPROF_CUPTI_LIBRARY=/nonexistent/libcupti.so.13"), std::string::npos) << w;
  EXPECT_NE(w.find("LD_LIBRARY_PATH"), std::string::npos) << w;
}

TEST_F(NoGpuSession, TheToolkitsCuptiLoadsButFindsNoDriver) {
  setenv(capture::gpu::kCuptiLibraryVariable, MLPROF_TOOLKIT_CUPTI, 1);
  const tp::XSpace space = profile(1);
  EXPECT_EQ(host_events(space).size(), 2u);
  ASSERT_EQ(space.warnings_size(), 1);
  EXPECT_NE(space.warnings(0).find("no NVIDIA driver"), std::string::npos) << space.warnings(0);
}

TEST(CuptiLibrary, LoadsTheToolkitsCuptiAndRejectsOtherFiles) {
  std::string error;
  const capture::gpu::CuptiLibrary* lib = capture::gpu::load_cupti_from(MLPROF_TOOLKIT_CUPTI, &error);
  ASSERT_NE(lib, nullptr) << error;
  uint32_t version = 0;
  EXPECT_EQ(lib->cuptiGetVersion(&version), CUPTI_SUCCESS);
  EXPECT_GE(version, uint32_t(CUPTI_API_VERSION));
  EXPECT_EQ(lib->result_name(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  // Names of callbacks need no driver: the tracer names CUDA calls with them.
  const char* name = nullptr;
  EXPECT_EQ(lib->cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &name),
            CUPTI_SUCCESS);
  EXPECT_STREQ(name, "cudaLaunchKernel_v7000");

  EXPECT_EQ(capture::gpu::load_cupti_from("libc.so.6", &error), nullptr);
  EXPECT_NE(error.find("is not a usable CUPTI"), std::string::npos) << error;
  EXPECT_EQ(capture::gpu::load_cupti_from("/nonexistent/libcupti.so", &error), nullptr);
  EXPECT_NE(error.find("cannot load CUPTI"), std::string::npos) << error;
}

}  // namespace
}  // namespace mlprof::testing
