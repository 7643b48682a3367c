// This file implements Execute: one function per stage, run in order.
#include "runtime/execute.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "ops/op_kernel.h"
#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/device_copy.h"
#include "runtime/dispatch_cache.h"
#include "runtime/kernel_launch.h"
#include "runtime/kernel_run.h"
#include "runtime/op_call.h"
#include "runtime/placement.h"
#include "runtime/profiler.h"
#include "runtime/type_binding.h"

namespace ember {
namespace {

Status Prefixed(const OpDef& op, const Status& s) { return s.WithPrefix(std::string(op.name) + ": "); }

// Computes the flat layout of the inputs (Note [List arguments]): one
// start per input argument plus the end. Empty when no input is a list.
Status InputLayout(const OpDef& op, int num_inputs, const int* list_sizes,
                   std::vector<int>* arg_starts) {
  if (!op.has_list_input()) {
    if (num_inputs != static_cast<int>(op.inputs.size())) {
      return InvalidArgument("expected " + std::to_string(op.inputs.size()) + " inputs, got " +
                             std::to_string(num_inputs));
    }
    return Status::OK();
  }
  if (list_sizes == nullptr) return InvalidArgument("list input sizes missing");
  arg_starts->assign(1, 0);
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    arg_starts->push_back(arg_starts->back() + (op.inputs[a].is_list ? list_sizes[a] : 1));
  }
  if (arg_starts->back() != num_inputs) {
    return InvalidArgument("expected " + std::to_string(arg_starts->back()) + " inputs, got " +
                           std::to_string(num_inputs));
  }
  return Status::OK();
}

Status CheckAttrs(const OpDef& op, const AttrList& attrs) {
  if (attrs.size() != op.attrs.size()) {
    return InvalidArgument("expected " + std::to_string(op.attrs.size()) + " attributes, got " +
                           std::to_string(attrs.size()));
  }
  return Status::OK();
}

Status BindFromInputs(const OpDef& op, TensorHandle* const* inputs, int num_inputs,
                      const int* arg_starts, const AttrList& attrs, DType* bindings) {
  std::array<InputTypeInfo, 16> small;
  std::vector<InputTypeInfo> large;
  InputTypeInfo* infos = small.data();
  if (num_inputs > static_cast<int>(small.size())) {
    large.resize(num_inputs);
    infos = large.data();
  }
  for (int i = 0; i < num_inputs; ++i) infos[i] = {inputs[i]->dtype(), false, DTypeKind::kBool};
  return BindTypeVars(op, infos, arg_starts, attrs, bindings);
}

// The argument a flat input index belongs to.
const ArgDef& InputArg(const OpDef& op, const int* arg_starts, int flat) {
  if (arg_starts == nullptr) return op.inputs[flat];
  size_t a = 0;
  while (arg_starts[a + 1] <= flat) ++a;
  return op.inputs[a];
}

// Inputs whose dtype differs from their bound dtype (mixed-dtype operands
// after promotion) go through the cast op, asynchronously like any op.
Status CastInputs(const OpDef& op, TensorHandle* const* inputs, int num_inputs, const int* arg_starts,
                  const DType* bindings, std::vector<RefPtr<TensorHandle>>* cast_inputs) {
  for (int i = 0; i < num_inputs; ++i) {
    const ArgDef& arg = InputArg(op, arg_starts, i);
    if (arg.type_var == kAnyDTypeVar) {  // list(any): each tensor keeps its dtype
      cast_inputs->push_back(RefPtr<TensorHandle>::Share(inputs[i]));
      continue;
    }
    const DType want = ArgDType(arg, bindings);
    if (inputs[i]->dtype() == want) {
      cast_inputs->push_back(RefPtr<TensorHandle>::Share(inputs[i]));
      continue;
    }
    // Promotion only joins the operands of one type variable; a tensor for
    // an argument of fixed dtype must already have it.
    if (arg.type_var < 0) {
      return Prefixed(op, TypeError(std::string("argument '") + arg.name + "' must be " + DTypeName(want) +
                                    ", got dtype " + DTypeName(inputs[i]->dtype())));
    }
    std::vector<RefPtr<TensorHandle>> out;
    AttrList cast_attrs{AttrValue(want)};
    EMBER_RETURN_IF_ERROR(ExecuteAndRun(GetOpDef(OpId::kCast), &inputs[i], 1, cast_attrs, &out));
    cast_inputs->push_back(std::move(out[0]));
  }
  return Status::OK();
}

// `any_dtypes` receives the dtypes of list(any) outputs; it may be null for
// ops without them (nearly all, which then allocate nothing for dtypes).
Status InferShapes(const OpDef& op, const std::vector<RefPtr<TensorHandle>>& inputs, const int* arg_starts,
                   const AttrList& attrs, std::vector<Shape>* output_shapes, std::vector<DType>* any_dtypes,
                   std::unique_ptr<KernelPlan>* plan) {
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
  ShapeContext ctx(op, shapes, dtypes, static_cast<int>(n), attrs, output_shapes, arg_starts);
  ctx.set_plan_slot(plan, /*reused=*/false);  // Note [Kernel plans]
  if (any_dtypes != nullptr) {
    any_dtypes->resize(op.outputs.size());
    ctx.set_output_dtypes(any_dtypes);
  }
  EMBER_RETURN_IF_ERROR(op.shape_fn(ctx));
  if (!op.has_list_output() && output_shapes->size() != op.outputs.size()) {
    return Internal("shape function changed the number of outputs");
  }
  return Status::OK();
}

// Note [Shape limits]: every output shape a shape function computes is
// checked here, once for all ops, before any buffer is sized from it.
// Unknown dims pass: traced values may have them, and an eager output
// with one is refused just before its handle is made.
Status CheckOutputShapes(const OpCall& call) {
  for (size_t i = 0; i < call.output_shapes.size(); ++i) {
    EMBER_RETURN_IF_ERROR(ValidateShape(call.output_shapes[i], static_cast<int64_t>(DTypeSize(call.output_dtype(i))),
                                        /*allow_unknown=*/true));
  }
  return Status::OK();
}

// A ready stand-in for `value` that has its dtype and shape but no data,
// on `device`: what a kernel gets for a metadata input.
RefPtr<TensorHandle> MetadataOnly(const TensorHandle& value, Device* device) {
  return TensorHandle::CreateReady(Tensor(value.dtype(), value.shape(), RefPtr<Buffer>()), device);
}

void MarkShapeValues(const std::vector<RefPtr<TensorHandle>>& outputs) {
  for (const auto& out : outputs) out->MarkShapeValue();
}

// Note [Copy stage]: an input on another device than the op's is copied
// there (Note [Device copies]), asynchronously, under the device policy;
// each copy shows in the placement log. Between devices with host memory
// (the logical CPU devices) a kernel reads the input in place (Note
// [Host-memory devices]). Inputs the kernel reads on the host (Note
// [Host-memory inputs], declared in op_defs/) go to host memory instead;
// those it reads only the metadata of are not moved at all (Note
// [Metadata inputs]).
Status CopyInputs(const OpDef& op, Device* device, std::vector<RefPtr<TensorHandle>>* inputs) {
  // The CPU's case, checked first because every eager op passes here: a
  // host-memory device reads inputs from any host-memory device in place
  // and keeps its host-memory inputs where they are.
  if (device->host_memory()) {
    bool all_in_host_memory = true;
    for (const auto& in : *inputs) all_in_host_memory &= in->device() == device || in->device()->host_memory();
    if (all_in_host_memory) return Status::OK();
  }
  const uint32_t host_inputs = device->host_memory() ? 0 : op.host_memory_inputs;
  for (size_t i = 0; i < inputs->size(); ++i) {
    RefPtr<TensorHandle>& in = (*inputs)[i];
    if (i < 32 && ((op.metadata_inputs >> i) & 1u) != 0) {
      // Note [Metadata inputs]: the kernel gets the metadata, at once.
      if (in->device() != device && !in->device()->host_memory()) in = MetadataOnly(*in, device);
      continue;
    }
    const bool on_host = i < 32 && ((host_inputs >> i) & 1u) != 0;
    if (in->device() == device && !on_host) continue;  // the common case: nothing to move
    // Graph-running ops hand their arguments to the graph where they are:
    // the trace placed its argument nodes there.
    if (RunsOnHost(op) && !on_host) continue;
    Device* want = on_host && !device->host_memory() ? DeviceManager::Global().cpu() : device;
    if (!NeedsCopy(in->device(), want)) continue;
    const DevicePolicy policy = Context::Global().device_policy();
    // identity under a device scope is how a program moves a value.
    if (policy == DevicePolicy::kExplicit && !on_host && op.id != OpId::kIdentity) {
      return InvalidArgument("input " + std::to_string(i) + " is on " + in->device()->name() +
                             " but the op runs on " + device->name() +
                             " and the device policy is 'explicit'; copy it first, e.g. with ember.identity "
                             "under ember.device('" + device->name() + "')");
    }
    if (Context::Global().log_placement() || policy == DevicePolicy::kWarn) {
      std::fprintf(stderr, "ember placement: %s input %zu copied %s -> %s\n", op.name, i, in->device()->name().c_str(),
                   want->name().c_str());
    }
    in = CopyToDevice(in, want);
  }
  return Status::OK();
}

// Runs or queues an eager launch (built on the stack: Note [Launches on
// the stack]). The launch holds the output handles; the caller gets them
// back after an inline run, or copies when the launch goes to the heap.
void LaunchEager(KernelLaunch& launch, Device* device, ExecuteResult* result) {
  // Note [Launches on the stack]: most small ops run on this thread at
  // once (Note [Running at issue], or sync mode), so the launch record is
  // built here and moves to the heap only when it has to wait in a queue
  // or be handed back: one allocation fewer per op.
  if (profiler::Enabled()) {  // Note [Profiler]: the dispatch-to-kernel arrow
    const uint64_t flow = profiler::NewFlow();
    launch.set_profiler_flow(flow);
    profiler::LastDispatchFlow() = flow;
  }
  if (Context::Global().async()) {
    // Note [Running at issue]: a tiny op on an idle executor runs here.
    if (device->executor()->TryRunAtIssue(launch)) {
      result->outputs = launch.TakeOutputs();
    } else {
      result->outputs = launch.outputs();
      device->executor()->Enqueue(std::make_unique<KernelLaunch>(std::move(launch)));
    }
  } else if (result->run_small_now && launch.CheapToRunInline(Task::InlineRunner::kIssuer)) {
    launch.Run();
    result->outputs = launch.TakeOutputs();
    result->ran_now = true;
  } else {
    result->outputs = launch.outputs();
    result->inline_task = std::make_unique<KernelLaunch>(std::move(launch));
  }
}

// Note [Dispatch cache]: a call whose inputs' metadata match the thread's
// last call of the op launches with what the stages decided then. False
// when there is no such entry.
bool ExecuteCached(const OpDef& op, TensorHandle* const* inputs, int num_inputs, const AttrList& attrs,
                   const DType* bindings, uint32_t donated_mask, ExecuteResult* result) {
  const DispatchEntry* e = FindDispatchEntry(op, inputs, num_inputs, attrs);
  if (e == nullptr) return false;
  if (bindings != nullptr && !std::equal(bindings, bindings + op.type_vars.size(), e->bindings.begin())) return false;
  CountDispatchHit(*e);
  std::vector<RefPtr<TensorHandle>> outputs;
  outputs.reserve(e->num_outputs);
  for (int i = 0; i < e->num_outputs; ++i) {
    outputs.push_back(TensorHandle::CreatePending(e->output_dtypes[i], e->output_shapes[i], e->device));
  }
  if (e->shape_value_outputs) MarkShapeValues(outputs);
  // Note [Borrowed launches]: the caller holds the inputs and `attrs` for
  // the whole call, and `e` its kernel while the launch may borrow it
  // (Note [Borrowed kernels]).
  Device* device = e->device;
  DispatchEntryInUse in_use(e);
  KernelLaunch launch(op, device, e->kernel, attrs, inputs, num_inputs, donated_mask, std::move(outputs),
                      Context::Global().async());
  LaunchEager(launch, device, result);
  return true;
}

}  // namespace

