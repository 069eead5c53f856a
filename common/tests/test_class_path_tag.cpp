#include <doctest/doctest.h>

#include "mx/common/class_path_tag.hpp"

using namespace mx::common;

TEST_CASE("a tag component is the class, with the item's index") {
  CHECK(tag_component({"", "BertModel", "", {}, {}}, false) == "/BertModel");
  CHECK(tag_component({"encoder.layer.0", "BertLayer", "", true, false}, false) == "/BertLayer.0");
  CHECK(tag_component({"encoder.layer", "ModuleList", "", {}, {}}, false).empty());
}

TEST_CASE("a container adds nothing unless it ran") {
  // A frontend that knows what a container is.
  CHECK(is_silent_container({"blocks", "Blocks", "", false, true}));
  CHECK_FALSE(is_silent_container({"blocks", "Blocks", "", true, true}));
  CHECK_FALSE(is_silent_container({"mlp", "Mlp", "", false, false}));
  // A document alone: the class name decides.
  CHECK(is_silent_container({"layers", "ModuleList", "", {}, {}}));
  CHECK_FALSE(is_silent_container({"layers", "ModuleDict", "", true, {}}));
  CHECK_FALSE(is_silent_container({"seq", "Sequential", "", {}, {}}));
  CHECK(is_silent_container({"seq", "Sequential", "", false, {}}));
}

TEST_CASE("built-ins are left out on request, never the root") {
  const TagLevel linear{"fc", "Linear", "torch.nn.modules.linear.Linear", true, false};
  CHECK(tag_component(linear, false) == "/Linear");
  CHECK(tag_component(linear, true).empty());
  CHECK(tag_component({"", "Sequential", "torch.nn.modules.container.Sequential", true, true}, true) ==
        "/Sequential");
  CHECK_FALSE(is_builtin_class("torchvision.models.resnet.ResNet"));
}
