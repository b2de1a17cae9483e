// A bench-only Python module: LibTorch's RecordFunction callback mechanism with a callback
// that does nothing, registered for the scopes mlprof's op tracing uses. What a step costs
// with it on is the floor under any RecordFunction profiler, mlprof and torch.profiler alike:
// python_overhead_bench prints mlprof's own work above it.
#include <ATen/record_function.h>
#include <pybind11/pybind11.h>

namespace {

std::unique_ptr<at::ObserverContext> nothing_at_start(const at::RecordFunction&) { return nullptr; }
void nothing_at_end(const at::RecordFunction&, at::ObserverContext*) {}

at::CallbackHandle g_handle = at::INVALID_CALLBACK_HANDLE;

void enable() {
  if (g_handle == at::INVALID_CALLBACK_HANDLE) {
    g_handle = at::addGlobalCallback(at::RecordFunctionCallback(nothing_at_start, nothing_at_end)
                                         .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                                                  at::RecordScope::USER_SCOPE, at::RecordScope::TORCHSCRIPT_FUNCTION}));
  } else {
    at::reenableCallback(g_handle);
  }
}

// Disabled, never removed: LibTorch asks that no op run while a callback is removed.
void disable() {
  if (g_handle != at::INVALID_CALLBACK_HANDLE) at::disableCallback(g_handle);
}

}  // namespace

PYBIND11_MODULE(_empty_op_callback, m) {
  m.doc() = "An empty RecordFunction callback: the floor under RecordFunction profilers (benchmarks only).";
  m.def("enable", &enable);
  m.def("disable", &disable);
}
