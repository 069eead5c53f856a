// mx_registry_export / mx_registry_module_tree through a fake C frontend.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "mx/onnx_proto.hpp"

#include "scoped_model.hpp"
#include "test_support.hpp"

using nlohmann::json;

TEST_CASE("export loads the frontend's ONNX bytes and stores its hierarchy") {
  mx_registry* r = registry_with(json{{"discover", false}, {"plugin_dirs", {MX_TEST_GOOD_DIR}}});
  mx_model* source = make_scoped_model();
  const std::string path = "test_frontend_model.onnx";
  REQUIRE_OK(mx_model_save_file(source, path.c_str(), "{\"sidecar\":false}"));
  mx_model_release(source);

  mx_model* out = nullptr;
  REQUIRE_OK(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x:float32[2,2]\"]}", &out));
  REQUIRE(out != nullptr);
  CHECK(mx_model_node_count(out) == 8);
  json doc = hierarchy_of(out);
  CHECK(doc["modules"][0]["class"] == "FakeNet");
  mx_model_release(out);

  SUBCASE("export options are strict") {
    // "inputs" is optional (a .pt2 program knows its inputs; a frontend
    // that needs them says so), but must be a list of specs
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":\"x\"}", &out)) ==
          "invalid_argument: \"inputs\" must be an array of input specs");
    // no frontend named: each is asked "probe"; the fake one does not know
    // the operation, which counts as "not mine"
    CHECK(status_text(mx_registry_export(r, nullptr, path.c_str(), "{}", &out))
              .find("unsupported: no frontend reads") == 0);
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"],\"opset\":99}", &out))
              .find("invalid_argument: \"opset\"") == 0);
    CHECK(status_text(mx_registry_export(r, "fake", "/nonexistent.pt", "{\"inputs\":[\"x\"]}", &out))
              .find("io: ") == 0);
    CHECK(status_text(mx_registry_export(r, "good", path.c_str(), "{\"inputs\":[\"x\"]}", &out)) ==
          "not_found: no frontend plugin named 'good' (available: fake)");
  }
  SUBCASE("module tree") {
    char* text = nullptr;
    size_t size = 0;
    REQUIRE_OK(mx_registry_module_tree(r, "fake", path.c_str(), &text, &size));
    CHECK(take_json(text, size)["modules"][0]["class"] == "FakeNet");
  }
  std::remove(path.c_str());
  mx_registry_release(r);
}

// docs/plugin-protocol.md, "Large models": the host passes a private
// output_dir, the frontend answers "onnx_file" instead of bytes.
TEST_CASE("export loads a frontend's answer file from output_dir, then removes the directory") {
  mx_registry* r = registry_with(json{{"discover", false}, {"plugin_dirs", {MX_TEST_GOOD_DIR}}});
  mx_model* source = make_scoped_model();
  const std::string path = "test_frontend_external.onnx";
  REQUIRE_OK(mx_model_save_file(source, path.c_str(), "{\"sidecar\":false}"));
  mx_model_release(source);
  char templ[] = "/tmp/mx-test-tmpdir-XXXXXX";
  REQUIRE(mkdtemp(templ) != nullptr);
  const std::string tmpdir = templ;
  const char* old = std::getenv("TMPDIR");
  const std::string old_tmpdir = old ? old : "";
  setenv("TMPDIR", tmpdir.c_str(), 1);
  auto empty = [&] { return std::filesystem::is_empty(tmpdir); };

  mx_model* out = nullptr;
  SUBCASE("answer file") {
    REQUIRE_OK(mx_registry_export(r, "fake", path.c_str(),
                                  "{\"inputs\":[\"x:float32[2,2]\"],\"external_data\":true}", &out));
    CHECK(mx_model_node_count(out) == 8);
    json doc = hierarchy_of(out);
    CHECK(doc["modules"][0]["class"] == "FakeNet");
    CHECK_FALSE(doc.contains("onnx_file"));
    CHECK(empty());
    mx_model_release(out);
  }
  SUBCASE("external_data must be a boolean") {
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(),
                                         "{\"inputs\":[\"x\"],\"external_data\":\"yes\"}", &out)) ==
          "invalid_argument: \"external_data\" must be true or false");
  }
  SUBCASE("fold_batch_norms must be a boolean") {
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(),
                                         "{\"inputs\":[\"x\"],\"fold_batch_norms\":1}", &out)) ==
          "invalid_argument: \"fold_batch_norms\" must be true or false");
  }
  SUBCASE("state_outputs must be a boolean") {
    CHECK(status_text(mx_registry_export(r, "fake", path.c_str(),
                                         "{\"inputs\":[\"x\"],\"state_outputs\":\"no\"}", &out)) ==
          "invalid_argument: \"state_outputs\" must be true or false");
  }
  SUBCASE("an answer file outside output_dir is a bad answer") {
    const std::string outside = "test_frontend_outside.onnx";
    std::filesystem::copy_file(path, outside, std::filesystem::copy_options::overwrite_existing);
    const std::string abs = std::filesystem::absolute(outside).string();
    std::string text = status_text(
        mx_registry_export(r, "fake", outside.c_str(), "{\"inputs\":[\"x\"],\"external_data\":true}", &out));
    CHECK(text.find("plugin: plugin 'fake' answered badly: \"onnx_file\" '" + abs +
                    "' is not a file of the output_dir") == 0);
    CHECK(empty());
    std::remove(outside.c_str());
  }
  SUBCASE("no usable TMPDIR: no output_dir, the frontend says so") {
    setenv("TMPDIR", (tmpdir + "/missing").c_str(), 1);
    std::string text = status_text(
        mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"],\"external_data\":true}", &out));
    CHECK(text == "unsupported: plugin 'fake' failed: external data without output_dir");
  }
  if (old) setenv("TMPDIR", old_tmpdir.c_str(), 1);
  else unsetenv("TMPDIR");
  std::filesystem::remove_all(tmpdir);
  std::remove(path.c_str());
  mx_registry_release(r);
}

