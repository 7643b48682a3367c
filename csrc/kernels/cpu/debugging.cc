// This file implements the CPU kernels of the debugging ops (check_numerics,
// print).
#include <cmath>
#include <complex>
#include <sstream>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16
#include "ops/attrs/debugging.gen.h"
#include "kernels/cpu/registration.h"
#include "ops/op_kernel.h"
#include "runtime/print_sink.h"

namespace ember {
namespace {

template <typename T>
class CheckNumericsKernel final : public OpKernel {
 public:
  explicit CheckNumericsKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const T* x = in.data<T>();
    const int64_t n = in.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(x[i]);  // exact for every floating type
      if (!std::isfinite(v)) {
        return InvalidArgument(attrs_.message + " : Tensor had " + (std::isnan(v) ? "NaN" : "Inf") +
                               " values (first at flat index " + std::to_string(i) + ")");
      }
    }
    ctx.set_output(0, in);
    return Status::OK();
  }

 private:
  CheckNumericsAttrs attrs_;
};

// Writes element `i` of `t` the way NumPy prints it.
void WriteElement(std::ostringstream& out, const Tensor& t, int64_t i) {
  DispatchDType(t.dtype(), [&]<typename T>() {
    const T v = t.data<T>()[i];
    if constexpr (std::is_same_v<T, bool>) {
      out << (v ? "True" : "False");
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      out << "(" << v.real() << (v.imag() < 0 ? "" : "+") << v.imag() << "j)";
    } else if constexpr (std::is_integral_v<T>) {
      out << static_cast<int64_t>(v);
    } else {
      out << static_cast<double>(v);
    }
  });
}

// NumPy-style nested brackets; with summarize >= 0, a dimension longer than
// 2 * summarize shows its first and last `summarize` entries around "...".
void WriteTensor(std::ostringstream& out, const Tensor& t, int dim, int64_t offset, int64_t summarize) {
  if (t.rank() == 0) return WriteElement(out, t, 0);
  const int64_t n = t.dim(dim);
  int64_t stride = 1;
  for (int d = dim + 1; d < t.rank(); ++d) stride *= t.dim(d);
  const bool last = dim == t.rank() - 1;
  const std::string sep = last ? " " : "\n" + std::string(dim + 1, ' ');
  out << "[";
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out << sep;
    if (summarize >= 0 && n > 2 * summarize && i == summarize) {
      out << "...";
      // summarize == 0 shows no entries at all: skipping to n - 0 = n
      // must not print element n, one past the end.
      if (summarize == 0) break;
      out << sep;
      i = n - summarize;
    }
    if (last) {
      WriteElement(out, t, offset + i);
    } else {
      WriteTensor(out, t, dim + 1, offset + i * stride, summarize);
    }
  }
  out << "]";
}

// Each "{}" of the format takes the next input; the outputs are the inputs.
class PrintKernel final : public OpKernel {
 public:
  explicit PrintKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    std::ostringstream out;
    const std::string& tmpl = attrs_.format;
    int next = 0;
    for (size_t pos = 0; pos < tmpl.size(); ++pos) {
      if (tmpl.compare(pos, 2, "{}") == 0) {
        if (next >= ctx.num_inputs()) return InvalidArgument("format has more {} than inputs");
        WriteTensor(out, ctx.input(next++), 0, 0, attrs_.summarize);
        ++pos;
      } else {
        out << tmpl[pos];
      }
    }
    if (next != ctx.num_inputs()) return InvalidArgument("format has fewer {} than inputs");
    WritePrinted(out.str(), attrs_.output_stream != "stdout");
    for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
    return Status::OK();
  }

 private:
  PrintAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCpuDebuggingKernels(KernelRegistry& registry) {
  registry.Register("print", kCpuDeviceType, {}, &MakeKernel<PrintKernel>);
  cpu::RegisterForTypeSet<CheckNumericsKernel>(registry, "check_numerics", type_sets::Floating{});
}

}  // namespace ember
