// Tests the graph IR, its text form, each optimization pass on small
// graphs, and the dataflow executor (deep, wide, concurrent, failing).
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "devices/cpu/cpu_device.h"
#include "graph/executor.h"
#include "graph/passes/passes.h"
#include "graph/tracer.h"
#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/execute.h"

namespace ember {
namespace {

RefPtr<TensorHandle> Filled(Shape shape, float value) {
  const int64_t n = shape.NumElements();
  RefPtr<Buffer> b = Buffer::Allocate(HostAllocator(), n * sizeof(float));
  std::fill(static_cast<float*>(b->data()), static_cast<float*>(b->data()) + n, value);
  return TensorHandle::CreateReady(Tensor(DType::kFloat32, std::move(shape), std::move(b)),
                                   DeviceManager::Global().cpu());
}

// Records ops into a graph through Execute, as tracing from Python does.
class GraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InitCpuDevice();
    Context::Global().set_async(false);
  }

  RefPtr<TensorHandle> Param(Shape shape) {
    return tracer_.AddParameter(DType::kFloat32, std::move(shape), DeviceManager::Global().cpu());
  }
  RefPtr<TensorHandle> Op(OpId op, std::vector<TensorHandle*> in, AttrList attrs = {}) {
    TracerScope scope(&tracer_);
    std::vector<RefPtr<TensorHandle>> out;
    Status s = ExecuteAndRun(GetOpDef(op), in.data(), static_cast<int>(in.size()), attrs, &out);
    EXPECT_TRUE(s.ok()) << s.message();
    return out.empty() ? RefPtr<TensorHandle>() : out[0];
  }
  FunctionBody Finish(std::vector<TensorHandle*> outputs) {
    tracer_.SetOutputs(outputs);
    return FunctionBody{tracer_.graph(), tracer_.arg_captures()};
  }
  int CountOps(const Graph& g, OpId op) {
    int n = 0;
    for (const Node& node : g.nodes()) n += !node.is_arg() && node.op->id == op;
    return n;
  }
  std::vector<float> Run(const Graph& g, std::vector<RefPtr<TensorHandle>> args) {
    std::unique_ptr<GraphExecutor> ex;
    Status s = GraphExecutor::Create(g, &ex);
    EXPECT_TRUE(s.ok()) << s.message();
    std::vector<Tensor> in, out;
    for (auto& a : args) in.push_back(a->tensor());
    s = ex->Run(in, &out);
    EXPECT_TRUE(s.ok()) << s.message();
    const float* d = out[0].data<float>();
    return std::vector<float>(d, d + out[0].NumElements());
  }

  Tracer tracer_;
};

TEST_F(GraphTest, TracedOpsAreNodesWithShapesAndSymbolicOutputs) {
  auto x = Param(Shape({Shape::kUnknownDim, 3}));
  auto y = Op(OpId::kAdd, {x.get(), x.get()});
  EXPECT_TRUE(y->is_symbolic());
  EXPECT_EQ(y->shape(), Shape({Shape::kUnknownDim, 3}));
  EXPECT_FALSE(y->Await().ok());  // symbolic: no value
  FunctionBody body = Finish({y.get()});
  EXPECT_EQ(body.graph.num_nodes(), 2);
  EXPECT_NE(body.graph.Pretty().find("%1 = add(%0, %0) : float32[?, 3] @cpu:0"), std::string::npos)
      << body.graph.Pretty();
}

TEST_F(GraphTest, TextFormRoundTrips) {
  auto x = Param(Shape({2, 3}));
  auto c = Filled(Shape({3}), 0.5f);  // captured
  auto y = Op(OpId::kMultiply, {x.get(), c.get()});
  auto z = Op(OpId::kTranspose, {y.get()}, {AttrValue(std::vector<int64_t>{1, 0})});
  FunctionBody body = Finish({z.get()});
  const std::string text = body.graph.ToText();
  Graph back;
  ASSERT_TRUE(Graph::FromText(text, &back).ok());
  EXPECT_EQ(back.ToText(), text);
  EXPECT_EQ(back.num_args(), 2);
  Graph bad;
  EXPECT_FALSE(Graph::FromText("ember.graph 1\nnode 0 no_such_op - - - - - float32[] % %\nreturn 0:0\n", &bad).ok());
}