// docs/plugin-protocol.md, "Weights by reference": an answer may refer to
// the model file it was asked to export, and to nothing else.
TEST_CASE("export refuses an answer whose weights refer to a file other than the source") {
  mx_registry* r = registry_with(json{{"discover", false}, {"plugin_dirs", {MX_TEST_GOOD_DIR}}});
  // The fake frontend answers the bytes of its model file: make that a model
  // whose initializer W refers to elsewhere.data (16 bytes, present).
  mx_model* source = make_scoped_model();
  void* bytes = nullptr;
  size_t size = 0;
  REQUIRE_OK(mx_model_save_bytes(source, "{}", &bytes, &size));
  mx_model_release(source);
  onnx::ModelProto proto;
  REQUIRE(proto.ParseFromArray(bytes, static_cast<int>(size)));
  mx_free(bytes);
  onnx::TensorProto* w = nullptr;
  for (auto& t : *proto.mutable_graph()->mutable_initializer())
    if (t.name() == "W") w = &t;
  REQUIRE(w != nullptr);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair{"location", "elsewhere.data"}, {"offset", "0"}, {"length", "16"}}) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  const std::string path = "test_frontend_reference.onnx";
  std::ofstream(path, std::ios::binary) << proto.SerializeAsString();
  std::ofstream("elsewhere.data", std::ios::binary) << std::string(16, '\0');

  mx_model* out = nullptr;
  const std::string abs = std::filesystem::absolute(path).lexically_normal().string();
  // (and to files of the request's output_dir: the next test case)
  CHECK(status_text(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out))
            .find("plugin: plugin 'fake' answered badly: bytes: tensor 'W' external data: refers to "
                  "'elsewhere.data'; "
                  "an export may refer only to its source '" +
                  abs + "' and to files of its output_dir '") == 0);
  CHECK(out == nullptr);
  std::remove(path.c_str());
  std::remove("elsewhere.data");
  mx_registry_release(r);
}

