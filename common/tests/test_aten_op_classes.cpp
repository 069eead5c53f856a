#include <doctest/doctest.h>

#include <algorithm>

#include "mx/common/aten_op_classes.hpp"

using mx::common::onnx_ops_of;

TEST_CASE("aten lowering: known ops, in-place spelling, unknown ops") {
  CHECK(onnx_ops_of("aten::mul") == std::vector<std::string>{"Mul"});
  CHECK(onnx_ops_of("aten::mul_") == std::vector<std::string>{"Mul"});
  CHECK(onnx_ops_of("aten::cat") == std::vector<std::string>{"Concat"});
  auto rsqrt = onnx_ops_of("aten::rsqrt");
  REQUIRE(rsqrt);
  CHECK(std::find(rsqrt->begin(), rsqrt->end(), "Reciprocal") != rsqrt->end());
  CHECK(onnx_ops_of("aten::addmm") == std::vector<std::string>{"Gemm"});  // never a residual Add
  CHECK_FALSE(onnx_ops_of("aten::some_new_op"));
  CHECK_FALSE(onnx_ops_of("prim::PythonOp"));
  CHECK_FALSE(onnx_ops_of("torchvision::nms"));
}
