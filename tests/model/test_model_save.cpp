// Saving: round trips through each tag storage, atomicity, option checks.
#include <doctest/doctest.h>

#include <fstream>

#include "fixture_model.hpp"
#include "model/node_metadata.hpp"
#include "model/onnx_io.hpp"
#include "test_support.hpp"

using namespace mx;
using namespace mx::testing;

namespace {

ModelPtr tiny_with_hierarchy() {
  const std::string bytes = tiny_net_bytes();
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &m) == nullptr);
  const std::string h = tiny_net_hierarchy();
  REQUIRE(mx_model_set_hierarchy_json(m, h.data(), h.size()) == nullptr);
  return adopt(m);
}

std::string hierarchy_of(const mx_model* m) {
  char* json = nullptr;
  REQUIRE(mx_model_hierarchy_json(m, &json, nullptr) == nullptr);
  return take_text(json);
}

std::string save_bytes(const mx_model* m, const char* options) {
  void* data = nullptr;
  size_t size = 0;
  mx_status* st = mx_model_save_bytes(m, options, &data, &size);
  REQUIRE_MESSAGE(st == nullptr, mx_status_message(st));
  std::string out(static_cast<char*>(data), size);
  mx_free(data);
  return out;
}

ModelPtr load_bytes(const std::string& bytes) {
  mx_model* m = nullptr;
  mx_status* st = mx_model_load_bytes(bytes.data(), bytes.size(), &m);
  REQUIRE_MESSAGE(st == nullptr, mx_status_message(st));
  return adopt(m);
}

}  // namespace

TEST_CASE("save/load round trip per tag storage") {
  auto model = tiny_with_hierarchy();
  const std::string expected = hierarchy_of(model.get());

  SUBCASE("metadata: node field 9 with our keys and a dynamo namespace") {
    const std::string bytes = save_bytes(model.get(), R"({"tag_storage":"metadata"})");
    auto proto = model::parse_onnx(bytes, "t");
    auto entries = model::read_node_metadata(proto.graph().node(0));
    REQUIRE(entries.size() == 4);
    CHECK(entries[0] == std::make_pair(std::string("modelexport.module"), std::string("fc")));
    CHECK(entries[1].second == "/TinyNet/Linear");
    CHECK(entries[2].second == "direct");
    CHECK(entries[3] ==
          std::make_pair(std::string("namespace"), std::string(": __main__.TinyNet/fc: torch.nn.modules."
                                                               "linear.Linear//fc/MatMul: MatMul")));
    CHECK(proto.graph().node(0).doc_string().empty());
    CHECK(hierarchy_of(load_bytes(bytes).get()) == expected);
  }
  SUBCASE("doc_string") {
    const std::string bytes = save_bytes(model.get(), R"({"tag_storage":"doc_string"})");
    auto proto = model::parse_onnx(bytes, "t");
    CHECK(proto.graph().node(2).doc_string() ==
          R"(modelexport:{"module":"act","tag":"/TinyNet/ReLU","evidence":"propagated"})");
    CHECK(model::read_node_metadata(proto.graph().node(2)).empty());
    CHECK(hierarchy_of(load_bytes(bytes).get()) == expected);
  }
  SUBCASE("none strips everything") {
    const std::string bytes = save_bytes(model.get(), R"({"tag_storage":"none"})");
    auto reloaded = load_bytes(bytes);
    CHECK(mx_model_has_hierarchy(reloaded.get()) == 0);
    CHECK(model::parse_onnx(bytes, "t").metadata_props_size() == 0);
  }
}

TEST_CASE("save: re-saving replaces our entries and keeps foreign ones") {
  auto model = tiny_with_hierarchy();
  // Foreign metadata and a stale record of ours on the first node.
  auto* node = model->proto().mutable_graph()->mutable_node(0);
  model::write_node_metadata(
      *node,
      {{"pkg.torch.onnx.name_scopes", "['', 'fc']"}, {"modelexport.module", "stale"}, {"namespace", "old"}});
  const std::string first = save_bytes(model.get(), nullptr);
  auto reloaded = load_bytes(first);
  const std::string second = save_bytes(reloaded.get(), nullptr);
  CHECK(first == second);
  auto entries = model::read_node_metadata(model::parse_onnx(second, "t").graph().node(0));
  REQUIRE(entries.size() == 5);
  CHECK(entries[0].first == "pkg.torch.onnx.name_scopes");
  int namespaces = 0;
  for (auto& e : entries) namespaces += e.first == "namespace";
  CHECK(namespaces == 1);
  SUBCASE("switching to doc_string removes the metadata copy") {
    auto proto = model::parse_onnx(save_bytes(reloaded.get(), R"({"tag_storage":"doc_string"})"), "t");
    auto after = model::read_node_metadata(proto.graph().node(0));
    for (auto& e : after) CHECK(e.first.rfind("modelexport.", 0) != 0);
  }
}

