// This file implements the print sink.
#include "runtime/print_sink.h"

#include <cstdio>
#include <mutex>

namespace ember {
namespace {

std::mutex g_mu;
PrintSink& Sink() {
  static PrintSink* sink = new PrintSink();  // leaked: kernels may print during shutdown
  return *sink;
}

}  // namespace

void SetPrintSink(PrintSink sink) {
  std::lock_guard<std::mutex> lock(g_mu);
  Sink() = std::move(sink);
}

void WritePrinted(const std::string& text, bool to_stderr) {
  PrintSink sink;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    sink = Sink();
  }
  if (sink) {
    sink(text, to_stderr);
    return;
  }
  std::FILE* stream = to_stderr ? stderr : stdout;
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

}  // namespace ember