// docs/plugin-protocol.md, "output_dir_references": an answer by reference
// may also name regular files directly inside the request's output_dir
// (weights the frontend rewrote); the model keeps them open once the
// directory is gone. Not a symlink there, not a file in a subdirectory.
TEST_CASE("export takes weights by reference from a file of output_dir, and nothing around it") {
  mx_registry* r = registry_with(json{{"discover", false}, {"plugin_dirs", {MX_TEST_GOOD_DIR}}});
  char templ[] = "/tmp/mx-test-tmpdir-XXXXXX";
  REQUIRE(mkdtemp(templ) != nullptr);
  const std::string tmpdir = templ;
  const char* old = std::getenv("TMPDIR");
  const std::string old_tmpdir = old ? old : "";
  setenv("TMPDIR", tmpdir.c_str(), 1);
  // The fake frontend replaces "@@@@@@" by the random part of output_dir.
  const std::string dir = tmpdir + "/modelexport-export-" + std::to_string(::getpid()) + "-@@@@@@";
  const std::string weight(16, '\x3f');  // 4 floats of 0.74..., W's shape

  using Entries = std::vector<std::pair<std::string, std::string>>;
  auto model_referring_to = [&](const std::string& path, const std::string& location,
                                const Entries& derivation = {}, const std::string& data = "") {
    mx_model* source = make_scoped_model();
    void* bytes = nullptr;
    size_t size = 0;
    REQUIRE_OK(mx_model_save_bytes(source, "{}", &bytes, &size));
    mx_model_release(source);
    onnx::ModelProto proto;
    REQUIRE(proto.ParseFromArray(bytes, static_cast<int>(size)));
    mx_free(bytes);
    for (auto& t : *proto.mutable_graph()->mutable_initializer()) {
      if (t.name() != "W") continue;
      t.clear_float_data();
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      for (auto [k, v] :
           {std::pair<std::string, std::string>{"location", location}, {"offset", "0"}, {"length", "16"}}) {
        auto* e = t.add_external_data();
        e->set_key(k);
        e->set_value(v);
      }
      for (const auto& [k, v] : derivation) {
        auto* e = t.add_external_data();
        e->set_key(k);
        e->set_value(v);
      }
    }
    std::ofstream(path, std::ios::binary) << proto.SerializeAsString();
    std::ofstream(path + ".outdir", std::ios::binary) << (data.empty() ? weight : data);
  };
  // W = [[1, 2], [3, 4]] as the frontend's file holds it.
  const float w_values[] = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::string w_bytes(reinterpret_cast<const char*>(w_values), sizeof w_values);
  auto floats = [](const std::string& raw) {
    std::vector<float> v(raw.size() / sizeof(float));
    std::memcpy(v.data(), raw.data(), v.size() * sizeof(float));
    return v;
  };
  auto raw_w = [](mx_model* m) {
    void* bytes = nullptr;
    size_t size = 0;
    REQUIRE_OK(mx_model_save_bytes(m, "{}", &bytes, &size));
    onnx::ModelProto proto;
    REQUIRE(proto.ParseFromArray(bytes, static_cast<int>(size)));
    mx_free(bytes);
    for (const auto& t : proto.graph().initializer())
      if (t.name() == "W") return t.raw_data();
    return std::string();
  };

  mx_model* out = nullptr;
  std::string path;
  SUBCASE("a file directly inside output_dir") {
    path = "test_frontend_outdir.onnx";
    model_referring_to(path, dir + "/permuted.data");
    REQUIRE_OK(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out));
    CHECK(std::filesystem::is_empty(tmpdir));  // output_dir gone, the file still open
    CHECK(raw_w(out) == weight);
    mx_model_release(out);
  }
  // "derived_references": the save derives the tensor from its source bytes.
  SUBCASE("a transposed reference is written transposed") {
    path = "test_frontend_outdir_perm.onnx";
    model_referring_to(path, dir + "/permuted.data", {{"modelexport_permutation", "1,0"}}, w_bytes);
    REQUIRE_OK(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out));
    CHECK(floats(raw_w(out)) == std::vector<float>{1.0f, 3.0f, 2.0f, 4.0f});
    mx_model_release(out);
  }
  SUBCASE("a channel-scaled reference is written scaled") {
    path = "test_frontend_outdir_scale.onnx";
    model_referring_to(path, dir + "/permuted.data", {{"modelexport_channel_scale", "0x1p+1,-0x1p-1"}},
                       w_bytes);
    REQUIRE_OK(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out));
    CHECK(floats(raw_w(out)) == std::vector<float>{2.0f, 4.0f, -1.5f, -2.0f});
    mx_model_release(out);
  }
  SUBCASE("a derivation that does not fit the tensor is refused, naming it") {
    path = "test_frontend_outdir_badperm.onnx";
    for (const auto& [entries, message] : std::vector<std::pair<Entries, std::string>>{
             {{{"modelexport_permutation", "0,0"}}, "a perm that is not a permutation of the dims"},
             {{{"modelexport_permutation", "1,0,2"}}, "has 3 dims; the tensor has 2"},
             {{{"modelexport_permutation", "1, 0"}}, "is not a list of dims"},
             {{{"modelexport_channel_scale", "0x1p+0"}}, "has 1 values; the tensor's dim 0 is 2"},
             {{{"modelexport_channel_scale", "one,two"}}, "is not a list of hexadecimal floats"},
             {{{"modelexport_permutation", "1,0"}, {"modelexport_channel_scale", "0x1p+0,0x1p+0"}},
              "both a permutation and a channel scale"}}) {
      CAPTURE(message);
      model_referring_to(path, dir + "/permuted.data", entries, w_bytes);
      const std::string text =
          status_text(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out));
      CHECK(text.find("plugin: plugin 'fake' answered badly: bytes: tensor 'W' external data: ") == 0);
      CHECK(text.find(message) != std::string::npos);
      CHECK(out == nullptr);
    }
  }
  SUBCASE("a symlink in output_dir is not followed") {
    path = "test_frontend_outdir_symlink.onnx";
    model_referring_to(path, dir + "/permuted.data");
    const std::string text =
        status_text(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out));
    CHECK(text.find("plugin: plugin 'fake' answered badly: bytes: tensor 'W' external data: cannot open '") ==
          0);
    CHECK(out == nullptr);
  }
  SUBCASE("a file in a subdirectory of output_dir is refused") {
    path = "test_frontend_outdir_sub.onnx";
    model_referring_to(path, dir + "/sub/permuted.data");
    const std::string text =
        status_text(mx_registry_export(r, "fake", path.c_str(), "{\"inputs\":[\"x\"]}", &out));
    CHECK(text.find("plugin: plugin 'fake' answered badly: bytes: tensor 'W' external data: refers to '") ==
          0);
    CHECK(text.find("an export may refer only to its source") != std::string::npos);
    CHECK(out == nullptr);
  }
  CHECK(std::filesystem::is_empty(tmpdir));
  if (old) setenv("TMPDIR", old_tmpdir.c_str(), 1);
  else unsetenv("TMPDIR");
  std::filesystem::remove_all(tmpdir);
  std::remove(path.c_str());
  std::remove((path + ".outdir").c_str());
  mx_registry_release(r);
}
