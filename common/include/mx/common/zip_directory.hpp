// The central directory of a zip file held in memory (a mapped file): the
// entries' names, methods, sizes and where their bytes start. PyTorch's
// archives (.pt2 and TorchScript) are zips whose entries are stored
// uncompressed; what the frontends need from a zip library is the file
// offset of an entry's bytes (to refer to them without a copy), which libzip
// does not expose, so the reading is done here: small, bounds-checked
// against `size` everywhere, ZIP64 included, and fuzzed through the .pt2
// reader (fuzz/targets/pt2_archive).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mx::common {

// A malformed zip; what() says what is wrong (no file name: the caller
// knows which file it gave).
struct ZipError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 = stored
  uint64_t compressed_size = 0, size = 0;
  uint64_t local_header = 0;  // offset of the entry's local header
};

// Every entry of the central directory, in directory order. Throws ZipError
// for a file that is not a zip, has no (or a truncated) central directory,
// or an entry whose fields overrun the directory.
std::vector<ZipEntry> read_zip_directory(const unsigned char* base, uint64_t size);

// Offset of the first byte of `e`'s data (past its local header); throws
// ZipError when the local header is missing or lies outside the file.
uint64_t zip_data_offset(const unsigned char* base, uint64_t size, const ZipEntry& e);

}  // namespace mx::common