Status Execute(const OpDef& op, TensorHandle* const* inputs, int num_inputs, const AttrList& attrs,
               const DType* bindings, uint32_t donated_mask, ExecuteResult* result,
               const int* list_sizes, Device* resource_device) {
  if (list_sizes == nullptr && resource_device == nullptr && CurrentOpCallInterceptor() == nullptr &&
      !AnyOpCallObservers() && ExecuteCached(op, inputs, num_inputs, attrs, bindings, donated_mask, result)) {
    return Status::OK();
  }
  OpCall call;  // Note [Op-call record]
  call.op = &op;
  call.attrs = &attrs;
  call.donated_mask = donated_mask;
  Status s = InputLayout(op, num_inputs, list_sizes, &call.arg_starts);
  if (s.ok()) s = CheckAttrs(op, attrs);
  if (!s.ok()) return Prefixed(op, s);
  const int* arg_starts = call.arg_starts_or_null();

  if (bindings == nullptr) {
    s = BindFromInputs(op, inputs, num_inputs, arg_starts, attrs, call.bindings.data());
    if (!s.ok()) return Prefixed(op, s);
  } else {
    std::copy_n(bindings, op.type_vars.size(), call.bindings.begin());
  }

  call.inputs.reserve(num_inputs);
  EMBER_RETURN_IF_ERROR(CastInputs(op, inputs, num_inputs, arg_starts, call.bindings.data(), &call.inputs));

  s = InferShapes(op, call.inputs, arg_starts, attrs, &call.output_shapes,
                  op.has_any_dtype_output() ? &call.any_dtypes : nullptr, &call.plan);
  if (s.ok()) s = CheckOutputShapes(call);
  if (!s.ok()) return Prefixed(op, s);

  const uint64_t type_key = PackTypeKey(call.bindings.data(), static_cast<int>(op.type_vars.size()));
  bool shape_value_outputs = false;
  s = PlaceOp(op, type_key, reinterpret_cast<TensorHandle* const*>(call.inputs.data()), num_inputs,
              resource_device, &call.device, &shape_value_outputs);
  if (!s.ok()) return Prefixed(op, s);
  const uint64_t kernel_generation = Context::Global().kernel_cache().generation();
  std::shared_ptr<const OpKernel> kernel =
      Context::Global().kernel_cache().Lookup(op, call.device, type_key, call.bindings.data(), attrs, &s);
  if (kernel == nullptr) return Prefixed(op, s);

  // While @ember.function traces, the call becomes a graph node instead of
  // a kernel launch (Note [Tracing]).
  if (OpCallInterceptor* interceptor = CurrentOpCallInterceptor()) {
    s = interceptor->Intercept(call, &result->outputs);
    if (s.ok() && shape_value_outputs) MarkShapeValues(result->outputs);
    if (s.ok() && AnyOpCallObservers()) NotifyOpCallObservers(call, result->outputs);
    return s;
  }

  // An eager handle's shape is fixed when it is created; only graph values
  // may have dims known just at run time (a while_loop shape invariant).
  for (size_t i = 0; i < call.output_shapes.size(); ++i) {
    if (!call.output_shapes[i].IsFullyKnown()) {
      return Prefixed(op, Unimplemented("output " + std::to_string(i) + " has shape " +
                                        call.output_shapes[i].ToString() +
                                        ", known only at run time; a function may not return such a value yet"));
    }
  }

  s = CopyInputs(op, call.device, &call.inputs);
  if (!s.ok()) return Prefixed(op, s);
  if (list_sizes == nullptr && resource_device == nullptr && MayCacheDispatch(call, inputs, num_inputs)) {
    StoreDispatchEntry(call, inputs, num_inputs, kernel, kernel_generation, shape_value_outputs);
  }

  result->outputs.clear();
  result->outputs.reserve(call.output_shapes.size());
  for (size_t i = 0; i < call.output_shapes.size(); ++i) {
    result->outputs.push_back(
        TensorHandle::CreatePending(call.output_dtype(i), std::move(call.output_shapes[i]), call.device));
  }

  if (shape_value_outputs) MarkShapeValues(result->outputs);

  // The gradient tape records here, before the launch takes the record
  // over (Note [Gradient tape]).
  if (AnyOpCallObservers()) NotifyOpCallObservers(call, result->outputs);

  Device* device = call.device;
  KernelLaunch launch(std::move(call), std::move(kernel), std::move(result->outputs), Context::Global().async());
  LaunchEager(launch, device, result);
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
