#include "mx/common/zip_directory.hpp"

namespace mx::common {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50,
                   kZip64Locator = 0x07064b50, kZip64End = 0x06064b50;

uint16_t u16(const unsigned char* p) {
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}
uint32_t u32(const unsigned char* p) {
  return u16(p) | static_cast<uint32_t>(u16(p + 2)) << 16;
}
uint64_t u64(const unsigned char* p) {
  return u32(p) | static_cast<uint64_t>(u32(p + 4)) << 32;
}

[[noreturn]] void fail(const std::string& what) {
  throw ZipError(what);
}

struct Directory {
  uint64_t count, size, offset;
};

// The end of central directory record sits in the last 22..65,557 bytes;
// a ZIP64 locator just before it points at the 64-bit record.
Directory find_directory(const unsigned char* base, uint64_t size) {
  if (size < 22 || u32(base) != kLocalHeader) fail("not a zip file");
  uint64_t eocd = UINT64_MAX;
  for (uint64_t k = size - 22 + 1; k-- > 0 && size - k <= 22 + 65535;)
    if (u32(base + k) == kEndOfDirectory) {
      eocd = k;
      break;
    }
  if (eocd == UINT64_MAX) fail("no zip central directory (truncated file?)");
  Directory d{u16(base + eocd + 10), u32(base + eocd + 12), u32(base + eocd + 16)};
  if (eocd >= 20 && u32(base + eocd - 20) == kZip64Locator) {
    uint64_t z64 = u64(base + eocd - 20 + 8);
    if (z64 > size || size - z64 < 56 || u32(base + z64) != kZip64End) fail("bad ZIP64 end of directory");
    d = {u64(base + z64 + 32), u64(base + z64 + 40), u64(base + z64 + 48)};
  }
  if (d.offset > size || d.size > size - d.offset)
    fail("the central directory overruns the file (truncated?)");
  return d;
}

// ZIP64 extra field (id 1): the fields that are 0xffffffff in the header,
// in the order size, compressed size, local header offset.
void read_zip64_extra(const unsigned char* e, const unsigned char* end, ZipEntry& entry) {
  while (e + 4 <= end) {
    const uint16_t id = u16(e), len = u16(e + 2);
    const unsigned char* v = e + 4;
    if (v + len > end) fail("corrupt extra field of entry '" + entry.name + "'");
    if (id == 1) {
      const unsigned char* q = v;
      for (uint64_t* f : {&entry.size, &entry.compressed_size, &entry.local_header}) {
        if (*f != 0xffffffffu) continue;
        if (q + 8 > v + len) fail("corrupt ZIP64 field of entry '" + entry.name + "'");
        *f = u64(q);
        q += 8;
      }
    }
    e = v + len;
  }
}

}  // namespace

std::vector<ZipEntry> read_zip_directory(const unsigned char* base, uint64_t size) {
  const Directory d = find_directory(base, size);
  const unsigned char* p = base + d.offset;
  const unsigned char* end = p + d.size;
  std::vector<ZipEntry> entries;
  for (uint64_t k = 0; k < d.count; ++k) {
    if (end - p < 46 || u32(p) != kCentralHeader)
      fail("corrupt central directory entry " + std::to_string(k));
    const uint16_t name_len = u16(p + 28), extra_len = u16(p + 30), comment_len = u16(p + 32);
    if (static_cast<uint64_t>(end - p) < 46ull + name_len + extra_len + comment_len)
      fail("corrupt central directory entry " + std::to_string(k));
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(p + 46), name_len);
    e.method = u16(p + 10);
    e.compressed_size = u32(p + 20);
    e.size = u32(p + 24);
    e.local_header = u32(p + 42);
    read_zip64_extra(p + 46 + name_len, p + 46 + name_len + extra_len, e);
    entries.push_back(std::move(e));
    p += 46 + name_len + extra_len + comment_len;
  }
  return entries;
}

uint64_t zip_data_offset(const unsigned char* base, uint64_t size, const ZipEntry& e) {
  if (e.local_header > size || size - e.local_header < 30 || u32(base + e.local_header) != kLocalHeader)
    fail("entry '" + e.name + "' points outside the file");
  return e.local_header + 30 + u16(base + e.local_header + 26) + u16(base + e.local_header + 28);
}

}  // namespace mx::common
