// Scope parsing on the names the TorchScript exporter really produces.
#include <doctest/doctest.h>

#include "scope_name.hpp"

using mx::scope::scope_module_path;

TEST_CASE("plain nested scopes join with dots") {
  CHECK(scope_module_path("/encoder/layer.0/attention/self/query/MatMul") ==
        "encoder.layer.0.attention.self.query");
  CHECK(scope_module_path("/pooler/dense/Gemm") == "pooler.dense");
}

TEST_CASE("a called Sequential repeats its name in its items' scopes") {
  CHECK(scope_module_path("/layer1/layer1.0/conv1/Conv") == "layer1.0.conv1");
  CHECK(scope_module_path("/layer1/layer1.0/downsample/downsample.0/Conv") == "layer1.0.downsample.0");
  SUBCASE("nested Sequential items") {
    CHECK(scope_module_path("/seq/seq.0/seq.0.1/Relu") == "seq.0.1");
  }
  SUBCASE("prefix must end at a dot") {
    CHECK(scope_module_path("/layer/layer1/Relu") == "layer.layer1");
  }
}

TEST_CASE("items of an uncalled container keep their index") {
  CHECK(scope_module_path("/features.0/Conv") == "features.0");
  CHECK(scope_module_path("/blocks.3/mlp/fc1/Gemm") == "blocks.3.mlp.fc1");
}

TEST_CASE("names without a scope are not assigned") {
  CHECK_FALSE(scope_module_path("Constant_12"));
  CHECK_FALSE(scope_module_path("/Constant"));
  CHECK_FALSE(scope_module_path("/MatMul_3"));
  CHECK_FALSE(scope_module_path(""));
  CHECK_FALSE(scope_module_path("/"));
  CHECK_FALSE(scope_module_path("onnx::Add_5"));
}

TEST_CASE("a slash and an op name is the root's own forward") {
  CHECK(mx::scope::is_root_scope_name("/Mul_3"));
  CHECK(mx::scope::is_root_scope_name("/Constant"));
  CHECK_FALSE(mx::scope::is_root_scope_name("Constant_12"));
  CHECK_FALSE(mx::scope::is_root_scope_name("/encoder/MatMul"));
  CHECK_FALSE(mx::scope::is_root_scope_name("/"));
  CHECK_FALSE(mx::scope::is_root_scope_name("/a b"));
  CHECK_FALSE(mx::scope::is_root_scope_name("onnx::Add_5"));
}

TEST_CASE("malformed scopes are not assigned") {
  CHECK_FALSE(scope_module_path("//MatMul"));
  CHECK_FALSE(scope_module_path("/encoder//MatMul"));
  CHECK_FALSE(scope_module_path("/enc oder/MatMul"));
  CHECK_FALSE(scope_module_path("/layer..0/MatMul"));
}

TEST_CASE("op suffixes and scoped constants") {
  CHECK(scope_module_path("/encoder/layer.0/attention/self/MatMul_1") == "encoder.layer.0.attention.self");
  CHECK(scope_module_path("/embeddings/Constant_2") == "embeddings");
}
