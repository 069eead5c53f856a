// A model's proto lives in an arena of its own (model/model.hpp): loads
// parse into it, and swap_proto exchanges two models' protos without a copy
// (how the functions pass publishes the copy it worked on).
#include <doctest/doctest.h>

#include "fixture_model.hpp"
#include "model/model.hpp"
#include "model/persistence.hpp"

using namespace mx;

TEST_CASE("model arena: a loaded model's proto is parsed into the model's arena") {
  const std::string bytes = testing::tiny_net().SerializeAsString();
  const std::unique_ptr<mx_model> model = model::load_model_bytes(bytes);
  REQUIRE(model != nullptr);
  CHECK(model->proto().GetArena() != nullptr);
  // Its nodes and their strings were allocated there too, not copied in.
  CHECK(model->proto().graph().GetArena() == model->proto().GetArena());
  CHECK(model->proto().graph().node_size() == testing::tiny_net().graph().node_size());
  CHECK(model->proto().SerializeAsString() == bytes);
}

TEST_CASE("model arena: each model has its own, and swap_proto exchanges them") {
  mx_model a, b;
  REQUIRE(a.proto().GetArena() != nullptr);
  REQUIRE(b.proto().GetArena() != nullptr);
  CHECK(a.proto().GetArena() != b.proto().GetArena());
  a.proto().set_producer_name("a");
  b.proto().set_producer_name("b");
  const onnx::ModelProto* a_proto = &a.proto();
  const onnx::ModelProto* b_proto = &b.proto();
  a.swap_proto(b);
  // The messages themselves changed hands (no copy: the addresses moved).
  CHECK(&a.proto() == b_proto);
  CHECK(&b.proto() == a_proto);
  CHECK(a.proto().producer_name() == "b");
  CHECK(b.proto().producer_name() == "a");
  // The hierarchy and the other fields stay where they were.
  a.source_path = "a.onnx";
  b.swap_proto(a);
  CHECK(a.source_path == "a.onnx");
  CHECK(a.proto().producer_name() == "a");
}
