#include "op_libraries.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

#include "exporter.hpp"
#include "modelexport/modelexport.h"

namespace mx::torchscript {
namespace {

struct Loaded {
  std::vector<std::string> paths;
  std::string failure;  // the first library that could not be opened
};

Loaded open_all() {
  Loaded loaded;
  const char* list = std::getenv(kOpLibrariesVariable);
  std::stringstream in(list ? list : "");
  for (std::string path; std::getline(in, path, ':');) {
    if (path.empty()) continue;
    // RTLD_GLOBAL: an op library may depend on symbols of another one;
    // never closed, see the header.
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      loaded.failure =
          std::string(kOpLibrariesVariable) + ": cannot open the op library '" + path + "': " + dlerror();
      break;
    }
    loaded.paths.push_back(path);
  }
  return loaded;
}

const Loaded& loaded() {
  static const Loaded l = open_all();
  return l;
}

}  // namespace

void load_torch_op_libraries() {
  if (!loaded().failure.empty()) throw Error(MX_ERR_PLUGIN, loaded().failure);
}

std::string torch_op_libraries() {
  std::string out;
  for (const auto& p : loaded().paths) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "none" : out;
}

}  // namespace mx::torchscript