TEST_CASE("save file: sidecar and atomicity") {
  ScratchDir dir;
  auto model = tiny_with_hierarchy();
  const std::string expected = hierarchy_of(model.get());

  SUBCASE("writes out.onnx and out.hierarchy.json, nothing else") {
    REQUIRE(mx_model_save_file(model.get(), dir.file("out.onnx").c_str(), nullptr) == nullptr);
    auto names = dir.entries();
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"out.hierarchy.json", "out.onnx"});
    mx_model* m = nullptr;
    REQUIRE(mx_model_load_file(dir.file("out.onnx").c_str(), &m) == nullptr);
    CHECK(hierarchy_of(adopt(m).get()) == expected);
  }
  SUBCASE("storage none: the sidecar alone restores the hierarchy") {
    REQUIRE(mx_model_save_file(model.get(), dir.file("s.onnx").c_str(), R"({"tag_storage":"none"})") ==
            nullptr);
    mx_model* m = nullptr;
    REQUIRE(mx_model_load_file(dir.file("s.onnx").c_str(), &m) == nullptr);
    CHECK(hierarchy_of(adopt(m).get()) == expected);
  }
  SUBCASE("sidecar false") {
    REQUIRE(mx_model_save_file(model.get(), dir.file("n.onnx").c_str(), R"({"sidecar":false})") == nullptr);
    CHECK(dir.entries() == std::vector<std::string>{"n.onnx"});
  }
  SUBCASE("non-existent directory fails and leaves nothing") {
    auto o = outcome(mx_model_save_file(model.get(), dir.file("no/such/dir/x.onnx").c_str(), nullptr));
    CHECK(o.code == MX_ERR_IO);
    CHECK(o.message.find("x.onnx: cannot create file") != std::string::npos);
    CHECK(dir.entries().empty());
  }
  SUBCASE("a model failing the checker leaves no file") {
    const std::string bad = invalid_net().SerializeAsString();
    mx_model* m = nullptr;
    REQUIRE(mx_model_load_bytes(bad.data(), bad.size(), &m) == nullptr);
    auto bad_model = adopt(m);
    auto o = outcome(mx_model_save_file(m, dir.file("bad.onnx").c_str(), nullptr));
    CHECK(o.code == MX_ERR_SCHEMA);
    CHECK(o.message.find("broken_relu") != std::string::npos);
    CHECK(dir.entries().empty());
    SUBCASE("unless check is off") {
      CHECK(mx_model_save_file(m, dir.file("bad.onnx").c_str(), R"({"check":false})") == nullptr);
    }
  }
  SUBCASE("an existing file is replaced whole") {
    std::ofstream(dir.file("r.onnx")) << "old content";
    REQUIRE(mx_model_save_file(model.get(), dir.file("r.onnx").c_str(), nullptr) == nullptr);
    mx_model* m = nullptr;
    CHECK(mx_model_load_file(dir.file("r.onnx").c_str(), &m) == nullptr);
    mx_model_release(m);
  }
}

TEST_CASE("save: checked and unchecked saves write the same bytes") {
  // A checked save parses the encoder's bytes back into a proto for the
  // checker and serializes that: the bytes must be the encoder's.
  auto model = tiny_with_hierarchy();
  for (const char* storage : {"metadata", "doc_string", "none"}) {
    CAPTURE(storage);
    const std::string unchecked =
        save_bytes(model.get(), (std::string(R"({"check":false,"tag_storage":")") + storage + "\"}").c_str());
    const std::string checked =
        save_bytes(model.get(), (std::string(R"({"check":true,"tag_storage":")") + storage + "\"}").c_str());
    CHECK(checked == unchecked);
    // Once more from what was saved: its nodes carry our entries now.
    auto again = load_bytes(checked);
    CHECK(save_bytes(again.get(), R"({"check":true})") == save_bytes(again.get(), R"({"check":false})"));
  }
}

TEST_CASE("save options are strict") {
  auto model = tiny_with_hierarchy();
  void* data = nullptr;
  size_t size = 0;
  SUBCASE("unknown key") {
    auto o = outcome(mx_model_save_bytes(model.get(), R"({"tag_storge":"none"})", &data, &size));
    CHECK(o.code == MX_ERR_INVALID_ARGUMENT);
    CHECK(o.message.find("unknown option 'tag_storge'") != std::string::npos);
  }
  SUBCASE("bad value") {
    auto o = outcome(mx_model_save_bytes(model.get(), R"({"tag_storage":"xml"})", &data, &size));
    CHECK(o.message == "tag_storage: 'xml' is not one of metadata|doc_string|none");
  }
  SUBCASE("malformed JSON") {
    CHECK(outcome(mx_model_save_bytes(model.get(), "{", &data, &size)).code == MX_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("wrong type") {
    auto o = outcome(mx_model_save_bytes(model.get(), R"({"check":"yes"})", &data, &size));
    CHECK(o.message == "option 'check' must be true or false");
  }
  CHECK(data == nullptr);
}
