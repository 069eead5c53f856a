// A large buffer about to be written whole (the 89 MB of a saved 200,000-node
// model) is faulted in page by page as it is written: on a fresh process
// that was a third of the save, more than writing the bytes
// (benchmarks/tagging_scale.cpp). Asking the kernel to populate the pages
// in one call costs about half (measured on an 89 MB buffer: 0.12-0.14 s
// faulted, 0.07-0.08 s populated). Linux 5.14+; elsewhere, or when the
// kernel refuses, the pages are faulted in as before.
#pragma once
#include <cstddef>

namespace mx {

// Populates the whole pages of [data, data + size) for writing; only for
// buffers of several megabytes (a syscall is not worth less). Never fails.
void prefault_for_writing(void* data, size_t size);

}  // namespace mx
