#include "archive.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"
#include "mx/common/zip_directory.hpp"

namespace mx::torch_export {
using mx::aten_onnx::Error;
namespace {

bool unsafe_name(const std::string& n) {
  if (n.empty() || n[0] == '/' || n.find('\\') != std::string::npos || n.find('\0') != std::string::npos)
    return true;
  size_t pos = 0;
  while (pos <= n.size()) {
    size_t slash = n.find('/', pos);
    if (slash == std::string::npos) slash = n.size();
    if (n.compare(pos, slash - pos, "..") == 0) return true;
    pos = slash + 1;
  }
  return false;
}

}  // namespace

Archive::Archive(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(MX_ERR_IO, "cannot open model file '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(MX_ERR_IO, "'" + path + "' is not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > 0) {
    void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      throw Error(MX_ERR_IO, "cannot map '" + path + "': " + std::strerror(err));
    }
    base_ = static_cast<const unsigned char*>(m);
  }
  fd_ = fd;
  try {
    read_directory();
  } catch (...) {
    if (base_) ::munmap(const_cast<unsigned char*>(base_), size_);
    ::close(fd_);
    throw;
  }
}

Archive::~Archive() {
  if (base_) ::munmap(const_cast<unsigned char*>(base_), size_);
  ::close(fd_);
}

std::string Archive::read(const std::string& name) const {
  const std::string_view mapped = entry(name);
  std::string out(mapped.size(), '\0');
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done,
                              static_cast<off_t>(offset_of(mapped.data()) + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail("entry '" + prefix_ + name + "' could not be read (the file changed while it was read?)");
    done += static_cast<size_t>(n);
  }
  return out;
}

void Archive::fail(const std::string& what) const {
  throw Error(MX_ERR_PARSE, "'" + path_ + "' is not a readable .pt2 archive: " + what);
}

void Archive::read_directory() {
  std::vector<mx::common::ZipEntry> directory;
  try {
    directory = mx::common::read_zip_directory(base_, size_);
    for (const auto& e : directory) {
      if (unsafe_name(e.name)) fail("entry name '" + e.name + "' is absolute or climbs out with '..'");
      if (e.method != 0)
        fail("entry '" + e.name + "' is compressed (method " + std::to_string(e.method) +
             "); torch.export.save writes stored entries only");
      if (e.compressed_size != e.size) fail("entry '" + e.name + "' has different stored and original sizes");
      const uint64_t data = mx::common::zip_data_offset(base_, size_, e);
      if (data > size_ || e.size > size_ - data)
        fail("entry '" + e.name + "' overruns the file (truncated?)");
      // Readers disagree on which of two same-named entries counts (torch
      // takes the first): the program or a weight could differ silently.
      if (!entries_.emplace(e.name, std::string_view(reinterpret_cast<const char*>(base_ + data), e.size))
               .second)
        fail("entry '" + e.name + "' appears twice");
    }
  } catch (const mx::common::ZipError& e) {
    fail(e.what());
  }
  bool found = entries_.count("archive_format") > 0;
  for (const auto& [name, bytes] : entries_) {
    const auto slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash + 1, std::string::npos, "archive_format") == 0) {
      if (found) fail("more than one archive_format entry ('" + prefix_ + "archive_format', '" + name + "')");
      prefix_ = name.substr(0, slash + 1);
      found = true;
    }
  }
  if (!found) fail("no archive_format entry (a TorchScript file? use the torchscript frontend)");
  // torch.export.save puts every entry in one folder; torch.export.load
  // refuses an archive with entries outside it.
  for (const auto& [name, bytes] : entries_)
    if (name.compare(0, prefix_.size(), prefix_) != 0)
      fail("entry '" + name + "' is outside the archive's folder '" + prefix_ + "'");
}

std::string_view Archive::entry(const std::string& name) const {
  auto it = entries_.find(prefix_ + name);
  if (it == entries_.end()) fail("missing entry '" + prefix_ + name + "'");
  return it->second;
}

bool Archive::looks_like_pt2(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rbe");
  if (!f) return false;
  struct stat st {};
  char magic[4] = {};
  const bool zip = ::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode) && std::fread(magic, 1, 4, f) == 4 &&
                   std::memcmp(magic, "PK\x03\x04", 4) == 0;
  bool named = false;
  if (zip) {
    const long tail = static_cast<long>(std::min<off_t>(st.st_size, 1 << 20));
    std::string buf(static_cast<size_t>(tail), '\0');
    if (std::fseek(f, -tail, SEEK_END) == 0 && std::fread(buf.data(), 1, buf.size(), f) == buf.size())
      named = buf.find("archive_format") != std::string::npos;
  }
  std::fclose(f);
  const bool pt2_name = path.size() > 4 && path.compare(path.size() - 4, 4, ".pt2") == 0;
  return pt2_name || (zip && named);
}

}  // namespace mx::torch_export
