#include "probe.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mx/common/zip_directory.hpp"

namespace mx::torchscript {

// A zip with a data.pkl (at the top or in the archive's folder) and no
// archive_format (that is a .pt2): what torch.jit.save writes. Only the
// central directory's pages of the mapping are read.
bool looks_like_torchscript(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  void* map = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return false;
  bool pickle = false, pt2 = false;
  try {
    for (const auto& e : common::read_zip_directory(static_cast<const unsigned char*>(map),
                                                    static_cast<uint64_t>(st.st_size))) {
      auto ends_with = [&](const std::string& tail) {
        return e.name == tail ||
               (e.name.size() > tail.size() &&
                e.name.compare(e.name.size() - tail.size() - 1, std::string::npos, "/" + tail) == 0);
      };
      pickle |= ends_with("data.pkl");
      pt2 |= ends_with("archive_format");
    }
  } catch (const common::ZipError&) {
    pickle = false;
  }
  ::munmap(map, static_cast<size_t>(st.st_size));
  return pickle && !pt2;
}

}  // namespace mx::torchscript
