// mlprof._mlprof: the C++ SDK for Python. The package (mlprof/__init__.py) checks arguments
// and documents the API; this module does the work: sessions, annotations (trace_type.cc),
// the Python tracer (python_tracer.cc), the LibTorch integration and the profiler server,
// both loaded only when asked for.
#include <dlfcn.h>
#include <pybind11/pybind11.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "mlprof/mlprof.h"
#include "mlprof/server.h"
#include "python/python_tracer.h"
#include "python/trace_type.h"

namespace py = pybind11;

namespace mlprof::python {
namespace {

namespace fs = std::filesystem;

// Raised as mlprof.ProfilerError with the SDK's one-line message, which names the C++ API
// ("mlprof::start: ...; call mlprof::stop() before starting another"): Python users are told the
// Python names (mlprof.start, mlprof.stop()).
struct ProfilerError : std::runtime_error {
  explicit ProfilerError(const std::string& sdk_message) : std::runtime_error(python_names(sdk_message)) {}

  static std::string python_names(std::string message) {
    for (size_t at = message.find("mlprof::"); at != std::string::npos; at = message.find("mlprof::", at))
      message.replace(at, 8, "mlprof.");
    return message;
  }
};

// Where libmlprof was loaded from: the other libraries are installed beside it.
fs::path sdk_directory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&mlprof::is_active), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const fs::path real = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path() : real.parent_path();
}

// The first of: beside libmlprof (an install), then where the build put it.
std::string find_library(const char* file, const char* built) {
  std::error_code ec;
  const fs::path beside = sdk_directory() / file;
  if (!sdk_directory().empty() && fs::exists(beside, ec)) return beside.string();
  if (built != nullptr && *built != '\0' && fs::exists(built, ec)) return built;
  return {};
}

#ifndef MLPROF_BUILT_TORCH_LIBRARY
#define MLPROF_BUILT_TORCH_LIBRARY ""
#endif
#ifndef MLPROF_BUILT_RPC_LIBRARY
#define MLPROF_BUILT_RPC_LIBRARY ""
#endif

// Loads libmlprof_torch into a process that has imported torch (whose libtorch it then
// uses). Returns an empty string, or why not. Already there (`mlprof run` preloads it):
// nothing to do.
std::string load_torch_integration() {
  if (dlsym(RTLD_DEFAULT, "_ZN6mlprof8libtorch7enabledEv") != nullptr) return {};
  const std::string path = find_library("libmlprof_torch.so", MLPROF_BUILT_TORCH_LIBRARY);
  if (path.empty()) return "the LibTorch integration (libmlprof_torch.so) is not installed beside libmlprof";
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    return std::string("cannot load ") + path + ": " + (why != nullptr ? why : "unknown error");
  }
  return {};
}

// The profiler server (libmlprof_rpc, gRPC), loaded on the first start_server().
struct ServerApi {
  Status (*start)(int, const ServerOptions&) = nullptr;
  void (*stop)() = nullptr;
  int (*port)() = nullptr;
};

const ServerApi& server_api() {
  static ServerApi api = [] {
    ServerApi a;
    const std::string path = find_library("libmlprof_rpc.so", MLPROF_BUILT_RPC_LIBRARY);
    if (path.empty()) return a;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) return a;
    // The C++ names of mlprof::start_server, stop_server and server_port (mlprof/server.h).
    a.start = reinterpret_cast<decltype(a.start)>(dlsym(handle, "_ZN6mlprof12start_serverEiRKNS_13ServerOptionsE"));
    a.stop = reinterpret_cast<decltype(a.stop)>(dlsym(handle, "_ZN6mlprof11stop_serverEv"));
    a.port = reinterpret_cast<decltype(a.port)>(dlsym(handle, "_ZN6mlprof11server_portEv"));
    if (a.start == nullptr || a.stop == nullptr || a.port == nullptr) a = ServerApi();
    return a;
  }();
  return api;
}

