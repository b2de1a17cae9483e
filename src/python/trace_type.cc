#include "python/trace_type.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "mlprof/mlprof.h"

namespace mlprof::python {
namespace {

struct TraceObject {
  PyObject_HEAD
  PyObject* name;     // str
  PyObject* kwnames;  // tuple of str, or null: the metadata's keys
  PyObject* values;   // tuple, or null: the metadata's values
  uint64_t start;     // 0: not recording
  int64_t step;
  bool is_step;       // step_num=N with _r=1: a step marker, as TensorFlow's Trace
  bool open;           // entered and not yet ended: on its thread's chain (t_innermost)
  TraceObject* outer;  // while open: the Trace entered before it on that thread
};

extern PyTypeObject TraceType;

// The Traces open on this thread, innermost first (linked through `outer`), each holding a
// reference. Events on a thread's line must nest (docs/ARCHITECTURE.md §3.1): a Trace that
// ended before one entered after it would have that one cut at its own end when the session
// is written, so such an exit is refused instead. initial-exec, as the SDK's own per-thread
// state (src/capture/recorder.h): no call to find it.
constinit thread_local TraceObject* t_innermost __attribute__((tls_model("initial-exec"))) = nullptr;

// mlprof.ProfilerError, set by add_trace_types.
PyObject* g_profiler_error = nullptr;

// More metadata than this cannot be recorded (record_with_metadata's storage): refused.
constexpr Py_ssize_t kMaxMetadata = 16;

// Step markers keep their name as a pointer until the session is written: each distinct name
// is kept for the life of the process (programs use a handful). The GIL guards the set.
const char* interned_step_name(std::string_view name) {
  static auto* names = new std::set<std::string, std::less<>>;
  auto it = names->find(name);
  if (it == names->end()) it = names->emplace(name).first;
  return it->c_str();
}

// A str that has a UTF-8 form: any but one holding a lone surrogate, which could not be written.
bool is_utf8_writable(PyObject* text) {
  if (PyUnicode_IS_ASCII(text)) return true;
  if (PyUnicode_AsUTF8AndSize(text, nullptr) != nullptr) return true;  // cached on the str
  PyErr_Clear();
  return false;
}

// A name is written as it is given, or refused: TraceMe's encoding ends a name at its first '#'
// (docs/ARCHITECTURE.md §3.3), so such a name would lose its tail and turn the tail into
// metadata; one with no UTF-8 form would be lost whole.
bool name_is_writable(PyObject* name, const char* what) {
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "%s: name must be a str, not %s", what, Py_TYPE(name)->tp_name);
    return false;
  }
  if (!is_utf8_writable(name)) {
    PyErr_Format(PyExc_ValueError, "%s: name %R holds a lone surrogate, which cannot be written as UTF-8", what,
                 name);
    return false;
  }
  const Py_ssize_t length = PyUnicode_GET_LENGTH(name);
  // Names are mostly ASCII, whose bytes memchr reads faster than PyUnicode_FindChar.
  const bool has_hash = PyUnicode_IS_COMPACT_ASCII(name)
                            ? std::memchr(PyUnicode_1BYTE_DATA(name), '#', size_t(length)) != nullptr
                            : PyUnicode_FindChar(name, '#', 0, length, 1) >= 0;
  if (has_hash) {
    PyErr_Format(PyExc_ValueError,
                 "%s: name %R holds '#', which the trace format reads as the start of metadata; "
                 "pass that part as metadata (mlprof.Trace(\"op\", id=1)) or use another character",
                 what, name);
    return false;
  }
  return true;
}

// Keys are written quoted when they hold the encoding's punctuation; one with no UTF-8 form
// could not be written at all.
bool metadata_is_writable(PyObject* kwnames, const char* what) {
  const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  if (n > kMaxMetadata) {
    PyErr_Format(PyExc_ValueError, "%s: at most %zd metadata items can be recorded, not %zd", what, kMaxMetadata, n);
    return false;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    if (!PyUnicode_Check(key) || !is_utf8_writable(key)) {
      PyErr_Format(PyExc_ValueError, "%s: metadata key %R cannot be written as UTF-8", what, key);
      return false;
    }
  }
  return true;
}

