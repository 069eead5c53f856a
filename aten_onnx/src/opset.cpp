#include "mx/aten_onnx/opset.hpp"

#include <algorithm>
#include <string>

#include "mx/onnx_proto.hpp"
#include <onnx/common/version.h>
#include <onnx/defs/schema.h>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"

namespace mx::aten_onnx {

int max_opset() {
  static const int newest = [] {
    const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const auto it = map.find(onnx::ONNX_DOMAIN);
    return it == map.end() ? kDefaultOpset : it->second.second;
  }();
  return newest;
}

int ir_version_for(int opset) {
  // (first opset, IR version) of each ONNX release that raised the IR.
  struct Step {
    int opset, ir;
  };
  constexpr Step kSteps[] = {{19, 9}, {21, 10}, {23, 11}, {24, 12}, {25, 13}, {28, 14}};
  int ir = 8;
  for (const Step& s : kSteps)
    if (opset >= s.opset) ir = s.ir;
  return ir;
}

void require_supported_opset(int opset) {
  if (opset < kMinOpset || opset > max_opset())
    throw Error(MX_ERR_INVALID_ARGUMENT,
                "opset " + std::to_string(opset) + " is not supported: choose one from " +
                    std::to_string(kMinOpset) + " to " + std::to_string(max_opset()) +
                    " (the newest of ONNX " ONNX_VERSION_STRING ")");
}

}  // namespace mx::aten_onnx
