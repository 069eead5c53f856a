#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "mx/common/derivation_text.hpp"
#include "mx/common/onnx_element_size.hpp"

using namespace mx::common;

TEST_CASE("derivation text: a permutation round-trips; anything else is refused") {
  CHECK(permutation_text({1, 0}) == "1,0");
  CHECK(parse_permutation("2,0,1") == std::vector<int64_t>{2, 0, 1});
  for (const char* bad : {"", ",", "1,", ",1", "1, 0", "-1,0", "1;0", "0x1", "1234567890123456789"})
    CHECK_MESSAGE(!parse_permutation(bad), bad);
}

TEST_CASE("derivation text: channel scales round-trip bit for bit") {
  const std::vector<float> v{
      1.5f, -0.1f, 3.4028235e38f, 1e-45f, 0.0f, -0.0f, std::numeric_limits<float>::infinity()};
  auto back = parse_channel_scale(channel_scale_text(v));
  REQUIRE(back);
  REQUIRE(back->size() == v.size());
  CHECK(std::memcmp(back->data(), v.data(), v.size() * sizeof(float)) == 0);
  for (const char* bad : {"", "0x1p+0,", " 0x1p+0", "0x1p+0 ", "one", "0x1p+0,,0x1p+0"})
    CHECK_MESSAGE(!parse_channel_scale(bad), bad);
}

TEST_CASE("onnx element size: the fixed-size types by their onnx.proto number") {
  CHECK(onnx_element_size(1) == 4);    // FLOAT
  CHECK(onnx_element_size(7) == 8);    // INT64
  CHECK(onnx_element_size(9) == 1);    // BOOL
  CHECK(onnx_element_size(10) == 2);   // FLOAT16
  CHECK(onnx_element_size(16) == 2);   // BFLOAT16
  CHECK(onnx_element_size(14) == 8);   // COMPLEX64
  CHECK(onnx_element_size(15) == 16);  // COMPLEX128
  CHECK(onnx_element_size(17) == 1);   // FLOAT8E4M3FN
  CHECK(onnx_element_size(0) == 0);    // UNDEFINED
  CHECK(onnx_element_size(8) == 0);    // STRING
  CHECK(onnx_element_size(22) == 0);   // INT4: packed
  CHECK(onnx_element_size(999) == 0);
}
