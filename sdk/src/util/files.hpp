// File helpers with errors that name the file.
//
// Reading: regular files only. A FIFO, socket or device where a file is
// expected is refused at once (opening a FIFO for reading would block until
// a writer comes, forever in practice).
//
// Writing: StagedWriter stages one file under an unpredictable temporary
// name created with O_EXCL in the destination directory (same filesystem,
// so the final rename cannot degrade into a copy; O_EXCL never follows a
// symlink planted at that name). The temporary is removed if the writer
// dies uncommitted or the process is killed by SIGINT/SIGTERM/SIGHUP
// (util/signal_cleanup.hpp). Files of one output are committed together by
// OutputSet (util/output_set.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "util/chunked_writes.hpp"
#include "util/signal_cleanup.hpp"

namespace mx {

// Reads a whole regular file. MX_ERR_IO for missing files, directories,
// FIFOs, devices and unreadable files; an empty file is returned as ""
// (callers decide).
std::string read_file(const std::string& path);

// What is at `path` (symlinks followed; a dangling one is `missing`).
enum class PathKind { missing, regular, directory, other };
PathKind path_kind(const std::string& path);

// A regular file (symlinks followed) is at `path`.
bool file_exists(const std::string& path);

// "is a FIFO (named pipe), not a regular file", ... for `mode`.
std::string describe_file_type(unsigned mode);

std::string directory_of(const std::string& path);
std::string base_name_of(const std::string& path);

// A fresh, unpredictable name "<directory>/.<hint>.<tag>-<pid>-XXXXXXXXXXXX"
// (12 random letters/digits; nothing is created). The pid lets a later run
// recognise what a killed one left (util/stale_leftovers.hpp).
std::string random_sibling_name(const std::string& directory, const std::string& hint, const char* tag);

// A new file in `directory` named ".<hint>.tmp-<pid>-XXXXXXXXXXXX" (random
// letters), created with O_EXCL, after removing the stale temporaries of
// the same hint; returns the descriptor and sets `name`.
// MX_ERR_IO naming `label` on failure.
int create_unique_file(const std::string& directory, const std::string& hint, const std::string& label,
                       std::string& name);

// One staged file: bytes are appended in pieces (external weights are
// copied tensor by tensor, never held whole), then finish() fsyncs and
// closes. Committing (the rename) is OutputSet's job. Appended bytes are
// written in chunks around the page cache (util/chunked_writes.hpp), so a
// write error may be reported by a later write or by finish().
class StagedWriter {
 public:
  explicit StagedWriter(std::string target);
  ~StagedWriter();
  StagedWriter(const StagedWriter&) = delete;
  StagedWriter& operator=(const StagedWriter&) = delete;
  void write(std::string_view data);
  // Appends `length` bytes of the open file `fd` from `offset` (its read
  // position is not used): copied inside the kernel (copy_file_range), no
  // user-space buffer; `source` names the file in messages (MX_ERR_IO).
  void copy_from(int fd, uint64_t offset, uint64_t length, const std::string& source);
  uint64_t written() const { return written_; }
  void finish();  // fsync + close; MX_ERR_IO
  const std::string& target() const { return target_; }
  const std::string& temp() const { return temp_; }
  // The temporary became the target (or was removed): nothing to clean up.
  void release() {
    released_ = true;
    cleanup_.cancel();
  }

 private:
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  uint64_t written_ = 0;
  ChunkedWrites chunks_;
  bool chunked_ = true;  // until copy_from, which writes in the kernel
  bool released_ = false;
  signal_cleanup::Action cleanup_;
};

// Convenience: one file written atomically (an OutputSet of one).
void write_file_atomically(const std::string& path, std::string_view data);

}  // namespace mx