TEST_F(GraphTest, DeadCodeIsRemoved) {
  auto x = Param(Shape({4}));
  auto used = Op(OpId::kExp, {x.get()});
  Op(OpId::kLog, {x.get()});
  FunctionBody body = Finish({used.get()});
  ASSERT_TRUE(EliminateDeadCode(body).ok());
  EXPECT_EQ(CountOps(body.graph, OpId::kLog), 0);
  EXPECT_EQ(CountOps(body.graph, OpId::kExp), 1);
}

TEST_F(GraphTest, CommonSubexpressionsMerge) {
  auto x = Param(Shape({4}));
  auto a = Op(OpId::kExp, {x.get()});
  auto b = Op(OpId::kExp, {x.get()});
  auto s = Op(OpId::kAdd, {a.get(), b.get()});
  auto t = Op(OpId::kAdd, {b.get(), a.get()});  // different order: a different call
  auto u = Op(OpId::kMultiply, {s.get(), t.get()});
  FunctionBody body = Finish({u.get()});
  ASSERT_TRUE(EliminateCommonSubexpressions(body).ok());
  EXPECT_EQ(CountOps(body.graph, OpId::kExp), 1);
  EXPECT_EQ(CountOps(body.graph, OpId::kAdd), 1);  // both adds now read (exp, exp)
  auto arg = Filled(Shape({4}), 0.0f);
  EXPECT_EQ(Run(body.graph, {arg}), std::vector<float>(4, 4.0f));  // (1 + 1) * (1 + 1)
}

TEST_F(GraphTest, ArithmeticIdentitiesAreRemovedOnlyWhenShapeIsKept) {
  auto x = Param(Shape({2, 3}));
  auto ones = Filled(Shape({3}), 1.0f);
  auto zero = Filled(Shape({}), 0.0f);
  auto big_ones = Filled(Shape({4, 2, 3}), 1.0f);
  auto a = Op(OpId::kMultiply, {x.get(), ones.get()});            // x
  auto b = Op(OpId::kAdd, {zero.get(), a.get()});                 // x
  auto t = Op(OpId::kTranspose, {Op(OpId::kTranspose, {b.get()}, {AttrValue()}).get()}, {AttrValue()});  // x
  auto widened = Op(OpId::kMultiply, {t.get(), big_ones.get()});  // broadcasts: stays
  FunctionBody body = Finish({widened.get()});
  ASSERT_TRUE(SimplifyArithmetic(body).ok());
  ASSERT_TRUE(EliminateDeadCode(body).ok());
  EXPECT_EQ(CountOps(body.graph, OpId::kTranspose), 0);
  EXPECT_EQ(CountOps(body.graph, OpId::kAdd), 0);
  EXPECT_EQ(CountOps(body.graph, OpId::kMultiply), 1);
  EXPECT_EQ(body.graph.info(body.graph.outputs()[0]).shape, Shape({4, 2, 3}));
}

TEST_F(GraphTest, ConstantsFoldWithTheCpuKernels) {
  auto x = Param(Shape({3}));
  auto c = Filled(Shape({3}), 2.0f);
  auto c2 = Op(OpId::kMultiply, {c.get(), c.get()});  // 4: foldable
  auto y = Op(OpId::kAdd, {x.get(), c2.get()});
  FunctionBody body = Finish({y.get()});
  ASSERT_TRUE(OptimizeGraph(body).ok());
  EXPECT_EQ(CountOps(body.graph, OpId::kMultiply), 0);
  EXPECT_EQ(CountOps(body.graph, OpId::kAdd), 1);
  ASSERT_EQ(static_cast<int>(body.constants.size()), body.graph.num_args());
  std::vector<RefPtr<TensorHandle>> args;
  for (int i = 0; i < body.graph.num_args(); ++i) {
    args.push_back(i == 0 ? Filled(Shape({3}), 1.0f) : body.constants[i]);
  }
  EXPECT_EQ(Run(body.graph, args), std::vector<float>(3, 5.0f));
}

