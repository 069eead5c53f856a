// A .pt2 archive (torch.export.save) opened read-only through mmap.
//
// The archive is a zip whose entries PyTorch writes uncompressed ("stored")
// and 64-byte aligned, so every entry - the 100 MB weight files included -
// is a span of the mapped file: nothing is copied or inflated, and the
// weights go from the page cache straight into the ONNX output. The zip
// central directory is read by mx::common::read_zip_directory (common/),
// because the one thing we need from a zip library, the file offset of an
// entry's bytes, is what libzip does not expose (fuzz/targets/pt2_archive).
//
// Refused, with the archive's path and the entry named: not a zip, a
// truncated file, compressed entries, names with ".." or absolute paths,
// entries or directories that overrun the file.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace mx::torch_export {

class Archive {
 public:
  explicit Archive(const std::string& path);  // throws Error (MX_ERR_IO / MX_ERR_PARSE)
  ~Archive();
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  const std::string& path() const { return path_; }
  // The folder every entry lives in ("blk/" for blk/models/model.json).
  const std::string& prefix() const { return prefix_; }
  // Bytes of the entry `name` (relative to prefix()), or an error naming it.
  std::string_view entry(const std::string& name) const;
  // A copy of the entry read with pread(), not through the mapping: the
  // small JSON entries are parsed from it, so a file truncated by another
  // process meanwhile is a short read (an error naming it), not SIGBUS.
  std::string read(const std::string& name) const;
  bool has(const std::string& name) const { return entries_.count(prefix_ + name) > 0; }
  // File offset of `p`, a pointer into an entry's bytes.
  uint64_t offset_of(const char* p) const {
    return static_cast<uint64_t>(reinterpret_cast<const unsigned char*>(p) - base_);
  }

  // The frontend probe: a zip whose tail names an archive_format entry, or
  // any file named *.pt2 - claimed even when damaged, so that exporting it
  // reports what is wrong with it rather than "no frontend reads it".
  // Reads the first 4 bytes and at most the last 1 MiB.
  static bool looks_like_pt2(const std::string& path);

 private:
  std::string path_, prefix_;
  const unsigned char* base_ = nullptr;
  uint64_t size_ = 0;
  int fd_ = -1;  // kept open for read()
  std::map<std::string, std::string_view> entries_;
  void read_directory();
  [[noreturn]] void fail(const std::string& what) const;
};

}  // namespace mx::torch_export
