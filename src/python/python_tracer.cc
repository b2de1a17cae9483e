#include "python/python_tracer.h"

#include <frameobject.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "mlprof/mlprof.h"

namespace mlprof::python {
namespace {

// Deeper recursion is recorded only down to this depth (the stack stays bounded).
constexpr size_t kMaxDepth = 512;

struct OpenCall {
  PyCodeObject* code;
  uint64_t start;
};

// Bumped per session: calls a thread had open in an earlier one are forgotten.
uint32_t g_generation = 0;  // the GIL guards it

// Per thread; only its thread touches it.
thread_local std::vector<OpenCall>* t_stack = nullptr;
thread_local uint32_t t_generation = 0;

std::vector<OpenCall>& stack() {
  if (t_stack == nullptr) t_stack = new std::vector<OpenCall>();  // a few KB per thread that ran Python
  if (t_generation != g_generation) {
    t_stack->clear();
    t_generation = g_generation;
  }
  return *t_stack;
}

// "$train.py:12 step", once per code object. Events point at the text until the session is
// written, so it is kept, and the code object too (its address must not name another one).
// The GIL guards the table.
const char* name_of(PyCodeObject* code) {
  static auto* names = new std::unordered_map<PyCodeObject*, const char*>;
  auto it = names->find(code);
  if (it != names->end()) return it->second;
  std::string text = "$";
  const char* file = PyUnicode_Check(code->co_filename) ? PyUnicode_AsUTF8(code->co_filename) : nullptr;
  const char* function = PyUnicode_Check(code->co_qualname) ? PyUnicode_AsUTF8(code->co_qualname) : nullptr;
  if (file == nullptr || function == nullptr) PyErr_Clear();
  std::string path = file != nullptr ? file : "?";
  const size_t slash = path.rfind('/');
  text += slash == std::string::npos ? path : path.substr(slash + 1);
  text += ":" + std::to_string(code->co_firstlineno) + " " + (function != nullptr ? function : "?");
  char* kept = new char[text.size() + 1];
  std::copy(text.begin(), text.end() + 1, kept);  // with its '\0'
  Py_INCREF(code);
  names->emplace(code, kept);
  return kept;
}

int profile_hook(PyObject*, PyFrameObject* frame, int what, PyObject*) {
  if (internal::g_trace_level.load(std::memory_order_relaxed) <= 0) return 0;
  if (what == PyTrace_CALL) {
    std::vector<OpenCall>& s = stack();
    if (s.size() >= kMaxDepth) return 0;
    PyCodeObject* code = PyFrame_GetCode(frame);
    Py_DECREF(code);  // the frame holds it while the call runs
    s.push_back({code, now_ticks()});
  } else if (what == PyTrace_RETURN) {
    const uint64_t end = now_ticks();
    std::vector<OpenCall>& s = stack();
    if (s.empty()) return 0;  // a call that began before the session
    PyCodeObject* code = PyFrame_GetCode(frame);
    Py_DECREF(code);
    if (s.back().code != code) return 0;  // the depth limit cut this call
    internal::record_literal(name_of(code), s.back().start, end);
    s.pop_back();
  }
  return 0;
}

PyObject* g_previous_thread_hook = nullptr;  // threading's profile hook before ours
bool g_running = false;

PyObject* threading_call(const char* function, PyObject* argument) {
  PyObject* threading = PyImport_ImportModule("threading");
  if (threading == nullptr) return nullptr;
  PyObject* result = argument != nullptr ? PyObject_CallMethod(threading, function, "O", argument)
                                         : PyObject_CallMethod(threading, function, nullptr);
  Py_DECREF(threading);
  return result;
}

}  // namespace

PyObject* python_tracer_bootstrap(PyObject*, PyObject* const*, Py_ssize_t) {
  if (g_running) PyEval_SetProfile(profile_hook, nullptr);
  else PyEval_SetProfile(nullptr, nullptr);
  Py_RETURN_NONE;
}

bool start_python_tracer() {
  if (g_running) return true;
  // Threads started from now on: threading runs the bootstrap first, which installs the hook.
  PyObject* module = PyImport_ImportModule("mlprof._mlprof");
  if (module == nullptr) return false;
  PyObject* bootstrap = PyObject_GetAttrString(module, "_python_tracer_bootstrap");
  Py_DECREF(module);
  if (bootstrap == nullptr) return false;
  PyObject* previous = threading_call("getprofile", nullptr);
  if (previous == nullptr) PyErr_Clear();  // threading.getprofile is new in 3.10
  PyObject* done = threading_call("setprofile", bootstrap);
  Py_DECREF(bootstrap);
  if (done == nullptr) {
    Py_XDECREF(previous);
    return false;
  }
  Py_DECREF(done);
  g_previous_thread_hook = previous;
  g_running = true;
  ++g_generation;
  // Threads that already run Python.
  for (PyThreadState* t = PyInterpreterState_ThreadHead(PyInterpreterState_Get()); t != nullptr;
       t = PyThreadState_Next(t)) {
    if (t->c_profilefunc == nullptr) _PyEval_SetProfile(t, profile_hook, nullptr);
  }
  return true;
}

void stop_python_tracer() {
  if (!g_running) return;
  g_running = false;
  for (PyThreadState* t = PyInterpreterState_ThreadHead(PyInterpreterState_Get()); t != nullptr;
       t = PyThreadState_Next(t)) {
    if (t->c_profilefunc == profile_hook) _PyEval_SetProfile(t, nullptr, nullptr);
  }
  PyObject* previous = g_previous_thread_hook != nullptr && g_previous_thread_hook != Py_None
                           ? g_previous_thread_hook : Py_None;
  PyObject* done = threading_call("setprofile", previous);
  if (done == nullptr) PyErr_Clear();
  Py_XDECREF(done);
  Py_CLEAR(g_previous_thread_hook);
}

}  // namespace mlprof::python