TEST_F(GraphTest, ExecutorRunsDeepChainsAndWideGraphs) {
  auto x = Param(Shape({64}));
  auto one = Filled(Shape({}), 1.0f);
  RefPtr<TensorHandle> deep = x;
  for (int i = 0; i < 3000; ++i) deep = Op(OpId::kAdd, {deep.get(), one.get()});
  std::vector<RefPtr<TensorHandle>> level;
  for (int i = 0; i < 512; ++i) level.push_back(Op(OpId::kExp, {x.get()}));  // independent branches
  while (level.size() > 1) {
    std::vector<RefPtr<TensorHandle>> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(Op(OpId::kAdd, {level[i].get(), level[i + 1].get()}));
    level = next;
  }
  auto out = Op(OpId::kAdd, {deep.get(), level[0].get()});
  FunctionBody body = Finish({out.get()});
  std::unique_ptr<GraphExecutor> ex;
  ASSERT_TRUE(GraphExecutor::Create(body.graph, &ex).ok());
  std::vector<Tensor> args;
  for (int i = 0; i < body.graph.num_args(); ++i) {
    args.push_back(i == 0 ? Filled(Shape({64}), 0.0f)->tensor() : body.constants[i]->tensor());
  }
  // Several threads call the same executor at once.
  std::vector<std::thread> threads;
  std::vector<float> first(4, 0.0f);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Tensor> results;
      Status s = ex->Run(args, &results);
      ASSERT_TRUE(s.ok()) << s.message();
      first[t] = results[0].data<float>()[0];
    });
  }
  for (auto& th : threads) th.join();
  for (float v : first) EXPECT_FLOAT_EQ(v, 3000.0f + 512.0f);
}

TEST_F(GraphTest, KernelErrorNamesTheNodeAndStopsTheCall) {
  tracer_.set_location("model.py:7");
  auto x = Param(Shape({2}));
  auto y = Op(OpId::kLog, {x.get()});
  auto z = Op(OpId::kCheckNumerics, {y.get()}, {AttrValue(std::string("after log"))});
  FunctionBody body = Finish({z.get()});
  std::unique_ptr<GraphExecutor> ex;
  ASSERT_TRUE(GraphExecutor::Create(body.graph, &ex).ok());
  std::vector<Tensor> out;
  Status s = ex->Run({Filled(Shape({2}), -1.0f)->tensor()}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("check_numerics (traced at model.py:7): after log", 0), 0u) << s.message();
  EXPECT_TRUE(ex->Run({Filled(Shape({2}), 1.0f)->tensor()}, &out).ok());  // still usable
}

TEST_F(GraphTest, PartitionsJoinDevicesWithTransfers) {
  // A second logical CPU device, as EMBER_NUM_CPU_DEVICES=2 would add.
  Device* cpu1 = nullptr;
  if (!DeviceManager::Global().Find("cpu:1", &cpu1).ok()) {
    const auto& cpu0 = static_cast<const CpuDevice&>(*DeviceManager::Global().cpu());
    DeviceManager::Global().Add(std::make_unique<CpuDevice>(1, cpu0));
    ASSERT_TRUE(DeviceManager::Global().Find("cpu:1", &cpu1).ok());
  }
  auto x = Param(Shape({3}));
  PushDeviceScope(cpu1);
  auto y = Op(OpId::kExp, {x.get()});      // cpu:1 reads x from cpu:0
  auto y2 = Op(OpId::kSquare, {x.get()});  // shares that transfer
  PopDeviceScope();
  auto z = Op(OpId::kAdd, {y.get(), y2.get()});  // placed with its input: cpu:1
  PushDeviceScope(DeviceManager::Global().cpu());
  auto w = Op(OpId::kMultiply, {z.get(), x.get()});  // cpu:0 reads z from cpu:1
  PopDeviceScope();
  FunctionBody body = Finish({w.get()});
  ASSERT_TRUE(InsertTransfers(body).ok());
  EXPECT_EQ(CountOps(body.graph, OpId::kTransfer), 2);
  const std::vector<DevicePartition> parts = PartitionByDevice(body.graph);
  ASSERT_EQ(parts.size(), 2u);
  for (const DevicePartition& p : parts) {
    for (int id : p.nodes) {
      for (const Endpoint& in : body.graph.node(id).inputs) {
        const Node& producer = body.graph.node(in.node);
        // Inside a partition every input is local, an argument, or crosses in a transfer.
        const bool transfer = body.graph.node(id).op->id == OpId::kTransfer;
        EXPECT_TRUE(producer.is_arg() || transfer || producer.device == p.device) << body.graph.Pretty();
      }
    }
  }
  std::vector<float> got = Run(body.graph, {Filled(Shape({3}), 1.0f)});
  EXPECT_FLOAT_EQ(got[0], std::exp(1.0f) + 1.0f);
}

}  // namespace
}  // namespace ember
