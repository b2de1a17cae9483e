// The few CUDA driver calls the tracer makes itself, through dlopen like CUPTI: whether a
// driver exists at all (the clearest reason for "no GPU events"), and a device's properties
// when CUPTI did not report them (its device records come only with contexts created while
// tracing, and most programs create theirs before profiling starts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "capture/cupti/gpu_activity.h"

namespace mlprof::capture::gpu {

// Loads libcuda.so.1 once per process. False, with a sentence saying so, when this machine
// has no NVIDIA driver.
bool cuda_driver_present(std::string* why_not);

// Why the driver cannot start (cuInit fails), with what to do: a sentence, or "" when it
// starts. CUPTI reports a driver that cannot start only as an unknown error.
std::string driver_start_problem();

// The properties of device `ordinal` from the driver (name interned into `names`), or none
// when the driver cannot tell.
std::optional<DeviceProperties> device_properties_from_driver(uint32_t ordinal, NameTable* names);

}  // namespace mlprof::capture::gpu
