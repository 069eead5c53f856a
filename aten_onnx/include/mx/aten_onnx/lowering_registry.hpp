// The one registry of ATen lowerings: a target ("aten.add.Tensor") or an op
// name for every overload ("aten.add") -> the function that lowers it
// through an OpContext. Shared lowerings (aten_onnx/src/lower/) serve every
// frontend; a frontend registers the few that read its own IR under its
// name, and only that frontend finds them. A name registered twice is kept
// with its first lowering and listed by duplicate_lowerings(): ctest
// `aten_onnx` and `pt2_op_table` fail on it.
#pragma once
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "mx/aten_onnx/op_context.hpp"

namespace mx::aten_onnx {

using LowerFn = void (*)(OpContext&);
struct Registration {
  LowerFn fn = nullptr;
  std::string file;      // the registering file from the repository root ("aten_onnx/src/lower/shape.cpp")
  std::string frontend;  // "" = shared by every frontend
};
const std::map<std::string, Registration>& lowering_registry();
const std::vector<std::string>& duplicate_lowerings();  // "name (file, file)"
// The lowering of `target` for `frontend`: the exact name, else the name
// without its overload (aten. and complex.aten. targets).
LowerFn find_lowering(const std::string& target, const std::string& frontend);

struct LoweringRegistrar {
  LoweringRegistrar(std::initializer_list<const char*> names, LowerFn fn, const char* file,
                    const char* frontend = "");
};
#define MX_ATEN_CAT2(a, b) a##b
#define MX_ATEN_CAT(a, b) MX_ATEN_CAT2(a, b)
// MX_ATEN_LOWER(fn, "aten.relu", "aten.relu_") registers fn for those ops.
#define MX_ATEN_LOWER(fn, ...) \
  static ::mx::aten_onnx::LoweringRegistrar MX_ATEN_CAT(mx_aten_lower_, __LINE__)({__VA_ARGS__}, fn, __FILE__)

}  // namespace mx::aten_onnx
