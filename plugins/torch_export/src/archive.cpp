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

namespace mxte {
using mx::aten_onnx::Error;
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50,
                   kZip64Locator = 0x07064b50, kZip64End = 0x06064b50;

uint16_t u16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t u32(const unsigned char* p) { return u16(p) | static_cast<uint32_t>(u16(p + 2)) << 16; }
uint64_t u64(const unsigned char* p) { return u32(p) | static_cast<uint64_t>(u32(p + 4)) << 32; }

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
  ::close(fd);
  try {
    read_directory();
  } catch (...) {
    if (base_) ::munmap(const_cast<unsigned char*>(base_), size_);
    throw;
  }
}

Archive::~Archive() {
  if (base_) ::munmap(const_cast<unsigned char*>(base_), size_);
}

void Archive::fail(const std::string& what) const {
  throw Error(MX_ERR_PARSE, "'" + path_ + "' is not a readable .pt2 archive: " + what);
}

void Archive::read_directory() {
  if (size_ < 22 || u32(base_) != kLocalHeader) fail("not a zip file");
  // End of central directory: the last 22..65,557 bytes.
  uint64_t eocd = UINT64_MAX;
  for (uint64_t k = size_ - 22 + 1; k-- > 0 && size_ - k <= 22 + 65535;)
    if (u32(base_ + k) == kEndOfDirectory) {
      eocd = k;
      break;
    }
  if (eocd == UINT64_MAX) fail("no zip central directory (truncated file?)");
  uint64_t count = u16(base_ + eocd + 10), dir_size = u32(base_ + eocd + 12), dir_offset = u32(base_ + eocd + 16);
  if (eocd >= 20 && u32(base_ + eocd - 20) == kZip64Locator) {
    uint64_t z64 = u64(base_ + eocd - 20 + 8);
    if (z64 > size_ || size_ - z64 < 56 || u32(base_ + z64) != kZip64End) fail("bad ZIP64 end of directory");
    count = u64(base_ + z64 + 32);
    dir_size = u64(base_ + z64 + 40);
    dir_offset = u64(base_ + z64 + 48);
  }
  if (dir_offset > size_ || dir_size > size_ - dir_offset) fail("the central directory overruns the file (truncated?)");
  const unsigned char* p = base_ + dir_offset;
  const unsigned char* end = p + dir_size;
  for (uint64_t k = 0; k < count; ++k) {
    if (end - p < 46 || u32(p) != kCentralHeader) fail("corrupt central directory entry " + std::to_string(k));
    const uint16_t method = u16(p + 10), name_len = u16(p + 28), extra_len = u16(p + 30), comment_len = u16(p + 32);
    uint64_t csize = u32(p + 20), usize = u32(p + 24), local = u32(p + 42);
    if (static_cast<uint64_t>(end - p) < 46ull + name_len + extra_len + comment_len)
      fail("corrupt central directory entry " + std::to_string(k));
    std::string name(reinterpret_cast<const char*>(p + 46), name_len);
    // ZIP64 extra field: the 0xffffffff fields, in order usize, csize, offset.
    for (const unsigned char* e = p + 46 + name_len; e + 4 <= p + 46 + name_len + extra_len;) {
      const uint16_t id = u16(e), len = u16(e + 2);
      const unsigned char* v = e + 4;
      if (v + len > p + 46 + name_len + extra_len) fail("corrupt extra field of entry '" + name + "'");
      if (id == 1) {
        const unsigned char* q = v;
        auto take = [&](uint64_t& f) {
          if (f != 0xffffffffu) return;
          if (q + 8 > v + len) fail("corrupt ZIP64 field of entry '" + name + "'");
          f = u64(q);
          q += 8;
        };
        take(usize);
        take(csize);
        take(local);
      }
      e = v + len;
    }
    if (unsafe_name(name)) fail("entry name '" + name + "' is absolute or climbs out with '..'");
    if (method != 0) fail("entry '" + name + "' is compressed (method " + std::to_string(method) +
                          "); torch.export.save writes stored entries only");
    if (csize != usize) fail("entry '" + name + "' has different stored and original sizes");
    if (local > size_ || size_ - local < 30 || u32(base_ + local) != kLocalHeader)
      fail("entry '" + name + "' points outside the file");
    const uint64_t data = local + 30 + u16(base_ + local + 26) + u16(base_ + local + 28);
    if (data > size_ || usize > size_ - data) fail("entry '" + name + "' overruns the file (truncated?)");
    entries_[name] = std::string_view(reinterpret_cast<const char*>(base_ + data), usize);
    p += 46 + name_len + extra_len + comment_len;
  }
  for (const auto& [name, bytes] : entries_) {
    const auto slash = name.find('/');
    if (slash != std::string::npos && name.compare(slash + 1, std::string::npos, "archive_format") == 0) {
      prefix_ = name.substr(0, slash + 1);
      return;
    }
  }
  if (entries_.count("archive_format")) return;
  fail("no archive_format entry (a TorchScript file? use the torchscript frontend)");
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

}  // namespace mxte
