// This file implements Execute: one function per stage, run in order.
#include "runtime/execute.h"

#include <array>

#include "ops/op_kernel.h"
#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/kernel_launch.h"
#include "runtime/placement.h"
#include "runtime/type_binding.h"

namespace ember {
namespace {

Status Prefixed(const OpDef& op, const Status& s) { return s.WithPrefix(std::string(op.name) + ": "); }

Status CheckArity(const OpDef& op, int num_inputs, const AttrList& attrs) {
  if (num_inputs != static_cast<int>(op.inputs.size())) {
    return InvalidArgument("expected " + std::to_string(op.inputs.size()) + " inputs, got " +
                           std::to_string(num_inputs));
  }
  if (attrs.size() != op.attrs.size()) {
    return InvalidArgument("expected " + std::to_string(op.attrs.size()) + " attributes, got " +
                           std::to_string(attrs.size()));
  }
  return Status::OK();
}

Status BindFromInputs(const OpDef& op, TensorHandle* const* inputs, const AttrList& attrs,
                      DType* bindings) {
  std::array<InputTypeInfo, 16> small;
  std::vector<InputTypeInfo> large;
  InputTypeInfo* infos = small.data();
  if (op.inputs.size() > small.size()) {
    large.resize(op.inputs.size());
    infos = large.data();
  }
  for (size_t i = 0; i < op.inputs.size(); ++i) infos[i] = {inputs[i]->dtype(), false, DTypeKind::kBool};
  return BindTypeVars(op, infos, attrs, bindings);
}

// Inputs whose dtype differs from their bound dtype (mixed-dtype operands
// after promotion) go through the cast op, asynchronously like any op.
Status CastInputs(const OpDef& op, TensorHandle* const* inputs, const DType* bindings,
                  std::vector<RefPtr<TensorHandle>>* cast_inputs) {
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    DType want = ArgDType(op.inputs[i], bindings);
    if (inputs[i]->dtype() == want) {
      cast_inputs->push_back(RefPtr<TensorHandle>::Share(inputs[i]));
      continue;
    }
    std::vector<RefPtr<TensorHandle>> out;
    AttrList cast_attrs{AttrValue(want)};
    EMBER_RETURN_IF_ERROR(ExecuteAndRun(GetOpDef(OpId::kCast), &inputs[i], 1, cast_attrs, &out));
    cast_inputs->push_back(std::move(out[0]));
  }
  return Status::OK();
}

Status InferShapes(const OpDef& op, const std::vector<RefPtr<TensorHandle>>& inputs,
                   const AttrList& attrs, std::vector<Shape>* output_shapes) {
  // Most ops have few inputs: keep their metadata on the stack.
  constexpr size_t kInline = 4;
  const size_t n = inputs.size();
  std::array<Shape, kInline> inline_shapes;
  std::array<DType, kInline> inline_dtypes;
  std::vector<Shape> heap_shapes;
  std::vector<DType> heap_dtypes;
  Shape* shapes = inline_shapes.data();
  DType* dtypes = inline_dtypes.data();
  if (n > kInline) {
    heap_shapes.resize(n);
    heap_dtypes.resize(n);
    shapes = heap_shapes.data();
    dtypes = heap_dtypes.data();
  }
  for (size_t i = 0; i < n; ++i) {
    shapes[i] = inputs[i]->shape();
    dtypes[i] = inputs[i]->dtype();
  }
  output_shapes->resize(op.outputs.size());
  ShapeContext ctx(op, shapes, dtypes, static_cast<int>(n), attrs, output_shapes->data());
  return op.shape_fn(ctx);
}

}  // namespace

Status Execute(const OpDef& op, TensorHandle* const* inputs, int num_inputs, const AttrList& attrs,
               const DType* bindings, uint32_t donated_mask, ExecuteResult* result) {
  Status s = CheckArity(op, num_inputs, attrs);
  if (!s.ok()) return Prefixed(op, s);

  std::array<DType, kMaxTypeVars> bound{};
  if (bindings == nullptr) {
    s = BindFromInputs(op, inputs, attrs, bound.data());
    if (!s.ok()) return Prefixed(op, s);
    bindings = bound.data();
  }

  std::vector<RefPtr<TensorHandle>> typed_inputs;
  typed_inputs.reserve(num_inputs);
  EMBER_RETURN_IF_ERROR(CastInputs(op, inputs, bindings, &typed_inputs));

  std::vector<Shape> output_shapes;
  s = InferShapes(op, typed_inputs, attrs, &output_shapes);
  if (!s.ok()) return Prefixed(op, s);

  const uint64_t type_key = PackTypeKey(bindings, static_cast<int>(op.type_vars.size()));
  Device* device = nullptr;
  s = PlaceOp(op, type_key, reinterpret_cast<TensorHandle* const*>(typed_inputs.data()), num_inputs,
              &device);
  if (!s.ok()) return Prefixed(op, s);
  for (const auto& in : typed_inputs) {
    if (in->device() != device) {
      // Cross-device copies arrive with the second device runtime.
      return Prefixed(op, Unimplemented("input on " + in->device()->name() + " but op placed on " +
                                        device->name() + "; copy it explicitly"));
    }
  }

  std::shared_ptr<const OpKernel> kernel =
      Context::Global().kernel_cache().Lookup(op, device, type_key, bindings, attrs, &s);
  if (kernel == nullptr) return Prefixed(op, s);

  result->outputs.clear();
  result->outputs.reserve(op.outputs.size());
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    result->outputs.push_back(TensorHandle::CreatePending(ArgDType(op.outputs[i], bindings),
                                                          std::move(output_shapes[i]), device));
  }

  const bool async = Context::Global().async();
  auto launch = std::make_unique<KernelLaunch>(op, device, std::move(kernel), attrs,
                                               std::move(typed_inputs), result->outputs,
                                               donated_mask, async);
  if (async) {
    device->executor()->Enqueue(std::move(launch));
  } else {
    result->inline_task = std::move(launch);
  }
  return Status::OK();
}

Status ExecuteAndRun(const OpDef& op, TensorHandle* const* inputs, int num_inputs,
                     const AttrList& attrs, std::vector<RefPtr<TensorHandle>>* outputs) {
  ExecuteResult result;
  EMBER_RETURN_IF_ERROR(Execute(op, inputs, num_inputs, attrs, nullptr, 0, &result));
  if (result.inline_task) result.inline_task->Run();
  *outputs = std::move(result.outputs);
  return Status::OK();
}

}  // namespace ember
