// The save's bytes written straight from the model (model/tagged_bytes) are
// the bytes of the oracle (tagged_copy.hpp: a tagged copy, then protobuf):
// for each tag storage, on fresh nodes, on nodes that already carry our
// entries, foreign entries, other unknown fields or a doc_string of ours,
// and with fields and unknown fields at every level around the nodes.
#include <doctest/doctest.h>

#include <climits>
#include <stdexcept>
#include <string_view>

#include "fixture_model.hpp"
#include "model/model.hpp"
#include "model/node_metadata.hpp"
#include "model/onnx_io.hpp"
#include "model/tag_storage.hpp"
#include "model/tagged_bytes.hpp"
#include "tagged_copy.hpp"
#include "test_support.hpp"

using namespace mx;
using namespace mx::testing;

namespace {

ModelPtr load(const std::string& bytes) {
  mx_model* m = nullptr;
  mx_status* st = mx_model_load_bytes(bytes.data(), bytes.size(), &m);
  REQUIRE_MESSAGE(st == nullptr, mx_status_message(st));
  return adopt(m);
}

ModelPtr tagged(const onnx::ModelProto& proto) {
  auto model = load(proto.SerializeAsString());
  const std::string h = tiny_net_hierarchy();
  REQUIRE(mx_model_set_hierarchy_json(model.get(), h.data(), h.size()) == nullptr);
  return model;
}

void check_same_bytes(const mx_model& model) {
  for (auto storage : {model::TagStorage::metadata, model::TagStorage::doc_string, model::TagStorage::none}) {
    CAPTURE(static_cast<int>(storage));
    const auto direct = model::tagged_bytes(model, storage, INT_MAX);
    REQUIRE(direct.has_value());
    CHECK(*direct == tagged_copy_bytes(model, storage));
  }
}

// TinyNet saved with `storage` and loaded again: its nodes carry our
// entries (or doc_strings) now.
ModelPtr resaved(model::TagStorage storage) {
  auto model = tagged(tiny_net());
  auto bytes = model::tagged_bytes(*model, storage, INT_MAX);
  REQUIRE(bytes.has_value());
  return load(*bytes);
}

}  // namespace

TEST_CASE("tagged bytes equal the tagged copy's") {
  SUBCASE("fresh nodes") {
    check_same_bytes(*tagged(tiny_net()));
  }

  SUBCASE("nodes already carrying our metadata entries") {
    auto model = resaved(model::TagStorage::metadata);
    REQUIRE(model::read_node_metadata(model->proto().graph().node(0)).size() == 4);
    check_same_bytes(*model);
  }

  SUBCASE("nodes carrying a doc_string of ours") {
    auto model = resaved(model::TagStorage::doc_string);
    REQUIRE(model->proto().graph().node(0).doc_string().rfind(model::kDocStringPrefix, 0) == 0);
    check_same_bytes(*model);
  }

  SUBCASE("foreign entries, other unknown fields, fields around the nodes") {
    onnx::ModelProto proto = tiny_net();
    auto* graph = proto.mutable_graph();
    model::write_node_metadata(*graph->mutable_node(0), {{"vendor.key", "kept"}, {"namespace", "theirs"}});
    graph->mutable_node(1)->mutable_unknown_fields()->AddVarint(1000, 7);
    graph->mutable_node(2)->set_doc_string("a doc_string of someone else");
    graph->set_doc_string("graph doc");
    graph->mutable_unknown_fields()->AddLengthDelimited(1001, "graph extension");
    proto.mutable_unknown_fields()->AddVarint(1002, 42);
    proto.set_doc_string("model doc");
    auto* prop = proto.add_metadata_props();
    prop->set_key("vendor.model");
    prop->set_value("kept too");
    auto* stale = proto.add_metadata_props();
    stale->set_key("modelexport.producer");
    stale->set_value("{}");
    check_same_bytes(*tagged(proto));
  }

  SUBCASE("nodes without a record") {
    auto model = tagged(tiny_net());
    model->hierarchy.nodes.pop_back();
    check_same_bytes(*model);
  }

  SUBCASE("no hierarchy at all") {
    check_same_bytes(*load(tiny_net_bytes()));
  }
}

TEST_CASE("tagged bytes: larger than the limit leaves the choice to the caller") {
  auto model = tagged(tiny_net());
  CHECK_FALSE(model::tagged_bytes(*model, model::TagStorage::metadata, 16).has_value());
  const auto whole = model::tagged_bytes(*model, model::TagStorage::metadata, INT_MAX);
  REQUIRE(whole.has_value());
  CHECK(model::tagged_bytes(*model, model::TagStorage::metadata, whole->size()).has_value());
}

TEST_CASE("tagged bytes in pieces: the same bytes, and a failing sink's error") {
  // Pieces smaller than a node make the entries go through the scratch
  // buffer (the stream cannot give them in one piece).
  auto model = tagged(tiny_net());
  const auto whole = model::tagged_bytes(*model, model::TagStorage::metadata, INT_MAX);
  REQUIRE(whole.has_value());
  const model::TaggedBytes bytes(*model, model::TagStorage::metadata);
  for (size_t piece : {size_t{1}, size_t{7}, size_t{64}, size_t{4096}, size_t{8} << 20}) {
    CAPTURE(piece);
    std::string joined;
    size_t calls = 0;
    bytes.write_in_pieces([&](std::string_view p) { joined += p, ++calls; }, piece);
    CHECK(joined == *whole);
    CHECK(calls == (whole->size() + piece - 1) / piece);
  }
  size_t calls = 0;
  auto failing = [&](std::string_view) {
    if (++calls == 3) throw std::runtime_error("disk full");
  };
  CHECK_THROWS_WITH_AS(bytes.write_in_pieces(failing, 16), "disk full", std::runtime_error);
  CHECK(calls == 3);
}
