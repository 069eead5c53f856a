// StackNet, built in code: three identical residual blocks
//   blocks.i: y = x + Relu(x @ W_i + b_i)   (Block: fc Linear, act ReLU)
// followed by a head Linear. Hierarchy: StackNet > blocks (ModuleList) >
// blocks.{0,1,2} (Block) > fc, act; head.
#pragma once
#include <string>

#include "mx/onnx_proto.hpp"

namespace mx::testing {

onnx::ModelProto stack_net(int blocks = 3);
std::string stack_net_hierarchy(int blocks = 3);

}  // namespace mx::testing