PyObject* one() {
  static PyObject* value = PyLong_FromLong(1);  // immortal
  return value;
}

// step_num and _r=1 among the metadata make a step marker.
bool find_step(TraceObject* self, const char* what) {
  if (self->kwnames == nullptr) return true;
  PyObject* step_num = nullptr;
  bool root = false;
  const Py_ssize_t n = PyTuple_GET_SIZE(self->kwnames);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* key = PyTuple_GET_ITEM(self->kwnames, i);
    PyObject* value = PyTuple_GET_ITEM(self->values, i);
    if (PyUnicode_CompareWithASCIIString(key, "step_num") == 0) step_num = value;
    else if (PyUnicode_CompareWithASCIIString(key, "_r") == 0)
      root = PyLong_Check(value) && PyObject_RichCompareBool(value, one(), Py_EQ) == 1;
  }
  if (!root || step_num == nullptr) return true;
  if (!PyLong_Check(step_num) || PyBool_Check(step_num)) {
    PyErr_Format(PyExc_TypeError, "%s: step_num must be an int, not %s", what, Py_TYPE(step_num)->tp_name);
    return false;
  }
  self->step = PyLong_AsLongLong(step_num);
  if (self->step == -1 && PyErr_Occurred()) return false;
  if (self->step < 0) {
    PyErr_Format(PyExc_ValueError, "%s: step_num must be >= 0, not %lld", what, (long long)self->step);
    return false;
  }
  self->is_step = true;
  return true;
}

// Takes over the references to kwnames and values.
TraceObject* new_trace(PyTypeObject* type, PyObject* name, PyObject* kwnames, PyObject* values, const char* what) {
  if (!name_is_writable(name, what) || (kwnames != nullptr && !metadata_is_writable(kwnames, what))) {
    Py_XDECREF(kwnames);
    Py_XDECREF(values);
    return nullptr;
  }
  auto* self = reinterpret_cast<TraceObject*>(type->tp_alloc(type, 0));
  if (self == nullptr) {
    Py_XDECREF(kwnames);
    Py_XDECREF(values);
    return nullptr;
  }
  Py_INCREF(name);
  self->name = name;
  self->kwnames = kwnames;
  self->values = values;
  if (!find_step(self, what)) {
    Py_DECREF(self);
    return nullptr;
  }
  return self;
}

// Trace(name, **metadata), the fast path of a call.
PyObject* trace_vectorcall(PyObject* type, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "mlprof.Trace: takes a name and keyword metadata (%zd positional arguments given)",
                 nargs);
    return nullptr;
  }
  PyObject* values = nullptr;
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) > 0) {
    const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
    values = PyTuple_New(n);
    if (values == nullptr) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
      Py_INCREF(args[1 + i]);
      PyTuple_SET_ITEM(values, i, args[1 + i]);
    }
    Py_INCREF(kwnames);
  } else {
    kwnames = nullptr;
  }
  return reinterpret_cast<PyObject*>(
      new_trace(reinterpret_cast<PyTypeObject*>(type), args[0], kwnames, values, "mlprof.Trace"));
}

