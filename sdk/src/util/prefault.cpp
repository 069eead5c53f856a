#include "util/prefault.hpp"

#include <cstdint>

#include <sys/mman.h>
#include <unistd.h>

namespace mx {

void prefault_for_writing(void* data, size_t size) {
#ifdef MADV_POPULATE_WRITE
  constexpr size_t kWorthIt = size_t{8} << 20;
  if (size < kWorthIt) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + size) & ~(page - 1);
  if (end <= begin) return;
  // The result is not needed: on failure (an older kernel: EINVAL) the
  // pages are simply faulted in by the writes.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)size;
#endif
}

}  // namespace mx
