#include "registry/plugin_discovery.hpp"

#include <algorithm>
#include <cstdlib>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/filesystem.hpp>

namespace fs = boost::filesystem;

namespace mx {
namespace {

// Number of path components in a relative install dir ("lib/x86_64" → 2).
int depth_of(const fs::path& relative) {
  int n = 0;
  for (const auto& part : relative)
    if (part != "." && !part.empty()) ++n;
  return n;
}

std::string normalised(const std::string& dir) {
  boost::system::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(dir), ec);
  return ec ? fs::absolute(dir).lexically_normal().string() : p.string();
}

bool has_so_suffix(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0;
}

}  // namespace

std::string install_plugin_dir() {
  fs::path subdir(MODELEXPORT_PLUGIN_SUBDIR);
  if (subdir.is_absolute()) return subdir.string();
  // The file this code is linked into: libmodelexport.so (or a test binary
  // linking the static core, which then simply finds no plugins there).
  fs::path libdir = boost::dll::this_line_location().parent_path();
  fs::path installed_libdir(MODELEXPORT_INSTALL_LIBDIR);
  fs::path prefix = libdir;
  if (installed_libdir.is_absolute()) return (installed_libdir / "modelexport/plugins").string();
  for (int i = depth_of(installed_libdir); i > 0; --i) prefix = prefix.parent_path();
  return (prefix / subdir).lexically_normal().string();
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> discovery_dirs(bool discover, const std::vector<std::string>& extra) {
  std::vector<std::string> dirs;
  if (discover) {
    dirs.push_back(install_plugin_dir());
    const char* env = std::getenv("MODELEXPORT_PLUGIN_PATH");
    for (auto& d : split_path_list(env ? env : "")) dirs.push_back(d);
  }
  dirs.insert(dirs.end(), extra.begin(), extra.end());
  std::vector<std::string> unique, seen;
  for (const auto& d : dirs) {
    std::string key = normalised(d);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    unique.push_back(d);
  }
  return unique;
}

std::vector<std::string> plugin_files(const std::string& dir) {
  std::vector<std::string> files;
  boost::system::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (has_so_suffix(p) && fs::is_regular_file(p, ec)) files.push_back(p.string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace mx