void start_session(const std::string& logdir, int host_tracer_level, int device_tracer_level,
                   int python_tracer_level, int64_t first_step, int64_t last_step, uint64_t duration_ms,
                   const std::string& run_name) {
  ProfilerOptions options;
  options.host_tracer_level = host_tracer_level;
  options.device_tracer_level = device_tracer_level;
  options.first_step = first_step;
  options.last_step = last_step;
  options.duration_ms = duration_ms;
  options.run_name = run_name;
  Status status;
  {
    py::gil_scoped_release unlocked;  // the integrations' listeners may take a while
    status = mlprof::start(logdir, options);
  }
  if (!status.ok()) throw ProfilerError(status.message());
  // A session that ended on its own (steps, duration) left its hook in place: this session
  // has its own, or none.
  stop_python_tracer();
  if (python_tracer_level > 0 && !start_python_tracer()) {
    stop_python_tracer();
    py::error_already_set error;
    py::gil_scoped_release unlocked;
    mlprof::stop();
    throw error;
  }
}

py::tuple stop_session() {
  stop_python_tracer();
  RunInfo info;
  {
    py::gil_scoped_release unlocked;  // writing the run: other Python threads go on
    info = mlprof::stop();
  }
  if (!info.status.ok()) throw ProfilerError(info.status.message());
  return py::make_tuple(info.run_dir, info.xspace_path, info.events, info.dropped);
}

void start_server(int port, const std::string& bind_address) {
  const ServerApi& api = server_api();
  if (api.start == nullptr)
    throw ProfilerError("mlprof.start_server: the profiler server (libmlprof_rpc.so, built when gRPC is found) "
                        "is not installed");
  ServerOptions options;
  options.bind_address = bind_address;
  Status status;
  {
    py::gil_scoped_release unlocked;
    status = api.start(port, options);
  }
  if (!status.ok()) throw ProfilerError(status.message());
}

void stop_server() {
  const ServerApi& api = server_api();
  if (api.stop == nullptr) return;
  py::gil_scoped_release unlocked;
  api.stop();
}

int server_port() {
  const ServerApi& api = server_api();
  return api.port != nullptr ? api.port() : 0;
}

PyMethodDef bootstrap_def = {"_python_tracer_bootstrap",
                             reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(python_tracer_bootstrap)),
                             METH_FASTCALL, "Installs the Python tracer's hook in a new thread (threading.setprofile)."};

}  // namespace
}  // namespace mlprof::python

PYBIND11_MODULE(_mlprof, m) {
  using namespace mlprof::python;
  m.doc() = "The mlprof capture SDK for Python (use the mlprof package).";
  auto error = py::register_exception<ProfilerError>(m, "ProfilerError", PyExc_RuntimeError);
  error.attr("__doc__") = "A profiling session or server could not do what was asked; the one-line message says why.";
  m.def("_start", &start_session, py::arg("logdir"), py::arg("host_tracer_level"), py::arg("device_tracer_level"),
        py::arg("python_tracer_level"), py::arg("first_step"), py::arg("last_step"), py::arg("duration_ms"),
        py::arg("run_name"));
  m.def("_stop", &stop_session);
  m.def("_start_python_tracer", [] {
    if (!start_python_tracer()) throw py::error_already_set();
  });
  m.def("is_active", &mlprof::is_active,
        "True from start() until the session ends: at stop(), or once its steps or duration_ms are over and "
        "its run is written.");
  m.def("_set_thread_name", [](const std::string& name) { mlprof::set_thread_name(name); });
  m.def("_load_torch_integration", &load_torch_integration);
  m.def("_start_server", &start_server);
  m.def("_stop_server", &stop_server);
  m.def("_server_port", &server_port);
  PyObject* bootstrap = PyCFunction_New(&bootstrap_def, nullptr);
  if (bootstrap == nullptr || PyModule_AddObject(m.ptr(), "_python_tracer_bootstrap", bootstrap) < 0)
    throw py::error_already_set();
  if (!add_trace_types(m.ptr())) throw py::error_already_set();
}
