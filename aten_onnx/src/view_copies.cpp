#include "mx/aten_onnx/view_copies.hpp"

#include <set>

namespace mx::aten_onnx {
namespace {

std::set<std::string>& twins() {  // "view_copy", ...
  static std::set<std::string> names;
  return names;
}

}  // namespace

ViewLoweringRegistrar::ViewLoweringRegistrar(std::initializer_list<const char*> views, LowerFn fn,
                                             const char* file, const char* frontend) {
  for (const char* view : views) {
    const std::string copy = std::string(view) + "_copy";
    LoweringRegistrar({view}, fn, file, frontend);
    LoweringRegistrar({copy.c_str()}, fn, file, frontend);
    twins().insert(copy.substr(copy.find('.') + 1));
  }
}

std::string view_of_copy(const std::string& op) {
  constexpr size_t kSuffix = 5;  // "_copy"
  return twins().count(op) ? op.substr(0, op.size() - kSuffix) : op;
}

}  // namespace mx::aten_onnx
