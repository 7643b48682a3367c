// This file implements FusedProgram (Note [Element-wise fusion]): the op
// table, the text form, and fused_elementwise's shape function.
#include "ops/fused_program.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/shape.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember {
namespace {

using P = FusedParam;

// Costs follow the functors' kCycles (kernels/cpu/functors.h).
constexpr FusedOpInfo kFusedOps[] = {
    {"negative", FusedOp::kNegative, 1, P::kNone, 1},
    {"abs", FusedOp::kAbs, 1, P::kNone, 1},
    {"relu", FusedOp::kRelu, 1, P::kNone, 1},
    {"exp", FusedOp::kExp, 1, P::kNone, 20},
    {"log", FusedOp::kLog, 1, P::kNone, 20},
    {"sqrt", FusedOp::kSqrt, 1, P::kNone, 5},
    {"tanh", FusedOp::kTanh, 1, P::kNone, 20},
    {"sigmoid", FusedOp::kSigmoid, 1, P::kNone, 20},
    {"sign", FusedOp::kSign, 1, P::kNone, 2},
    {"square", FusedOp::kSquare, 1, P::kNone, 1},
    {"reciprocal", FusedOp::kReciprocal, 1, P::kNone, 4},
    {"rsqrt", FusedOp::kRsqrt, 1, P::kNone, 6},
    {"floor", FusedOp::kFloor, 1, P::kNone, 1},
    {"ceil", FusedOp::kCeil, 1, P::kNone, 1},
    {"round", FusedOp::kRound, 1, P::kNone, 1},
    {"expm1", FusedOp::kExpm1, 1, P::kNone, 20},
    {"log1p", FusedOp::kLog1p, 1, P::kNone, 20},
    {"sin", FusedOp::kSin, 1, P::kNone, 20},
    {"cos", FusedOp::kCos, 1, P::kNone, 20},
    {"erf", FusedOp::kErf, 1, P::kNone, 20},
    {"softplus", FusedOp::kSoftplus, 1, P::kNone, 40},
    {"relu6", FusedOp::kRelu6, 1, P::kNone, 1},
    {"leaky_relu", FusedOp::kLeakyRelu, 1, P::kFloat, 1},
    {"elu", FusedOp::kElu, 1, P::kNone, 20},
    {"selu", FusedOp::kSelu, 1, P::kNone, 20},
    {"gelu", FusedOp::kGelu, 1, P::kBool, 30},
    {"silu", FusedOp::kSilu, 1, P::kFloat, 20},
    {"add", FusedOp::kAdd, 2, P::kNone, 1},
    {"subtract", FusedOp::kSubtract, 2, P::kNone, 1},
    {"multiply", FusedOp::kMultiply, 2, P::kNone, 1},
    {"divide", FusedOp::kDivide, 2, P::kNone, 4},
    {"maximum", FusedOp::kMaximum, 2, P::kNone, 1},
    {"minimum", FusedOp::kMinimum, 2, P::kNone, 1},
    {"squared_difference", FusedOp::kSquaredDifference, 2, P::kNone, 2},
    {"pow", FusedOp::kPow, 2, P::kNone, 40},
    {"relu_grad", FusedOp::kReluGrad, 2, P::kNone, 1},
};

Status ProgramError(const std::string& text, const std::string& problem) {
  return InvalidArgument("program \"" + text + "\": " + problem);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// An operand: "aI" (argument I) or "vK" (instruction K, K < num_defined).
bool ParseOperand(std::string_view s, int num_defined, int* out) {
  s = Trim(s);
  if (s.size() < 2 || s.size() > 9 || (s[0] != 'a' && s[0] != 'v')) return false;
  int v = 0;
  for (char c : s.substr(1)) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (s[0] == 'v' && v >= num_defined) return false;
  *out = s[0] == 'a' ? FusedArg(v) : v;
  return true;
}

// One instruction, "name(a0, v1)" or "name[param](v0)", after
// `num_defined` others.
Status ParseInstruction(const std::string& text, std::string_view s, int num_defined, FusedInstruction* out) {
  s = Trim(s);
  const size_t open = s.find('(');
  if (open == std::string_view::npos || s.back() != ')') {
    return ProgramError(text, "expected op(operands), got \"" + std::string(s) + "\"");
  }
  std::string_view name = s.substr(0, open);
  std::string_view param;
  if (const size_t bracket = name.find('['); bracket != std::string_view::npos) {
    if (name.back() != ']') return ProgramError(text, "unclosed [ in \"" + std::string(s) + "\"");
    param = name.substr(bracket + 1, name.size() - bracket - 2);
    name = name.substr(0, bracket);
  }
  const FusedOpInfo* info = FindFusedOp(name);
  if (info == nullptr) return ProgramError(text, "\"" + std::string(name) + "\" is not a fusible op");
  out->op = info->op;
  if ((info->param == P::kNone) != param.empty()) {
    return ProgramError(text, std::string(info->name) +
                                  (param.empty() ? " needs its [attribute]" : " takes no [attribute]"));
  }
  if (info->param == P::kBool) {
    if (param != "0" && param != "1") return ProgramError(text, "gelu's [approximate] is 0 or 1");
    out->param = param == "1" ? 1 : 0;
  } else if (info->param == P::kFloat) {
    const std::string p(param);
    char* end = nullptr;
    errno = 0;
    out->param = std::strtod(p.c_str(), &end);
    if (end != p.c_str() + p.size() || errno == ERANGE) {
      return ProgramError(text, "\"" + p + "\" is not a number");
    }
  }
  const std::string_view operands = s.substr(open + 1, s.size() - open - 2);
  const size_t comma = operands.find(',');
  const int given = comma == std::string_view::npos ? 1 : 2;
  if (given != info->arity) {
    return ProgramError(text, std::string(info->name) + " takes " + std::to_string(info->arity) + " operand(s)");
  }
  const bool ok = given == 1 ? ParseOperand(operands, num_defined, &out->a)
                             : ParseOperand(operands.substr(0, comma), num_defined, &out->a) &&
                                   ParseOperand(operands.substr(comma + 1), num_defined, &out->b);
  if (!ok) {
    return ProgramError(text, "operands \"" + std::string(operands) +
                                  "\" must be arguments aI or earlier values vK (K < " + std::to_string(num_defined) +
                                  ")");
  }
  return Status::OK();
}

std::string OperandText(int operand) {
  return IsFusedArg(operand) ? "a" + std::to_string(FusedArgIndex(operand)) : "v" + std::to_string(operand);
}

}  // namespace

const FusedOpInfo* FindFusedOp(std::string_view name) {
  if (name == "truediv") name = "divide";
  for (const FusedOpInfo& info : kFusedOps) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

const FusedOpInfo& FusedOpInfoOf(FusedOp op) { return kFusedOps[static_cast<int>(op)]; }

double FusedProgram::CyclesPerElement() const {
  double cycles = 0;
  for (const FusedInstruction& in : code) cycles += FusedOpInfoOf(in.op).cycles;
  return cycles;
}

std::string FusedProgram::ToText() const {
  std::string text;
  char number[32];
  for (const FusedInstruction& in : code) {
    const FusedOpInfo& info = FusedOpInfoOf(in.op);
    if (!text.empty()) text += "; ";
    text += info.name;
    if (info.param == P::kFloat) {
      std::snprintf(number, sizeof(number), "%.17g", in.param);
      text += std::string("[") + number + "]";
    } else if (info.param == P::kBool) {
      text += in.param != 0 ? "[1]" : "[0]";
    }
    text += "(" + OperandText(in.a);
    if (info.arity == 2) text += ", " + OperandText(in.b);
    text += ")";
  }
  return text;
}

Status FusedProgram::Parse(const std::string& text, const std::vector<int64_t>& outputs, FusedProgram* out) {
  static_assert(sizeof(kFusedOps) / sizeof(kFusedOps[0]) == static_cast<int>(FusedOp::kReluGrad) + 1);
  FusedProgram p;
  std::string_view rest(text);
  while (!Trim(rest).empty()) {
    const size_t semi = rest.find(';');
    FusedInstruction in;
    EMBER_RETURN_IF_ERROR(ParseInstruction(text, rest.substr(0, semi), static_cast<int>(p.code.size()), &in));
    for (int operand : {in.a, FusedOpInfoOf(in.op).arity == 2 ? in.b : in.a}) {
      if (IsFusedArg(operand)) p.num_args = std::max(p.num_args, FusedArgIndex(operand) + 1);
    }
    p.code.push_back(in);
    rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
  }
  if (p.code.empty()) return ProgramError(text, "has no instructions");
  if (outputs.empty()) return InvalidArgument("outputs must not be empty");
  for (int64_t k : outputs) {
    if (k < 0 || k >= static_cast<int64_t>(p.code.size())) {
      return InvalidArgument("outputs: " + std::to_string(k) + " is not an instruction number in [0, " +
                             std::to_string(p.code.size()) + ")");
    }
    p.outputs.push_back(static_cast<int>(k));
  }
  *out = std::move(p);
  return Status::OK();
}

bool IsChannelVector(const Shape& arg, const Shape& out) {
  const int rank = out.rank();
  if (rank < 2 || arg.rank() < 1 || arg.rank() > rank || !arg.IsFullyKnown()) return false;
  const int64_t channels = out.dim(rank - 1);
  if (channels <= 1 || arg.dim(arg.rank() - 1) != channels) return false;
  for (int d = 0; d + 1 < arg.rank(); ++d) {
    if (arg.dim(d) != 1) return false;
  }
  return true;
}

namespace shape_fns {

// Every output has the arguments' broadcast shape; each argument must have
// that shape, one element, or be a channel vector of it (the kernels read
// nothing else).
Status FusedElementwise(ShapeContext& ctx) {
  const int n = ctx.num_inputs();
  FusedProgram program;
  EMBER_RETURN_IF_ERROR(FusedProgram::Parse(ctx.attr(0).as_string(), ctx.attr(1).as_int_list(), &program));
  if (n == 0) return InvalidArgument("args must not be empty");
  if (program.num_args > n) {
    return InvalidArgument("program reads a" + std::to_string(program.num_args - 1) + " but there are " +
                           std::to_string(n) + " args");
  }
  Shape out = ctx.input_shape(0);
  for (int i = 1; i < n; ++i) {
    Shape next;
    if (!BroadcastShapes(out, ctx.input_shape(i), &next).ok()) {
      return InvalidArgument("args[" + std::to_string(i) + "] has shape " + ctx.input_shape(i).ToString() +
                             ", which does not broadcast with " + out.ToString());
    }
    out = std::move(next);
  }
  for (int i = 0; i < n; ++i) {
    const Shape& s = ctx.input_shape(i);
    const bool one = s.IsFullyKnown() && s.NumElements() == 1;
    if (!one && s != out && !IsChannelVector(s, out)) {
      return InvalidArgument("args[" + std::to_string(i) + "] has shape " + s.ToString() +
                             "; each argument must have the output shape " + out.ToString() +
                             ", exactly one element, or only its last dim");
    }
  }
  ctx.set_num_outputs(static_cast<int>(program.outputs.size()));
  for (size_t i = 0; i < program.outputs.size(); ++i) ctx.set_output_shape(static_cast<int>(i), out);
  return Status::OK();
}

}  // namespace shape_fns
}  // namespace ember
