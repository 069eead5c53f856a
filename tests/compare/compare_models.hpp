// Models for the compare tests, built in code from StackNet
// (tests/functions/stacknet.hpp): the plain net, and a variant with one extra
// Identity node inside blocks.1.act (recorded in that module).
#pragma once
#include <string>

namespace mx::testing {

// Serialized ONNX bytes and hierarchy JSON of StackNet with an Identity
// node after /blocks.1/act/Relu (module blocks.1.act).
std::string stack_net_extra_bytes();
std::string stack_net_extra_hierarchy();

}  // namespace mx::testing
