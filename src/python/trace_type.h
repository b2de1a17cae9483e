// mlprof.Trace and mlprof.StepTrace: scoped annotations for Python, written against the
// CPython API rather than pybind11 so that a `with mlprof.Trace(...)` costs two short C calls
// (the constructor is a vectorcall, __enter__/__exit__ are plain C methods).
#pragma once

#include <Python.h>

namespace mlprof::python {

// Adds Trace and StepTrace to `module`. Returns false with a Python error set on failure.
bool add_trace_types(PyObject* module);

}  // namespace mlprof::python