// Trace(name, **metadata) through tp_new: subclasses, and calls that do not vectorcall.
PyObject* trace_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  if (PyTuple_GET_SIZE(args) != 1) {
    PyErr_Format(PyExc_TypeError, "mlprof.Trace: takes a name and keyword metadata (%zd positional arguments given)",
                 PyTuple_GET_SIZE(args));
    return nullptr;
  }
  PyObject *kwnames = nullptr, *values = nullptr;
  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) > 0) {
    const Py_ssize_t n = PyDict_GET_SIZE(kwargs);
    kwnames = PyTuple_New(n);
    values = PyTuple_New(n);
    if (kwnames == nullptr || values == nullptr) {
      Py_XDECREF(kwnames);
      Py_XDECREF(values);
      return nullptr;
    }
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      Py_INCREF(key);
      Py_INCREF(value);
      PyTuple_SET_ITEM(kwnames, i, key);
      PyTuple_SET_ITEM(values, i, value);
      ++i;
    }
  }
  return reinterpret_cast<PyObject*>(new_trace(type, PyTuple_GET_ITEM(args, 0), kwnames, values, "mlprof.Trace"));
}

// StepTrace(name, step): Trace(name, step_num=step, _r=1).
PyObject* step_trace_make(PyTypeObject* type, PyObject* name, PyObject* step) {
  if (!PyLong_Check(step) || PyBool_Check(step)) {
    PyErr_Format(PyExc_TypeError, "mlprof.StepTrace: step must be an int, not %s", Py_TYPE(step)->tp_name);
    return nullptr;
  }
  PyObject* kwnames = Py_BuildValue("(ss)", "step_num", "_r");
  PyObject* values = Py_BuildValue("(Oi)", step, 1);
  if (kwnames == nullptr || values == nullptr) {
    Py_XDECREF(kwnames);
    Py_XDECREF(values);
    return nullptr;
  }
  return reinterpret_cast<PyObject*>(new_trace(type, name, kwnames, values, "mlprof.StepTrace"));
}

PyObject* step_trace_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"name", "step", nullptr};
  PyObject *name, *step;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:StepTrace", const_cast<char**>(keywords), &name, &step))
    return nullptr;
  return step_trace_make(type, name, step);
}

PyObject* step_trace_vectorcall(PyObject* type, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames == nullptr && nargs == 2)
    return step_trace_make(reinterpret_cast<PyTypeObject*>(type), args[0], args[1]);
  // Keywords: the general path.
  PyObject* call_args = PyTuple_New(nargs);
  PyObject* kwargs = kwnames != nullptr ? PyDict_New() : nullptr;
  bool ok = call_args != nullptr && (kwnames == nullptr || kwargs != nullptr);
  for (Py_ssize_t i = 0; ok && i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(call_args, i, args[i]);
  }
  for (Py_ssize_t i = 0; ok && kwnames != nullptr && i < PyTuple_GET_SIZE(kwnames); ++i)
    ok = PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) == 0;
  PyObject* result = ok ? step_trace_new(reinterpret_cast<PyTypeObject*>(type), call_args, kwargs) : nullptr;
  Py_XDECREF(call_args);
  Py_XDECREF(kwargs);
  return result;
}

void trace_dealloc(PyObject* o) {
  auto* self = reinterpret_cast<TraceObject*>(o);
  Py_XDECREF(self->name);
  Py_XDECREF(self->kwnames);
  Py_XDECREF(self->values);
  Py_TYPE(o)->tp_free(o);
}

// "mlprof.Trace" or "mlprof.StepTrace", for messages.
const char* kind_of(TraceObject* self) { return Py_TYPE(self)->tp_name; }

PyObject* trace_enter(PyObject* o, PyObject*) {
  auto* self = reinterpret_cast<TraceObject*>(o);
  if (self->open) {
    PyErr_Format(g_profiler_error, "%s: %R is already open; a Trace is entered once at a time (make one per block)",
                 kind_of(self), self->name);
    return nullptr;
  }
  Py_INCREF(o);  // the chain's reference
  self->outer = t_innermost;
  self->open = true;
  t_innermost = self;
  if (self->is_step) {
    // Nonzero while a session records (> 0) or a step-range session waits for its range (< 0).
    if (internal::g_trace_level.load(std::memory_order_relaxed) != 0 && internal::step_begin(self->step) > 0)
      self->start = now_ticks();
  } else if (internal::tracing(kCritical)) {
    self->start = now_ticks();
  }
  Py_INCREF(o);
  return o;
}

