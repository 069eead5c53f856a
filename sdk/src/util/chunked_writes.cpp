#include "util/chunked_writes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "util/error.hpp"

namespace mx {
namespace {

// One request of the largest size block devices commonly take whole; a
// multiple of every logical block size, so every chunk starts aligned.
constexpr size_t kChunk = size_t{4} << 20;

}  // namespace

void write_fully(int fd, std::string_view data, const std::string& target) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(MX_ERR_IO, target + ": write failed: " + std::strerror(errno));
    p += n;
    left -= static_cast<size_t>(n);
  }
}

ChunkedWrites::~ChunkedWrites() {
  if (chunk_) ::munmap(chunk_, kChunk);
}

void ChunkedWrites::append(int fd, std::string_view data, const std::string& target) {
  while (!data.empty()) {
    if (!chunk_) {
      void* memory = ::mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (memory == MAP_FAILED) throw std::bad_alloc();
      chunk_ = static_cast<char*>(memory);
    }
    const size_t n = std::min(data.size(), kChunk - pending_);
    std::memcpy(chunk_ + pending_, data.data(), n);
    pending_ += n;
    data.remove_prefix(n);
    if (pending_ == kChunk) write_chunk(fd, target);
  }
}

// Clears O_DIRECT; false if the file would not let go of it (then nothing
// more can be written safely through it).
bool ChunkedWrites::direct_off(int fd) {
  if (direct_ != Direct::on) return true;
  direct_ = Direct::off;
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) == 0;
}

void ChunkedWrites::write_chunk(int fd, const std::string& target) {
  if (direct_ == Direct::untried) {
    const int flags = ::fcntl(fd, F_GETFL);
    direct_ = flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_DIRECT) == 0 ? Direct::on : Direct::off;
  }
  size_t done = 0;
  while (direct_ == Direct::on && done < pending_) {
    const ssize_t n = ::write(fd, chunk_ + done, pending_ - done);
    if (n < 0 && errno == EINTR) continue;
    // Refused (EINVAL: the file system's alignment rules, or no O_DIRECT
    // after all) or cut short: the rest goes through the page cache, where
    // a real error (ENOSPC, EIO) is reported as for any other write.
    if (n <= 0 || static_cast<size_t>(n) < pending_ - done) {
      if (n > 0) done += static_cast<size_t>(n);
      if (!direct_off(fd))
        fail(MX_ERR_IO, target + ": write failed: cannot turn off O_DIRECT: " + std::strerror(errno));
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (done < pending_) write_fully(fd, std::string_view(chunk_ + done, pending_ - done), target);
  pending_ = 0;
}

void ChunkedWrites::flush(int fd, const std::string& target) {
  if (!direct_off(fd))
    fail(MX_ERR_IO, target + ": write failed: cannot turn off O_DIRECT: " + std::strerror(errno));
  if (pending_ == 0) return;
  write_fully(fd, std::string_view(chunk_, pending_), target);
  pending_ = 0;
}

}  // namespace mx
