#include "mx/aten_onnx/op_context.hpp"

#include "mx/aten_onnx/view_copies.hpp"

namespace mx::aten_onnx {

std::string OpContext::op() const {
  const size_t start = target_.find('.') + 1, end = target_.find('.', start);
  std::string n = target_.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const bool dunder = n.size() > 4 && n.rfind("__", 0) == 0 && n.compare(n.size() - 2, 2, "__") == 0;
  if (!n.empty() && n.back() == '_' && !dunder) n.pop_back();
  return view_of_copy(n);
}

std::vector<int64_t> OpContext::static_shape(const std::string& name) {
  std::vector<int64_t> out;
  for (const auto& d : value_of(name).shape) {
    if (!d.is_static)
      unsupported("argument '" + name + "' has a dynamic dim (" + d.expr + ") where a static one is needed");
    out.push_back(d.value);
  }
  return out;
}

}  // namespace mx::aten_onnx
