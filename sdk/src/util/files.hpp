// File helpers with errors that name the file. Saving is atomic: data goes
// to a temporary file in the destination directory (same filesystem, so the
// rename cannot degrade into a copy), is fsync'ed, then renamed over the
// target. A crash or an error never leaves a partial file behind.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace modelexport {

// Reads a whole regular file. MX_ERR_IO for missing files, directories and
// unreadable files; an empty file is returned as "" (callers decide).
std::string read_file(const std::string& path);

bool file_exists(const std::string& path);

// A temporary file that becomes `target` on commit() and is removed if the
// object dies uncommitted. Lets callers stage several files and rename them
// only once all were written.
class StagedFile {
 public:
  StagedFile(std::string target, std::string_view data);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool committed_ = false;
};

// The streaming form of StagedFile: bytes are appended in pieces (external
// weights are copied tensor by tensor, never held whole), then finish()
// fsyncs and commit() renames. Destroyed uncommitted, the temp file goes.
class StagedWriter {
 public:
  explicit StagedWriter(std::string target);
  ~StagedWriter();
  StagedWriter(const StagedWriter&) = delete;
  StagedWriter& operator=(const StagedWriter&) = delete;
  void write(std::string_view data);
  uint64_t written() const { return written_; }
  void finish();  // fsync + close; MX_ERR_IO
  void commit();  // rename over the target (after finish)
  const std::string& target() const { return target_; }

 private:
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  uint64_t written_ = 0;
  bool committed_ = false;
};

// Convenience: stage and commit one file.
void write_file_atomically(const std::string& path, std::string_view data);

}  // namespace modelexport
