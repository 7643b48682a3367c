// This file implements GraphFunction.
#include "graph/graph_function.h"

namespace ember {

Status GraphFunction::GetExecutor(const GraphExecutor** out) const {
  std::call_once(once_, [this] { init_status_ = GraphExecutor::Create(graph_, &executor_); });
  *out = executor_.get();
  return init_status_;
}

}  // namespace ember
