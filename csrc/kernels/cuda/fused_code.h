// This file declares CompileFusedCode, which turns a fused element-wise
// program into the GPU kernel's form (Note [GPU fused programs] in
// fused_body.h).
#pragma once

#include "kernels/cuda/fused_body.h"
#include "ops/fused_program.h"

namespace ember::cuda {

// Assigns each instruction a slot, reusing the slot of a value once its
// last reader has read it. False if the program does not fit the kernel's
// limits (instructions, slots, arguments, outputs): it then runs one
// instruction at a time.
bool CompileFusedCode(const FusedProgram& program, FusedCode* code);

// The program's instruction k alone, reading arguments 0 and 1 (its
// operands, passed by the caller) and writing output 0.
FusedCode SingleInstructionCode(const FusedInstruction& instruction);

}  // namespace ember::cuda
