// Unit tests of the dynamo scope parsing (name_scopes lists and namespace).
#include <doctest/doctest.h>

#include "dynamo_scope.hpp"

using namespace mx::metadata;

TEST_CASE("name_scopes + class_hierarchy give full paths and classes") {
  auto chain =
      chain_from_lists({"", "layers.0", "layers.0.attention", "layers.0.attention.query", "linear"},
                       {"__main__.MiniTransformer", "__main__.TransformerBlock", "__main__.Attention",
                        "torch.nn.modules.linear.Linear", "aten.linear.default"});
  REQUIRE(chain.ok);
  REQUIRE(chain.modules.size() == 4);  // the FX node entry is dropped
  CHECK(chain.modules.back().path == "layers.0.attention.query");
  CHECK(chain.modules.back().qualified_class == "torch.nn.modules.linear.Linear");
  CHECK(chain.modules.front().path == "");
}

TEST_CASE("a node directly under the root") {
  auto chain = chain_from_lists({"", "add"}, {"__main__.M", "aten.add.Tensor"});
  REQUIRE(chain.ok);
  REQUIRE(chain.modules.size() == 1);
  CHECK(chain.modules[0].path == "");
}

TEST_CASE("lists that are not a module stack are refused") {
  CHECK_FALSE(chain_from_lists({}, {}).ok);
  CHECK_FALSE(chain_from_lists({"linear"}, {}).ok);          // node only
  CHECK_FALSE(chain_from_lists({"x", "linear"}, {}).ok);     // no root first
  CHECK_FALSE(chain_from_lists({"", "", "linear"}, {}).ok);  // empty inner path
  CHECK_FALSE(chain_from_lists({"", "a/b", "n"}, {}).ok);    // not a path
  CHECK_FALSE(chain_from_lists({"", "a.", "n"}, {}).ok);
  auto mismatch = chain_from_lists({"", "a", "n"}, {"M", "n"});
  CHECK_FALSE(mismatch.ok);
  CHECK(mismatch.error.find("class_hierarchy") != std::string::npos);
}

TEST_CASE("namespace strings") {
  SUBCASE("real value from a torch 2.15 export") {
    auto chain = chain_from_namespace(
        ": __main__.SmallCNN/stem: torch.nn.modules.container.Sequential/"
        "stem.0: torch.nn.modules.conv.Conv2d/conv2d: aten.conv2d.default");
    REQUIRE(chain.ok);
    REQUIRE(chain.modules.size() == 3);
    CHECK(chain.modules[0].qualified_class == "__main__.SmallCNN");
    CHECK(chain.modules[2].path == "stem.0");
    CHECK(chain.modules[2].qualified_class == "torch.nn.modules.conv.Conv2d");
  }
  SUBCASE("root only") {
    auto chain = chain_from_namespace(": __main__.M/add: aten.add.Tensor");
    REQUIRE(chain.ok);
    CHECK(chain.modules.size() == 1);
  }
  SUBCASE("malformed") {
    const char* bad[] = {"",          ":",         "no colon here",   ": M",
                         "a: M/b: N", ": M//x: y", ": M/a b: N/n: t", "garbage/: x"};
    for (const char* text : bad) {
      CAPTURE(text);
      auto chain = chain_from_namespace(text);
      CHECK_FALSE(chain.ok);
      CHECK_FALSE(chain.error.empty());
    }
  }
}

TEST_CASE("short class names") {
  CHECK(short_class("torch.nn.modules.conv.Conv2d") == "Conv2d");
  CHECK(short_class("Plain") == "Plain");
  CHECK(short_class("") == "");
}
