// StagedWriter writes what it is given in chunks around the page cache
// (util/chunked_writes.hpp): the committed file holds exactly the bytes
// appended, whatever the sizes of the pieces, on a file system that takes
// O_DIRECT (the temporary directory) and on tmpfs (/dev/shm), which may
// refuse it; where the flag is refused (a socket) every chunk goes through
// write(2) as it is; bytes copied in the kernel (copy_from) land between
// the writes around them. Linked against the internal view of the core.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "util/chunked_writes.hpp"
#include "util/output_set.hpp"

namespace fs = std::filesystem;
using mx::OutputSet;

namespace {

struct Dir {
  explicit Dir(const fs::path& parent) : path(parent / ("mx_staged_chunks_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  fs::path path;
};

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Bytes that differ from chunk to chunk and from offset to offset, so a
// chunk written twice, dropped or out of place shows.
std::string pattern(size_t size) {
  std::string out(size, '\0');
  uint32_t x = 12345;
  for (auto& c : out) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  return out;
}

// Appends `bytes` to `path` in pieces of the given sizes, cycling, and commits.
void write_in_pieces(const std::string& path, const std::string& bytes, const std::vector<size_t>& sizes) {
  OutputSet out;
  auto& file = out.add(path);
  size_t at = 0;
  for (size_t k = 0; at < bytes.size(); ++k) {
    const size_t n = std::min(sizes[k % sizes.size()], bytes.size() - at);
    file.write(std::string_view(bytes).substr(at, n));
    at += n;
    CHECK(file.written() == at);
  }
  out.commit();
}

void check_round_trip(const fs::path& dir) {
  const std::vector<std::vector<size_t>> piece_sizes = {
      {1u << 20}, {1, 4095, 4097, (3u << 20) + 7}, {9u << 20}, {size_t{4} << 20}};
  for (size_t size :
       {size_t{0}, size_t{100}, (size_t{4} << 20) - 1, size_t{4} << 20, (size_t{9} << 20) + 123}) {
    const std::string bytes = pattern(size);
    for (const auto& sizes : piece_sizes) {
      const std::string path = (dir / "out.bin").string();
      write_in_pieces(path, bytes, sizes);
      CHECK_MESSAGE(read(path) == bytes, size << " bytes in pieces of " << sizes.front() << "...");
    }
  }
}

}  // namespace

TEST_CASE("a staged file written in chunks holds exactly the bytes appended") {
  Dir d(fs::temp_directory_path());
  check_round_trip(d.path);
}

TEST_CASE("the same on tmpfs, where O_DIRECT may be refused") {
  if (!fs::is_directory("/dev/shm")) return;
  Dir d("/dev/shm");
  check_round_trip(d.path);
}

TEST_CASE("bytes copied in the kernel land between the writes around them") {
  Dir d(fs::temp_directory_path());
  const std::string head = pattern((size_t{5} << 20) + 3), source_bytes = pattern(size_t{6} << 20),
                    tail = "after the copy";
  const fs::path source = d.path / "source.bin";
  std::ofstream(source, std::ios::binary).write(source_bytes.data(), source_bytes.size());
  const int fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const std::string path = (d.path / "out.bin").string();
  {
    OutputSet out;
    auto& file = out.add(path);
    file.write(head);
    file.copy_from(fd, 1000, 2u << 20, source.string());
    file.write(tail);
    out.commit();
  }
  ::close(fd);
  CHECK(read(path) == head + source_bytes.substr(1000, 2u << 20) + tail);
}

TEST_CASE("where O_DIRECT is refused, chunks are written through write(2) unchanged") {
  int ends[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) == 0);
  std::string received;
  std::thread reader([&] {
    char buffer[1 << 16];
    for (ssize_t n; (n = ::read(ends[1], buffer, sizeof buffer)) > 0;) received.append(buffer, n);
  });
  const std::string bytes = pattern((size_t{9} << 20) + 5);
  {
    mx::ChunkedWrites chunks;
    for (size_t at = 0; at < bytes.size(); at += 1000003)
      chunks.append(ends[0], std::string_view(bytes).substr(at, 1000003), "socket");
    chunks.flush(ends[0], "socket");
    CHECK(chunks.pending() == 0);
    CHECK((::fcntl(ends[0], F_GETFL) & O_DIRECT) == 0);
  }
  ::close(ends[0]);
  reader.join();
  ::close(ends[1]);
  CHECK(received == bytes);
}
