#include "util/output_set.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "util/directory_lock.hpp"
#include "util/error.hpp"
#include "util/stale_leftovers.hpp"

namespace mx {
namespace {

constexpr const char* kUnchanged = " (the output was not written; no file was changed)";

std::string errno_text() {
  return std::strerror(errno);
}

// A target may be replaced when it is absent, a regular file, or a symlink
// (rename() replaces the link itself and never writes through it).
void check_replaceable(const std::string& target) {
  struct stat st;
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail(MX_ERR_IO, target + ": " + errno_text() + kUnchanged);
  }
  if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return;
  fail(MX_ERR_IO, target + ": " + describe_file_type(st.st_mode) + kUnchanged);
}

// One target of the commit and how to undo what was done to it.
struct Step {
  StagedWriter* file = nullptr;
  std::string backup;    // the original, kept under this name ("" = none)
  bool moved = false;    // the original was renamed away (no hard link)
  bool renamed = false;  // the staged file is in place
  signal_cleanup::Action undo;
};

// Keeps the original of `target` under a new name. A hard link leaves the
// target in place for readers; without one (a filesystem that has none,
// fs.protected_hardlinks) it is renamed away, RENAME_NOREPLACE so that no
// name is ever overwritten. An immutable target fails here.
void back_up(Step& step) {
  const std::string& target = step.file->target();
  const std::string dir = directory_of(target), hint = base_name_of(target);
  struct stat st;
  if (::lstat(target.c_str(), &st) != 0) return;  // nothing to keep
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = random_sibling_name(dir, hint, "orig");
    step.undo = signal_cleanup::restore_on_signal(name, target);
    if (::link(target.c_str(), name.c_str()) == 0) {
      step.backup = std::move(name);
      return;
    }
    if (errno == EEXIST) continue;
    if (::renameat2(AT_FDCWD, target.c_str(), AT_FDCWD, name.c_str(), RENAME_NOREPLACE) == 0) {
      step.backup = std::move(name);
      step.moved = true;
      return;
    }
    if (errno == EEXIST) continue;
    step.undo.cancel();
    fail(MX_ERR_IO, target + ": cannot be replaced: " + errno_text() + kUnchanged);
  }
  step.undo.cancel();
  fail(MX_ERR_IO, target + ": cannot create a unique backup name" + kUnchanged);
}

void undo(Step& step) {
  const char* target = step.file->target().c_str();
  if (!step.backup.empty()) {
    if (step.moved || step.renamed) ::rename(step.backup.c_str(), target);
    else ::unlink(step.backup.c_str());
  } else if (step.renamed) {
    ::unlink(target);
  }
  step.undo.cancel();
}

void put_in_place(Step& step) {
  const std::string& target = step.file->target();
  if (step.backup.empty()) step.undo = signal_cleanup::remove_on_signal(target);
  if (::rename(step.file->temp().c_str(), target.c_str()) != 0)
    fail(MX_ERR_IO, target + ": cannot rename the temporary file into place: " + errno_text() + kUnchanged);
  step.renamed = true;
  step.file->release();
}

// Makes the renames themselves durable; best effort (some filesystems refuse).
void sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

StagedWriter& OutputSet::add(const std::string& target) {
  for (const auto& f : files_)
    if (f->target() == target) fail(MX_ERR_INVALID_ARGUMENT, target + ": written twice by one output");
  files_.push_back(std::make_unique<StagedWriter>(target));
  return *files_.back();
}

void OutputSet::discard(const std::string& target) {
  for (auto it = files_.begin(); it != files_.end(); ++it)
    if ((*it)->target() == target) {
      files_.erase(it);
      return;
    }
}

void OutputSet::commit() {
  for (auto& f : files_) f->finish();
  // Every directory of the set locked, in name order (two sets over the
  // same directories never wait for each other crosswise).
  std::set<std::string> dirs;
  for (auto& f : files_) dirs.insert(directory_of(f->target()));
  std::vector<std::unique_ptr<DirectoryLock>> locks;
  for (const auto& d : dirs) locks.push_back(std::make_unique<DirectoryLock>(d));
  for (auto& f : files_) check_replaceable(f->target());
  std::vector<Step> steps(files_.size());
  for (size_t i = 0; i < files_.size(); ++i) steps[i].file = files_[i].get();
  try {
    for (auto& s : steps) back_up(s);
    for (auto& s : steps) put_in_place(s);
  } catch (...) {
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) undo(*it);
    throw;
  }
  for (auto& s : steps) {
    if (!s.backup.empty()) ::unlink(s.backup.c_str());
    s.undo.cancel();
  }
  // Backups of commits killed before their end, now that every target of
  // this one is in place (util/stale_leftovers.hpp).
  size_t k = 0;
  for (const auto& d : dirs)
    if (locks[k++]->held()) remove_stale_backups(d);
  locks.clear();
  for (const auto& d : dirs) sync_directory(d);
  files_.clear();
}

}  // namespace mx
