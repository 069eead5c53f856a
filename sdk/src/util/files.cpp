#include "util/files.hpp"
#include "util/stale_leftovers.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"
#include "util/output_set.hpp"

namespace mx {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

std::string kind_text(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
  return "is not a regular file";
}

// 12 letters/digits from the kernel's random source: 62^12 names, so a
// name cannot be guessed (and planted) in advance.
std::string random_suffix() {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[12];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(MX_ERR_IO, std::string("getrandom failed: ") + errno_text());
    got += static_cast<size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes) out += alphabet[b % 62];
  return out;
}

std::string read_all(int fd, const std::string& path, size_t expected) {
  std::string data;
  data.reserve(expected);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(MX_ERR_IO, path + ": read failed: " + errno_text());
    if (n == 0) return data;
    data.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

PathKind path_kind(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return PathKind::missing;
  if (S_ISREG(st.st_mode)) return PathKind::regular;
  if (S_ISDIR(st.st_mode)) return PathKind::directory;
  return PathKind::other;
}

bool file_exists(const std::string& path) {
  return path_kind(path) == PathKind::regular;
}

std::string describe_file_type(unsigned mode) {
  return kind_text(static_cast<mode_t>(mode));
}

std::string random_sibling_name(const std::string& directory, const std::string& hint, const char* tag) {
  // Keep the name under NAME_MAX (255) whatever the target's length.
  return directory + "/" + pid_tagged("." + hint.substr(0, 200) + "." + tag + "-") + random_suffix();
}

std::string read_file(const std::string& path) {
  if (path.find('\0') != std::string::npos) fail(MX_ERR_IO, "file name contains a NUL byte");
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of
  // waiting for a writer; fstat() then refuses it. Regular files ignore it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) fail(MX_ERR_IO, path + ": " + (errno == ENOENT ? std::string("no such file") : errno_text()));
  struct stat st;
  const bool stated = ::fstat(fd, &st) == 0;
  if (!stated || !S_ISREG(st.st_mode)) {
    const std::string why = stated ? kind_text(st.st_mode) : errno_text();
    ::close(fd);
    fail(MX_ERR_IO, path + ": " + why);
  }
  try {
    std::string data = read_all(fd, path, static_cast<size_t>(st.st_size));
    ::close(fd);
    return data;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

int create_unique_file(const std::string& directory, const std::string& hint, const std::string& label,
                       std::string& name) {
  remove_stale_leftovers(directory, "." + hint.substr(0, 200) + ".tmp-", false);
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = random_sibling_name(directory, hint, "tmp");
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST)
      fail(MX_ERR_IO, label + ": cannot create file (in '" + directory + "'): " + errno_text());
  }
  fail(MX_ERR_IO, label + ": cannot create a unique temporary file in '" + directory + "'");
}

StagedWriter::StagedWriter(std::string target) : target_(std::move(target)) {
  if (target_.empty()) fail(MX_ERR_IO, "empty output file name");
  if (target_.find('\0') != std::string::npos) fail(MX_ERR_IO, "output file name contains a NUL byte");
  // SIGINT/SIGTERM/SIGHUP stay blocked from creating the temporary until its
  // cleanup is registered: a signal in between would leave it behind. A
  // signal that came meanwhile is delivered when the mask is restored, with
  // the cleanup in place.
  sigset_t block, previous;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  try {
    fd_ = create_unique_file(directory_of(target_), base_name_of(target_), target_, temp_);
    cleanup_ = signal_cleanup::remove_on_signal(temp_);
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

StagedWriter::~StagedWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!released_) ::unlink(temp_.c_str());
}

void StagedWriter::write(std::string_view data) {
  if (fd_ < 0) fail(MX_ERR_INTERNAL, target_ + ": write after finish");
  if (chunked_) chunks_.append(fd_, data, target_);
  else write_fully(fd_, data, target_);
  written_ += data.size();
}

void StagedWriter::copy_from(int fd, uint64_t offset, uint64_t length, const std::string& source) {
  if (fd_ < 0) fail(MX_ERR_INTERNAL, target_ + ": write after finish");
  auto failed = [&](const std::string& why) {
    fail(MX_ERR_IO, target_ + ": copying from '" + source + "' failed: " + why);
  };
  if (chunked_) {
    chunks_.flush(fd_, target_);
    chunked_ = false;
  }
  auto in = static_cast<loff_t>(offset);
  bool in_kernel = true;
  std::string buffer;
  while (length > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(length, 1u << 30));
    ssize_t n;
    if (in_kernel) {
      n = ::copy_file_range(fd, &in, fd_, nullptr, chunk, 0);
      if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
        in_kernel = false;  // older kernels, some file systems: through memory
        continue;
      }
    } else {
      buffer.resize(std::min<size_t>(chunk, 8u << 20));
      n = ::pread(fd, buffer.data(), buffer.size(), in);
      if (n > 0) {
        write_fully(fd_, std::string_view(buffer.data(), static_cast<size_t>(n)), target_);
        in += n;
      }
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed(errno_text());
    if (n == 0) failed("the file shrank");
    // Start writing these pages to disk now (without waiting): finish()'s
    // fsync then finds most of a large output already written, and the
    // disk works while the next tensor is copied.
    ::sync_file_range(fd_, static_cast<off_t>(written_), n, SYNC_FILE_RANGE_WRITE);
    length -= static_cast<uint64_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
}

void StagedWriter::finish() {
  if (fd_ < 0) return;
  chunks_.flush(fd_, target_);
  const int fd = fd_;
  fd_ = -1;
  if (::fsync(fd) != 0) {
    const std::string why = errno_text();
    ::close(fd);
    fail(MX_ERR_IO, target_ + ": fsync failed: " + why);
  }
  if (::close(fd) != 0) fail(MX_ERR_IO, target_ + ": close failed: " + errno_text());
}

void write_file_atomically(const std::string& path, std::string_view data) {
  OutputSet out;
  out.add(path).write(data);
  out.commit();
}

}  // namespace mx
