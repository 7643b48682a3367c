// This file holds the libFuzzer target for the shape functions: the bytes
// pick an op, input dtypes and shapes, list sizes and attrs; the op then
// goes through Execute's checks (binding, casts, shape function; no kernel
// exists here, so none runs) and through the graph path, where its computed
// outputs must validate and survive a round trip through graph text.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op_def.h"
#include "runtime/execute.h"
#include "runtime/tensor_handle.h"
#include "runtime/type_binding.h"
#include "tests/fuzz/fuzz_env.h"

namespace ember::fuzz {
namespace {

// Reads the fuzz input a byte at a time; zeros once it runs out.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  template <typename T>
  const T& Pick(const std::vector<T>& items) { return items[Next() % items.size()]; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

const std::vector<int64_t> kInts = {0, 1, 2, 3, 4, -1, -2, 5, 7, 8, 16, 100, -100, 1 << 20, int64_t{1} << 31,
                                    int64_t{1} << 40, std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min()};
const std::vector<int64_t> kDims = {0, 1, 2, 3, 4, 5, 7, 1, 2, 3, Shape::kUnknownDim, int64_t{1} << 31,
                                    int64_t{1} << 62};
const std::vector<std::string> kStrings = {"", "SAME", "VALID", "NHWC", "NCHW", "NWC", "NCW", "ij,jk->ik",
                                           "ii->i", "...i,i->...", "a", "->", "CONSTANT", "REFLECT",
                                           "SYMMETRIC", "left", "right", "ab,ab->", "i,i"};
const std::vector<double> kFloats = {0.0, 1.0, -1.0, 0.5, 1e30, -1e30, 1e-30};

Shape RandomShape(Bytes& in) {
  Shape shape;
  const int rank = in.Next() % 6;
  for (int i = 0; i < rank; ++i) shape.AddDim(in.Pick(kDims));
  return shape;
}

AttrValue RandomAttr(Bytes& in, const AttrDef& def) {
  if (def.optional && in.Next() % 4 == 0) return AttrValue();
  switch (def.type) {
    case AttrType::kBool: return AttrValue(in.Next() % 2 == 1);
    case AttrType::kInt: return AttrValue(in.Pick(kInts));
    case AttrType::kFloat: return AttrValue(in.Pick(kFloats));
    case AttrType::kString: return AttrValue(in.Pick(kStrings));
    case AttrType::kIntList: {
      std::vector<int64_t> v(in.Next() % 6);
      for (int64_t& x : v) x = in.Pick(kInts);
      return AttrValue(std::move(v));
    }
    case AttrType::kDType: return AttrValue(static_cast<DType>(in.Next() % kNumDTypes));
  }
  return AttrValue();
}

// One input per non-list argument, 0-4 per list argument; dtypes mostly
// agree within a type variable so binding succeeds often.
void RandomInputs(Bytes& in, const OpDef& op, Graph* g, std::vector<int>* list_sizes) {
  std::vector<DType> var_dtypes(op.type_vars.size());
  for (DType& d : var_dtypes) d = static_cast<DType>(in.Next() % kNumDTypes);
  for (const ArgDef& arg : op.inputs) {
    const int count = arg.is_list ? in.Next() % 5 : 1;
    if (op.has_list_input()) list_sizes->push_back(count);
    for (int i = 0; i < count; ++i) {
      DType dtype = arg.type_var >= 0 ? var_dtypes[arg.type_var] : arg.fixed_dtype;
      if (arg.type_var == kAnyDTypeVar || in.Next() % 8 == 0) dtype = static_cast<DType>(in.Next() % kNumDTypes);
      g->AddArg(ValueInfo{dtype, RandomShape(in)}, "cpu:0");
    }
  }
}

// Execute's path on pending handles with the same metadata (fully known
// shapes only: eager handles never have unknown dims).
void RunThroughExecute(const Graph& g, const Node& node) {
  Device* cpu = nullptr;
  if (!DeviceManager::Global().Find("cpu:0", &cpu).ok()) __builtin_trap();
  std::vector<RefPtr<TensorHandle>> handles;
  std::vector<TensorHandle*> raw;
  for (const Endpoint& e : node.inputs) {
    if (!g.info(e).shape.IsFullyKnown()) return;
    handles.push_back(TensorHandle::CreatePending(g.info(e).dtype, g.info(e).shape, cpu));
    raw.push_back(handles.back().get());
  }
  const int* list_sizes = node.list_sizes.empty() ? nullptr : node.list_sizes.data();
  ExecuteResult result;
  // No kernel is registered, so this ends at placement at the latest.
  Status s = Execute(*node.op, raw.data(), static_cast<int>(raw.size()), node.attrs, nullptr, 0, &result, list_sizes);
  if (s.ok()) __builtin_trap();
}

void FuzzOne(Bytes& in) {
  const std::vector<OpDef>& ops = AllOpDefs();
  const OpDef& op = ops[(in.Next() * 256 + in.Next()) % ops.size()];
  Graph g;
  Node node;
  node.op = &op;
  RandomInputs(in, op, &g, &node.list_sizes);
  for (int id = 0; id < g.num_nodes(); ++id) {
    // Only shapes a graph can hold (graph text and tracing refuse others).
    if (!CheckValueInfo(g.node(id).outputs[0]).ok()) return;
    node.inputs.push_back(Endpoint{id, 0});
  }
  for (const AttrDef& def : op.attrs) node.attrs.push_back(RandomAttr(in, def));
  std::vector<InputTypeInfo> infos;
  for (const Endpoint& e : node.inputs) infos.push_back({g.info(e).dtype, false, DTypeKind::kBool});
  std::vector<int> starts{0};
  for (int size : node.list_sizes) starts.push_back(starts.back() + size);
  if (!op.has_list_input()) starts.clear();
  bool bound = BindTypeVars(op, infos.data(), starts.empty() ? nullptr : starts.data(), node.attrs,
                            node.bindings.data()).ok();
  if (!bound || in.Next() % 16 == 0) {  // sometimes keep going with arbitrary bindings
    for (size_t v = 0; v < op.type_vars.size(); ++v) node.bindings[v] = static_cast<DType>(in.Next() % kNumDTypes);
  }
  node.device = "cpu:0";
  const int id = g.AddNode(std::move(node));
  RunThroughExecute(g, g.node(id));
  std::vector<ValueInfo> outputs;
  if (!InferNodeOutputs(g, id, &outputs).ok()) return;
  for (const ValueInfo& v : outputs) {
    for (int64_t d : v.shape) {
      if (d < Shape::kUnknownDim) __builtin_trap();  // InferNodeOutputs must have refused it
    }
  }
  g.mutable_node(id).outputs = outputs;
  for (int o = 0; o < static_cast<int>(outputs.size()); ++o) g.mutable_outputs().push_back(Endpoint{id, o});
  if (!ValidateGraph(g).ok()) __builtin_trap();  // the computed outputs are the valid ones
  const std::string text = g.ToText();
  Graph again;
  if (!Graph::FromText(text, &again).ok() || again.ToText() != text) __builtin_trap();
}

}  // namespace
}  // namespace ember::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ember::fuzz::InitFuzzEnvironment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::Bytes in(data, size);
  ember::fuzz::FuzzOne(in);
  return 0;
}
