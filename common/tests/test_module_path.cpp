#include <doctest/doctest.h>

#include "mx/common/module_path.hpp"

using namespace mx::common;

TEST_CASE("module path syntax") {
  CHECK(is_valid_module_path(""));
  CHECK(is_valid_module_path("encoder.layer.0.attention"));
  CHECK(is_valid_module_path("blocks.0.mlp-fc"));
  CHECK_FALSE(is_valid_module_path("."));
  CHECK_FALSE(is_valid_module_path("a..b"));
  CHECK_FALSE(is_valid_module_path("a."));
  CHECK_FALSE(is_valid_module_path(".a"));
  CHECK_FALSE(is_valid_module_path("a/b"));
  CHECK_FALSE(is_valid_module_path("a b"));
  CHECK_FALSE(is_valid_module_path("a\nb"));
  CHECK_FALSE(is_valid_module_path("a\tb"));
  CHECK(is_valid_module_path("caf\xc3\xa9"));  // bytes above 0x7f are kept
}

TEST_CASE("ancestry") {
  CHECK(is_ancestor_or_self("", "a.b"));
  CHECK(is_ancestor_or_self("a", "a.b"));
  CHECK(is_ancestor_or_self("a.b", "a.b"));
  CHECK_FALSE(is_ancestor_or_self("a.b", "a"));
  CHECK_FALSE(is_ancestor_or_self("layer1", "layer10"));
  CHECK(common_ancestor("enc.layer.0.q", "enc.layer.0.k") == "enc.layer.0");
  CHECK(common_ancestor("layer1.x", "layer10.x") == "");
  CHECK(common_ancestor("a", "a.b.c") == "a");
  CHECK(parent_path("a.b.c") == "a.b");
  CHECK(parent_path("a") == "");
  CHECK(last_segment("a.b.c") == "c");
  CHECK(path_segments("a.b") == std::vector<std::string>{"a", "b"});
  CHECK(path_segments("").empty());
}

TEST_CASE("join, relative, depth") {
  CHECK(join_path("a", "b.c") == "a.b.c");
  CHECK(join_path("", "x") == "x");
  CHECK(join_path("a", "") == "a");
  CHECK(relative_path("a.b.c", "a") == "b.c");
  CHECK(relative_path("a.b.c", "a.b.c") == "");
  CHECK(relative_path("a.b", "") == "a.b");
  CHECK(path_depth("") == 0);
  CHECK(path_depth("a.b.c") == 3);
  CHECK(last_segment("a") == "a");
  CHECK(common_ancestor("a.b", "a.b") == "a.b");
  CHECK(common_ancestor("", "x") == "");
  CHECK(common_ancestor("x", "") == "");
}
