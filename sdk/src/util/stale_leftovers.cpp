#include "util/stale_leftovers.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <vector>

namespace mx {
namespace {

// The pid of "<prefix><pid>-...", or 0 when the name is not of that form.
pid_t pid_in(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return 0;
  long long pid = 0;
  size_t k = prefix.size();
  for (; k < name.size() && k - prefix.size() < 10 && name[k] >= '0' && name[k] <= '9'; ++k)
    pid = pid * 10 + (name[k] - '0');
  return k < name.size() && name[k] == '-' && pid > 0 && pid <= INT32_MAX ? static_cast<pid_t>(pid) : 0;
}

// The target of a backup ".<name>.orig-<pid>-...", or "" when the name is
// not a backup's or `name` was shortened to fit (util/files.cpp keeps 200
// bytes of it): then the target is not known.
std::string backup_target(const std::string& name, pid_t& pid) {
  constexpr size_t kKeptBytes = 200;
  const size_t tag = name.rfind(".orig-");
  if (name.empty() || name[0] != '.' || tag == std::string::npos || tag < 2) return "";
  pid = pid_in(name, name.substr(0, tag + 6));
  const std::string target = name.substr(1, tag - 1);
  return pid != 0 && target.size() < kKeptBytes && target != "." && target != ".." ? target : "";
}

bool gone(pid_t pid) {
  return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string pid_tagged(const std::string& prefix) {
  return prefix + std::to_string(::getpid()) + "-";
}

void remove_stale_leftovers(const std::string& directory, const std::string& prefix, bool directories) {
  DIR* d = ::opendir(directory.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  const time_t now = std::time(nullptr);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const pid_t pid = pid_in(name, prefix);
    if (pid == 0 || !gone(pid)) continue;
    struct stat st;
    const std::string path = directory + "/" + name;
    if (::lstat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode) != directories) continue;
    if (now - st.st_mtime < kStaleAfterSeconds) continue;
    stale.push_back(path);
  }
  ::closedir(d);
  for (const auto& path : stale) {
    std::error_code ec;
    if (directories) std::filesystem::remove_all(path, ec);
    else ::unlink(path.c_str());
  }
}

void remove_stale_backups(const std::string& directory) {
  DIR* d = ::opendir(directory.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    pid_t pid = 0;
    const std::string target = backup_target(e->d_name, pid);
    if (target.empty() || !gone(pid)) continue;
    struct stat st;
    if (::lstat((directory + "/" + target).c_str(), &st) == 0) stale.push_back(directory + "/" + e->d_name);
  }
  ::closedir(d);
  for (const auto& path : stale) ::unlink(path.c_str());
}

}  // namespace mx