// Whether `self` is open on this thread rather than on another.
bool in_this_threads_chain(TraceObject* self) {
  for (TraceObject* t = t_innermost; t != nullptr; t = t->outer)
    if (t == self) return true;
  return false;
}

// Takes a Trace open on this thread off its chain, recording nothing, and drops the chain's
// reference.
void leave_chain(TraceObject* self) {
  TraceObject** link = &t_innermost;
  while (*link != self) link = &(*link)->outer;
  *link = self->outer;
  self->open = false;
  self->outer = nullptr;
  self->start = 0;
  Py_DECREF(self);
}

// Whether `self` may end now: it is the innermost Trace open on this thread. Otherwise raises,
// leaving the chain as it should be: a Trace still open inside it is ended by its own exit later.
[[gnu::noinline]] bool may_end_slow(TraceObject* self, const char* verb) {
  if (!self->open) {
    PyErr_Format(g_profiler_error, "%s: %R %s without being entered", kind_of(self), self->name, verb);
  } else if (!in_this_threads_chain(self)) {
    PyErr_Format(g_profiler_error, "%s: %R %s on a thread other than the one it was entered on", kind_of(self),
                 self->name, verb);
  } else {
    PyObject* inner = t_innermost->name;
    Py_INCREF(inner);
    leave_chain(self);
    PyErr_Format(g_profiler_error,
                 "%s: %R was not recorded: it %s while %R, entered inside it, is still open; "
                 "Traces on a thread must end in the reverse order they were entered",
                 kind_of(self), self->name, verb, inner);
    Py_DECREF(inner);
  }
  return false;
}

inline bool may_end(TraceObject* self, const char* verb) {
  return __builtin_expect(t_innermost == self, 1) || may_end_slow(self, verb);
}

// A metadata value as TraceArg: ints, floats, bools and strs keep their type, anything else
// is written as its str(); `keep` holds what the views point into.
bool to_trace_arg(std::string_view key, PyObject* value, TraceArg* out, PyObject** keep) {
  *keep = nullptr;
  if (PyBool_Check(value)) {
    *out = TraceArg(key, value == Py_True);
    return true;
  }
  if (PyLong_Check(value)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0 && !(v == -1 && PyErr_Occurred())) {
      *out = TraceArg(key, int64_t(v));
      return true;
    }
    PyErr_Clear();
    const unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
      *out = TraceArg(key, uint64_t(u));
      return true;
    }
    PyErr_Clear();
  } else if (PyFloat_Check(value)) {
    *out = TraceArg(key, PyFloat_AS_DOUBLE(value));
    return true;
  }
  PyObject* text = PyUnicode_Check(value) ? (Py_INCREF(value), value) : PyObject_Str(value);
  if (text == nullptr) return false;
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
  if (utf8 != nullptr) {
    *keep = text;
    *out = TraceArg(key, std::string_view(utf8, size_t(size)));
    return true;
  }
  // A lone surrogate has no UTF-8 form: written as \udXXX rather than left out.
  PyErr_Clear();
  PyObject* escaped = PyUnicode_AsEncodedString(text, "utf-8", "backslashreplace");
  Py_DECREF(text);
  if (escaped == nullptr) return false;
  *keep = escaped;
  *out = TraceArg(key, std::string_view(PyBytes_AS_STRING(escaped), size_t(PyBytes_GET_SIZE(escaped))));
  return true;
}

