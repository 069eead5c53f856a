// An exclusive flock(2) on a directory, held while an OutputSet puts its
// files in place there. Two processes saving the same output (model,
// sidecar, external data) each replace every file in turn; unlocked, their
// renames interleave and the files left on disk can come from different
// runs (a model with another run's data file). Locked, each commit is whole
// and the last one to commit wins every file.
//
// Only writers of this library take the lock (readers need none: every file
// is replaced by a rename). Where the filesystem has no flock on
// directories (some network filesystems), there is no lock and commits are
// as before.
#pragma once
#include <string>

namespace mx {

class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& dir);  // waits for the lock
  ~DirectoryLock();
  // False where the filesystem has no flock on directories.
  bool held() const { return fd_ >= 0; }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace mx
