#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

std::map<std::string, Registration>& registry() {
  static std::map<std::string, Registration> r;
  return r;
}

std::vector<std::string>& duplicates() {
  static std::vector<std::string> d;
  return d;
}

// __FILE__ from the repository root: "aten_onnx/src/lower/x.cpp",
// "plugins/torch_export/src/lower/y.cpp" (the build passes absolute paths).
std::string repository_path(const std::string& file) {
  for (const char* root : {"/aten_onnx/", "/plugins/"}) {
    const size_t at = file.rfind(root);
    if (at != std::string::npos) return file.substr(at + 1);
  }
  return file.substr(file.rfind('/') + 1);
}

}  // namespace

const std::map<std::string, Registration>& lowering_registry() {
  return registry();
}
const std::vector<std::string>& duplicate_lowerings() {
  return duplicates();
}

LoweringRegistrar::LoweringRegistrar(std::initializer_list<const char*> names, LowerFn fn, const char* file,
                                     const char* frontend) {
  const std::string f = repository_path(file);
  for (const char* n : names) {
    auto [it, fresh] = registry().emplace(n, Registration{fn, f, frontend});
    if (!fresh) duplicates().push_back(std::string(n) + " (" + it->second.file + ", " + f + ")");
  }
}

LowerFn find_lowering(const std::string& target, const std::string& frontend) {
  const auto& r = registry();
  auto usable = [&](std::map<std::string, Registration>::const_iterator it) {
    return it != r.end() && (it->second.frontend.empty() || it->second.frontend == frontend);
  };
  auto it = r.find(target);
  if (usable(it)) return it->second.fn;
  const auto dot = target.rfind('.');
  if (dot != std::string::npos && (target.rfind("aten.", 0) == 0 || target.rfind("complex.aten.", 0) == 0)) {
    it = r.find(target.substr(0, dot));
    if (usable(it)) return it->second.fn;
  }
  return nullptr;
}

}  // namespace mx::aten_onnx
