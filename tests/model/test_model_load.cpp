// Loading: every kind of bad input gives a clear error naming the file.
#include <doctest/doctest.h>

#include <fstream>

#include "fixture_model.hpp"
#include "test_support.hpp"

using namespace mx::testing;

namespace {
void write(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}
Outcome load(const std::string& path) {
  mx_model* m = nullptr;
  Outcome o = outcome(mx_model_load_file(path.c_str(), &m));
  CHECK(m == nullptr);
  return o;
}
}  // namespace

TEST_CASE("load: bad files") {
  ScratchDir dir;
  SUBCASE("missing file") {
    auto o = load(dir.file("bert.onnx"));
    CHECK(o.code == MX_ERR_IO);
    CHECK(o.message == dir.file("bert.onnx") + ": no such file");
  }
  SUBCASE("directory") {
    auto o = load(dir.file(""));
    CHECK(o.code == MX_ERR_IO);
    CHECK(o.message.find("is a directory") != std::string::npos);
  }
  SUBCASE("empty file") {
    write(dir.file("empty.onnx"), "");
    auto o = load(dir.file("empty.onnx"));
    CHECK(o.code == MX_ERR_PARSE);
    CHECK(o.message == dir.file("empty.onnx") + ": empty file (0 bytes), not an ONNX model");
  }
  SUBCASE("not protobuf") {
    write(dir.file("text.onnx"), "this is plain text, not a model\n\xff\xff\xff");
    auto o = load(dir.file("text.onnx"));
    CHECK(o.code == MX_ERR_PARSE);
    CHECK(o.message.find("text.onnx: not an ONNX model") != std::string::npos);
  }
  SUBCASE("truncated") {
    const std::string bytes = tiny_net_bytes();
    write(dir.file("cut.onnx"), bytes.substr(0, bytes.size() - 7));
    auto o = load(dir.file("cut.onnx"));
    CHECK(o.code == MX_ERR_PARSE);
    CHECK(o.message.find("cut.onnx: not an ONNX model (protobuf parse failed at byte") ==
          0 + dir.file("").size());
  }
  SUBCASE("protobuf without a graph") {
    onnx::ModelProto m;
    m.set_ir_version(8);
    write(dir.file("nograph.onnx"), m.SerializeAsString());
    auto o = load(dir.file("nograph.onnx"));
    CHECK(o.code == MX_ERR_PARSE);
    CHECK(o.message.find("valid protobuf but no graph") != std::string::npos);
  }
  SUBCASE("corrupt sidecar names the sidecar") {
    write(dir.file("m.onnx"), tiny_net_bytes());
    write(dir.file("m.hierarchy.json"), "{\"schema\": \"modelexport.hierarchy/1\", \"modules\": 3}");
    auto o = load(dir.file("m.onnx"));
    CHECK(o.code == MX_ERR_SCHEMA);
    CHECK(o.message == dir.file("m.hierarchy.json") + ": modules: must be array, got number");
  }
}

TEST_CASE("load: bytes") {
  const std::string bytes = tiny_net_bytes();
  mx_model* m = nullptr;
  SUBCASE("valid") {
    REQUIRE(mx_model_load_bytes(bytes.data(), bytes.size(), &m) == nullptr);
    auto model = adopt(m);
    CHECK(mx_model_node_count(m) == 3);
    CHECK(mx_model_has_hierarchy(m) == 0);
  }
  SUBCASE("NULL arguments") {
    CHECK(outcome(mx_model_load_bytes(bytes.data(), bytes.size(), nullptr)).code == MX_ERR_INVALID_ARGUMENT);
    CHECK(outcome(mx_model_load_bytes(nullptr, 10, &m)).code == MX_ERR_INVALID_ARGUMENT);
    CHECK(outcome(mx_model_load_file(nullptr, &m)).message == "path must not be NULL");
  }
  SUBCASE("zero bytes") {
    auto o = outcome(mx_model_load_bytes(nullptr, 0, &m));
    CHECK(o.code == MX_ERR_PARSE);
    CHECK(o.message == "bytes: empty file (0 bytes), not an ONNX model");
  }
}
