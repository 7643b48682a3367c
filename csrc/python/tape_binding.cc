// This file implements the Python binding of Tape (Note [Gradient tape]).
#include "python/tape_binding.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "autodiff/tape.h"
#include "python/tensor_object.h"

namespace py = pybind11;

namespace ember::python {
namespace {

// The tapes pushed on this thread. Holding them here keeps a pushed tape
// alive, so the runtime never calls an observer Python already freed.
thread_local std::vector<std::shared_ptr<Tape>> g_pushed;

TensorHandle* TensorArg(py::handle obj) {
  if (!IsTensor(obj.ptr())) throw py::type_error("expected an ember.Tensor");
  return HandleOf(obj.ptr());
}

py::object Wrap(const RefPtr<TensorHandle>& handle) {
  PyObject* obj = WrapHandle(handle);
  if (obj == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(obj);
}

uintptr_t KeyOf(const TensorHandle* handle) { return reinterpret_cast<uintptr_t>(handle); }

py::object AttrToPython(const AttrValue& value, AttrType type) {
  if (value.is_none()) return py::none();
  switch (type) {
    case AttrType::kBool: return py::bool_(value.as_bool());
    case AttrType::kInt: return py::int_(value.as_int());
    case AttrType::kFloat: return py::float_(value.as_float());
    case AttrType::kString: return py::str(value.as_string());
    case AttrType::kIntList: return py::tuple(py::cast(value.as_int_list()));
    case AttrType::kDType: return py::reinterpret_borrow<py::object>(DTypeObject(value.as_dtype()));
  }
  return py::none();
}

// One recorded call as Python sees it: (op name ("" for a custom_gradient
// call), {attr: value}, inputs, outputs, input keys, output keys, list
// sizes or None, custom_gradient id or -1).
py::tuple EntryToPython(const Tape::Entry& e) {
  py::dict attrs;
  for (size_t i = 0; e.op != nullptr && i < e.op->attrs.size() && i < e.attrs.size(); ++i) {
    attrs[py::str(e.op->attrs[i].name)] = AttrToPython(e.attrs[i], e.op->attrs[i].type);
  }
  py::list inputs, outputs, input_keys, output_keys;
  for (const auto& h : e.inputs) {
    inputs.append(Wrap(h));
    input_keys.append(py::int_(KeyOf(h.get())));
  }
  for (const auto& h : e.outputs) {
    outputs.append(Wrap(h));
    output_keys.append(py::int_(KeyOf(h.get())));
  }
  py::object list_sizes = py::none();
  if (!e.arg_starts.empty()) {
    py::list sizes;
    for (size_t a = 0; a + 1 < e.arg_starts.size(); ++a) sizes.append(e.arg_starts[a + 1] - e.arg_starts[a]);
    list_sizes = sizes;
  }
  return py::make_tuple(py::str(e.op != nullptr ? e.op->name : ""), attrs, inputs, outputs, input_keys, output_keys,
                        list_sizes, e.custom_id);
}

}  // namespace

void RegisterTapeBindings(py::module_& m) {
  py::class_<Tape, std::shared_ptr<Tape>>(m, "_Tape")
      .def(py::init<>())
      .def("push", [](const std::shared_ptr<Tape>& tape) {
        g_pushed.push_back(tape);
        AddOpCallObserver(tape.get());
      })
      .def("pop", [](const std::shared_ptr<Tape>& tape) {
        auto it = std::find(g_pushed.begin(), g_pushed.end(), tape);
        if (it == g_pushed.end()) return;
        RemoveOpCallObserver(tape.get());
        g_pushed.erase(it);
      })
      .def("watch", [](Tape& tape, py::handle tensor) { tape.Watch(RefPtr<TensorHandle>::Share(TensorArg(tensor))); })
      .def("is_watched", [](const Tape& tape, py::handle tensor) { return tape.IsWatched(TensorArg(tensor)); })
      .def("entries", [](const Tape& tape) {
        py::list out;
        for (const auto& e : tape.entries()) out.append(EntryToPython(e));
        return out;
      })
      .def("record_custom",
           [](Tape& tape, const py::list& inputs, const py::list& outputs, int64_t custom_id) {
             std::vector<RefPtr<TensorHandle>> ins, outs;
             for (py::handle t : inputs) ins.push_back(RefPtr<TensorHandle>::Share(TensorArg(t)));
             for (py::handle t : outputs) outs.push_back(RefPtr<TensorHandle>::Share(TensorArg(t)));
             tape.RecordCustom(std::move(ins), std::move(outs), custom_id);
           })
      .def("num_entries", [](const Tape& tape) { return tape.entries().size(); })
      .def("reset", &Tape::Reset)
      .def_property("recording", &Tape::recording, &Tape::set_recording);
  // The identity of a tensor's value on tapes: two Tensor objects wrapping
  // one handle are the same value.
  m.def("_handle_key", [](py::handle tensor) { return KeyOf(TensorArg(tensor)); });
}

}  // namespace ember::python
