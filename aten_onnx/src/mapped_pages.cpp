#include "mapped_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace mx::aten_onnx {

void release_mapped_pages(const WeightBytes& w, uint64_t offset, uint64_t length) {
  if (!w.file_mapped || length == 0) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(w.data + offset) & ~(page - 1);
  const auto end = reinterpret_cast<uintptr_t>(w.data + offset + length);
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace mx::aten_onnx
