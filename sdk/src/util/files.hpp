// File helpers with errors that name the file. Saving is atomic: data goes
// to a temporary file in the destination directory (same filesystem, so the
// rename cannot degrade into a copy), is fsync'ed, then renamed over the
// target. A crash or an error never leaves a partial file behind.
#pragma once
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

// Convenience: stage and commit one file.
void write_file_atomically(const std::string& path, std::string_view data);

}  // namespace modelexport
