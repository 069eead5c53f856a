#include "util/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "util/error.hpp"

namespace modelexport {
namespace {

std::string errno_text() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Hidden, unique name next to the target so rename() stays on one filesystem.
std::string temp_name_for(const std::string& target) {
  std::random_device rd;
  std::ostringstream name;
  name << directory_of(target) << "/." << basename_of(target) << ".tmp-"
       << ::getpid() << "-" << std::hex << rd();
  return name.str();
}

void write_all(int fd, std::string_view data, const std::string& target) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(MX_ERR_IO, target + ": write failed: " + errno_text());
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Makes the rename itself durable; best effort (some filesystems refuse).
void sync_directory(const std::string& path) {
  int fd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail(MX_ERR_IO, path + ": " + (errno == ENOENT ? std::string("no such file")
                                                   : errno_text()));
  if (S_ISDIR(st.st_mode)) fail(MX_ERR_IO, path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(MX_ERR_IO, path + ": cannot open: " + errno_text());
  std::string data;
  data.resize(static_cast<size_t>(st.st_size));
  if (!data.empty() && !in.read(&data[0], static_cast<std::streamsize>(data.size())))
    fail(MX_ERR_IO, path + ": read failed");
  return data;
}

StagedFile::StagedFile(std::string target, std::string_view data)
    : target_(std::move(target)), temp_(temp_name_for(target_)) {
  int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(MX_ERR_IO, target_ + ": cannot create file: " + errno_text());
  try {
    write_all(fd, data, target_);
    if (::fsync(fd) != 0) fail(MX_ERR_IO, target_ + ": fsync failed: " + errno_text());
  } catch (...) {
    ::close(fd);
    ::unlink(temp_.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(temp_.c_str());
    fail(MX_ERR_IO, target_ + ": close failed: " + errno_text());
  }
}

StagedFile::~StagedFile() {
  if (!committed_) ::unlink(temp_.c_str());
}

void StagedFile::commit() {
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    fail(MX_ERR_IO, target_ + ": cannot rename temporary file: " + errno_text());
  committed_ = true;
  sync_directory(target_);
}

StagedWriter::StagedWriter(std::string target)
    : target_(std::move(target)), temp_(temp_name_for(target_)) {
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(MX_ERR_IO, target_ + ": cannot create file: " + errno_text());
}

StagedWriter::~StagedWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void StagedWriter::write(std::string_view data) {
  if (fd_ < 0) fail(MX_ERR_INTERNAL, target_ + ": write after finish");
  write_all(fd_, data, target_);
  written_ += data.size();
}

void StagedWriter::finish() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail(MX_ERR_IO, target_ + ": fsync failed: " + errno_text());
  }
  if (::close(fd) != 0) fail(MX_ERR_IO, target_ + ": close failed: " + errno_text());
}

void StagedWriter::commit() {
  finish();
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    fail(MX_ERR_IO, target_ + ": cannot rename temporary file: " + errno_text());
  committed_ = true;
  sync_directory(target_);
}

void write_file_atomically(const std::string& path, std::string_view data) {
  StagedFile staged(path, data);
  staged.commit();
}

}  // namespace modelexport
