// python_tracer_level=1: every Python function call is an event on its thread's line, named as
// TensorFlow's Python tracer names them, with the qualified name ("$file.py:12 Class.method"),
// so that time spent in Python code is covered by traced activity. Recorded through the
// interpreter's C-level profile hook (the one sys.setprofile installs), on every thread that
// runs Python while a session does.
// All functions need the GIL.
#pragma once

#include <Python.h>

namespace mlprof::python {

// Installs the hook on every thread of the interpreter and on threads started later
// (threading.setprofile). Returns false with a Python error set on failure.
bool start_python_tracer();
// Removes the hook where it is still ours; another profiler installed since is left alone.
void stop_python_tracer();

// The function threading.setprofile runs first in a new thread: installs the C hook there.
PyObject* python_tracer_bootstrap(PyObject* self, PyObject* const* args, Py_ssize_t nargs);

}  // namespace mlprof::python
