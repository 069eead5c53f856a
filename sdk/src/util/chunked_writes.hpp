// Appending to a staged file in chunks that go around the page cache.
//
// A file written through the page cache first has every page of it
// allocated and copied by the kernel. On a virtual machine whose free
// memory is handed back to the host (virtio-balloon free page reporting)
// those pages are fresh for the host too, and that copy costs several times
// the writing (docs/performance.md: the largest part of the CLI's `tag`
// beyond the library's work). Full chunks are therefore written with
// O_DIRECT, the device reading them from this one reused buffer, where the
// file system accepts it, and through the page cache where it does not. A
// file smaller than a chunk is written as before, at the end; the last
// partial chunk goes through the page cache (O_DIRECT takes whole blocks).
// The bytes, the staging and the fsync are unchanged; what changes is that
// the file is not left in the page cache (a later read comes from disk).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace mx {

// write(2) until all of `data` is written (EINTR retried); MX_ERR_IO naming
// `target` otherwise.
void write_fully(int fd, std::string_view data, const std::string& target);

class ChunkedWrites {
 public:
  ChunkedWrites() = default;
  ~ChunkedWrites();
  ChunkedWrites(const ChunkedWrites&) = delete;
  ChunkedWrites& operator=(const ChunkedWrites&) = delete;

  // Appends `data` to the file `fd` (opened for writing, its offset at the
  // end of what was appended so far); full chunks are written at once.
  void append(int fd, std::string_view data, const std::string& target);
  // Writes what is pending and leaves the file as it was opened (no
  // O_DIRECT): before an fsync, or before the file is written otherwise.
  void flush(int fd, const std::string& target);
  // Bytes appended but not yet written.
  size_t pending() const { return pending_; }

 private:
  void write_chunk(int fd, const std::string& target);
  bool direct_off(int fd);

  char* chunk_ = nullptr;  // kChunk bytes, page-aligned (O_DIRECT's rule)
  size_t pending_ = 0;
  enum class Direct { untried, on, off } direct_ = Direct::untried;
};

}  // namespace mx
