// This file declares the print sink: where the print op's text goes. The
// Python module installs one that writes to sys.stdout / sys.stderr, so
// notebooks show what graphs print.
#pragma once

#include <functional>
#include <string>

namespace ember {

using PrintSink = std::function<void(const std::string& text, bool to_stderr)>;

// Replaces the sink (the default writes to the process's stdout / stderr).
void SetPrintSink(PrintSink sink);
// Called by print kernels, from any thread.
void WritePrinted(const std::string& text, bool to_stderr);

}  // namespace ember
