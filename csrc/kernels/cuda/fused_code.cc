// This file implements CompileFusedCode (Note [GPU fused programs]).
#include "kernels/cuda/fused_code.h"

#include <vector>

namespace ember::cuda {

bool CompileFusedCode(const FusedProgram& program, FusedCode* code) {
  const int n = static_cast<int>(program.code.size());
  if (n > kMaxFusedCode || program.num_args > kMaxFusedArgs ||
      program.outputs.size() > static_cast<size_t>(kMaxFusedOutputs)) {
    return false;
  }
  // The last instruction that reads each value; outputs live to the end,
  // values nobody reads die where they are made.
  std::vector<int> last_use(n, -1);
  for (int k = 0; k < n; ++k) {
    const FusedInstruction& in = program.code[k];
    if (!IsFusedArg(in.a)) last_use[in.a] = k;
    if (FusedOpInfoOf(in.op).arity == 2 && !IsFusedArg(in.b)) last_use[in.b] = k;
  }
  for (int k : program.outputs) last_use[k] = n;
  for (int k = 0; k < n; ++k) {
    if (last_use[k] < 0) last_use[k] = k;
  }
  std::vector<std::vector<int>> dies_at(n + 1);
  for (int k = 0; k < n; ++k) dies_at[last_use[k]].push_back(k);

  std::vector<int> free_slots;
  int slots = 0;
  code->num_code = n;
  auto ref = [&](int operand) -> int8_t {
    return static_cast<int8_t>(IsFusedArg(operand) ? operand : code->dst[operand]);
  };
  for (int k = 0; k < n; ++k) {
    const FusedInstruction& in = program.code[k];
    const bool binary = FusedOpInfoOf(in.op).arity == 2;
    code->op[k] = static_cast<uint8_t>(in.op);
    code->a[k] = ref(in.a);
    code->b[k] = binary ? ref(in.b) : code->a[k];
    code->param[k] = in.param;
    // Operands are read before the result is written, so the slots of
    // values whose last reader is this instruction are free for it.
    for (int v : dies_at[k]) {
      if (v < k) free_slots.push_back(code->dst[v]);
    }
    int slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = slots++;
    }
    if (slot >= kMaxFusedSlots) return false;
    code->dst[k] = static_cast<int8_t>(slot);
    if (last_use[k] == k) free_slots.push_back(slot);  // nobody reads it
  }
  code->num_outputs = static_cast<int>(program.outputs.size());
  for (size_t o = 0; o < program.outputs.size(); ++o) code->output_slot[o] = code->dst[program.outputs[o]];
  return true;
}

FusedCode SingleInstructionCode(const FusedInstruction& instruction) {
  FusedCode code;
  code.num_code = 1;
  code.num_outputs = 1;
  code.op[0] = static_cast<uint8_t>(instruction.op);
  code.a[0] = static_cast<int8_t>(FusedArg(0));
  code.b[0] = static_cast<int8_t>(FusedOpInfoOf(instruction.op).arity == 2 ? FusedArg(1) : FusedArg(0));
  code.param[0] = instruction.param;
  code.dst[0] = 0;
  code.output_slot[0] = 0;
  return code;
}

}  // namespace ember::cuda
