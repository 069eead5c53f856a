// The *_copy twins of torch's view ops (view_copy, permute_copy, t_copy,
// split_copy, ...): what functionalization and decomposition tables emit
// where a program must not alias, the view's values without its storage.
// ONNX has no aliasing, so each is lowered by its view op's lowering:
// MX_ATEN_LOWER_VIEW registers the view ops it names and their "_copy"
// twins, and OpContext::op() names a registered twin after its view op, so
// a lowering's own tests of op() ("t" or "transpose") hold for both.
#pragma once
#include <initializer_list>
#include <string>

#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {

struct ViewLoweringRegistrar {
  ViewLoweringRegistrar(std::initializer_list<const char*> views, LowerFn fn, const char* file,
                        const char* frontend = "");
};
// MX_ATEN_LOWER_VIEW(fn, "aten.view") registers fn for aten.view and aten.view_copy.
#define MX_ATEN_LOWER_VIEW(fn, ...)                                                                       \
  static ::mx::aten_onnx::ViewLoweringRegistrar MX_ATEN_CAT(mx_aten_lower_view_, __LINE__)({__VA_ARGS__}, \
                                                                                           fn, __FILE__)

// "view_copy" -> "view" for a registered twin; any other op name as it is.
std::string view_of_copy(const std::string& op);

}  // namespace mx::aten_onnx