void record_with_metadata(TraceObject* self, std::string_view name, uint64_t end) {
  constexpr Py_ssize_t kMaxArgs = kMaxMetadata;  // more is refused when the Trace is made
  const Py_ssize_t n = std::min(PyTuple_GET_SIZE(self->kwnames), kMaxArgs);
  alignas(TraceArg) unsigned char storage[kMaxArgs * sizeof(TraceArg)] = {};
  auto* args = reinterpret_cast<TraceArg*>(storage);
  PyObject* keep[kMaxArgs];
  Py_ssize_t used = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_ssize_t key_size = 0;
    const char* key = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(self->kwnames, i), &key_size);
    if (key == nullptr || !to_trace_arg(std::string_view(key, size_t(key_size)), PyTuple_GET_ITEM(self->values, i),
                                        &args[used], &keep[used])) {
      PyErr_Clear();  // a value that cannot be written is left out, never an error in the program
      continue;
    }
    ++used;
  }
  internal::record_with_args(name, args, size_t(used), self->start, end);
  for (Py_ssize_t i = 0; i < used; ++i) Py_XDECREF(keep[i]);
}

PyObject* trace_exit(PyObject* o, PyObject* const*, Py_ssize_t) {
  auto* self = reinterpret_cast<TraceObject*>(o);
  if (!may_end(self, "ended")) return nullptr;
  t_innermost = self->outer;
  if (self->start != 0) {
    const uint64_t end = now_ticks();
    Py_ssize_t size = 0;
    // Names were checked to have a UTF-8 form when the Trace was made.
    const char* name = PyUnicode_AsUTF8AndSize(self->name, &size);
    if (name == nullptr) {
      PyErr_Clear();
    } else if (self->is_step) {
      internal::step_end(interned_step_name(std::string_view(name, size_t(size))), self->step, self->start, end);
    } else if (self->kwnames != nullptr) {
      record_with_metadata(self, std::string_view(name, size_t(size)), end);
    } else {
      internal::record_copy(std::string_view(name, size_t(size)), self->start, end);
    }
  }
  self->start = 0;
  self->open = false;
  self->outer = nullptr;
  Py_DECREF(o);  // the chain's reference; the caller holds another
  Py_RETURN_FALSE;
}

// Trace._discard(): leaves the open, innermost Trace without recording it (mlprof.steps uses it
// for the step whose fetch found the iterable exhausted: no step ran).
PyObject* trace_discard(PyObject* o, PyObject*) {
  auto* self = reinterpret_cast<TraceObject*>(o);
  if (!may_end(self, "was discarded")) return nullptr;
  leave_chain(self);
  Py_RETURN_NONE;
}

PyObject* trace_get_name(PyObject* o, void*) {
  PyObject* name = reinterpret_cast<TraceObject*>(o)->name;
  Py_INCREF(name);
  return name;
}

PyObject* trace_get_metadata(PyObject* o, void*) {
  auto* self = reinterpret_cast<TraceObject*>(o);
  PyObject* dict = PyDict_New();
  if (dict == nullptr || self->kwnames == nullptr) return dict;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->kwnames); ++i) {
    if (PyDict_SetItem(dict, PyTuple_GET_ITEM(self->kwnames, i), PyTuple_GET_ITEM(self->values, i)) < 0) {
      Py_DECREF(dict);
      return nullptr;
    }
  }
  return dict;
}

// Trace("name")(function): the decorator form, made by mlprof._decorate in Python.
PyObject* trace_call(PyObject* o, PyObject* args, PyObject* kwargs) {
  if (PyTuple_GET_SIZE(args) != 1 || (kwargs != nullptr && PyDict_GET_SIZE(kwargs) > 0) ||
      !PyCallable_Check(PyTuple_GET_ITEM(args, 0))) {
    PyErr_SetString(PyExc_TypeError, "mlprof.Trace: used as a decorator, it takes one function");
    return nullptr;
  }
  PyObject* package = PyImport_ImportModule("mlprof");
  if (package == nullptr) return nullptr;
  PyObject* result = PyObject_CallMethod(package, "_decorate", "OO", o, PyTuple_GET_ITEM(args, 0));
  Py_DECREF(package);
  return result;
}

