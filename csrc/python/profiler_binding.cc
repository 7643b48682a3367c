// This file implements the Python binding of the profiler (Note [Profiler]).
#include "python/profiler_binding.h"

#include <string>

#include "runtime/profiler.h"

namespace py = pybind11;

namespace ember::python {

void NameProfiledPythonThread() {
  if (profiler::ThisThreadNamed()) return;
  std::string name = "python";
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);  // keep a pending error as it is
  if (PyObject* threading = PyImport_ImportModule("threading")) {
    if (PyObject* thread = PyObject_CallMethod(threading, "current_thread", nullptr)) {
      if (PyObject* py_name = PyObject_GetAttrString(thread, "name")) {
        if (const char* text = PyUnicode_AsUTF8(py_name)) name += std::string(" ") + text;
        Py_DECREF(py_name);
      }
      Py_DECREF(thread);
    }
    Py_DECREF(threading);
  }
  PyErr_Clear();
  PyErr_Restore(type, value, traceback);
  profiler::NameThisThread(name);
}

void RegisterProfilerBindings(py::module_& m) {
  m.def("_profiler_start", [] { profiler::Start(); });
  m.def("_profiler_enabled", [] { return profiler::Enabled(); });
  m.def("_profiler_now_ns", [] { return profiler::NowNs(); });
  // [(thread id, thread name, [(name, category, start ns, end ns, flow, args JSON members)])]
  m.def("_profiler_stop", [] {
    std::vector<profiler::ThreadEvents> threads;
    {
      py::gil_scoped_release release;  // waits for recording threads' buffer locks
      threads = profiler::Stop();
    }
    py::list out;
    for (const auto& thread : threads) {
      py::list events;
      for (const auto& e : thread.events) {
        events.append(py::make_tuple(e.name, profiler::CategoryName(e.category), e.start_ns, e.end_ns, e.flow,
                                     e.args));
      }
      out.append(py::make_tuple(thread.thread_id, thread.thread_name, events));
    }
    return out;
  });
  // A user annotation (ember.profiler.Trace) on the calling thread.
  m.def("_profiler_record", [](const std::string& name, int64_t start_ns, int64_t end_ns, const std::string& args) {
    if (!profiler::Enabled()) return;
    NameProfiledPythonThread();
    profiler::Record(profiler::Event{name, profiler::Category::kUser, start_ns, end_ns, 0, args});
  });
}

}  // namespace ember::python