PyMethodDef trace_methods[] = {
    {"__enter__", trace_enter, METH_NOARGS, "Starts the annotation (when a session records)."},
    {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(trace_exit)), METH_FASTCALL,
     "Ends the annotation and records it; raises ProfilerError unless it is the innermost one open on this thread."},
    {"_discard", trace_discard, METH_NOARGS, "Ends the innermost open annotation without recording it."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef trace_getset[] = {
    {"name", trace_get_name, nullptr, "The annotation's name.", nullptr},
    {"metadata", trace_get_metadata, nullptr, "The keyword metadata, as a dict.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

constexpr const char* kTraceDoc =
    "Trace(name, **metadata)\n--\n\n"
    "A scoped annotation, as tf.profiler.experimental.Trace: `with mlprof.Trace(\"forward\"):` records the\n"
    "block as an event named `name` on this thread's line while a session records, and costs a few\n"
    "dozen nanoseconds when none does. Keyword metadata is written as name#k=v,...# (only when\n"
    "recording), so a name holding '#' is refused (ValueError), as is more than 16 metadata items.\n"
    "`step_num=N` with `_r=1` marks a training step, as TensorFlow's Trace does.\n"
    "Traces on a thread end in the reverse order they began: one that ends while a Trace entered\n"
    "inside it is still open raises ProfilerError and is not recorded.\n"
    "Also a decorator: `@mlprof.Trace(\"load\")` traces every call of a function. A coroutine or\n"
    "generator function is refused (TypeError): put `with mlprof.Trace(...)` inside it instead.";

constexpr const char* kStepTraceDoc =
    "StepTrace(name, step)\n--\n\n"
    "A training step marker: the same as Trace(name, step_num=step, _r=1). Fetch the batch inside\n"
    "the step, or the time waiting for input falls between steps, where no tool counts it:\n\n"
    "    batches = iter(loader)\n"
    "    for step in range(num_steps):\n"
    "        with mlprof.StepTrace(\"train\", step):\n"
    "            x, y = next(batches)\n"
    "            ...\n\n"
    "mlprof.steps(loader) does the same for any iterable: `for step, (x, y) in mlprof.steps(loader):`.";

// A static type holding TraceObjects, as PyVarObject_HEAD_INIT would start it.
PyTypeObject trace_object_type(const char* name, const char* doc, newfunc make, vectorcallfunc call) {
  PyTypeObject t = {};
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);
  t.tp_name = name;
  t.tp_doc = doc;
  t.tp_basicsize = sizeof(TraceObject);
  t.tp_dealloc = trace_dealloc;
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_new = make;
  t.tp_vectorcall = call;
  return t;
}

PyTypeObject TraceType = [] {
  PyTypeObject t = trace_object_type("mlprof.Trace", kTraceDoc, trace_new, trace_vectorcall);
  t.tp_flags |= Py_TPFLAGS_BASETYPE;
  t.tp_methods = trace_methods;
  t.tp_getset = trace_getset;
  t.tp_call = trace_call;
  return t;
}();

PyTypeObject StepTraceType = [] {
  PyTypeObject t = trace_object_type("mlprof.StepTrace", kStepTraceDoc, step_trace_new, step_trace_vectorcall);
  t.tp_base = &TraceType;  // its methods and properties
  return t;
}();

}  // namespace

bool add_trace_types(PyObject* module) {
  g_profiler_error = PyObject_GetAttrString(module, "ProfilerError");
  if (g_profiler_error == nullptr) return false;
  if (PyType_Ready(&TraceType) < 0 || PyType_Ready(&StepTraceType) < 0) return false;
  Py_INCREF(&TraceType);
  if (PyModule_AddObject(module, "Trace", reinterpret_cast<PyObject*>(&TraceType)) < 0) return false;
  Py_INCREF(&StepTraceType);
  return PyModule_AddObject(module, "StepTrace", reinterpret_cast<PyObject*>(&StepTraceType)) == 0;
}

}  // namespace mlprof::python
