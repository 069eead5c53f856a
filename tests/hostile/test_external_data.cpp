// External data (TensorProto.data_location = EXTERNAL): loading with path
// checks, saving with "external_data" (explicit or automatic), and the
// hostile references: '../..', absolute paths and symlinks leaving the
// model's directory are MX_ERR_SECURITY, with nothing written.
#include <doctest/doctest.h>

#include <cstring>

#include "mx/onnx_proto.hpp"

#include "fixture_model.hpp"
#include "hostile_support.hpp"

using namespace mx::hostile;

namespace {

constexpr int kDim = 64;  // 64x64 float32 = 16 KiB: above the 1 KiB threshold

std::string weight_bytes() {
  std::string b(kDim * kDim * sizeof(float), '\0');
  for (int i = 0; i < kDim * kDim; ++i) {
    float v = 0.001f * static_cast<float>(i % 997) - 0.3f;
    std::memcpy(&b[static_cast<size_t>(i) * sizeof(float)], &v, sizeof(float));
  }
  return b;
}

// Y = Relu(X @ W), W [64,64]: inline (raw_data) or external (location at
// offset 16 of `location`).
onnx::ModelProto net(const std::string& location = "", const std::string& offset = "16") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("ext");
  for (auto [v, name] : {std::pair{g->add_input(), "X"}, std::pair{g->add_output(), "Y"}}) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    t->mutable_shape()->add_dim()->set_dim_value(kDim);
  }
  auto* w = g->add_initializer();
  w->set_name("fc.weight");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(kDim);
  w->add_dims(kDim);
  if (location.empty()) {
    w->set_raw_data(weight_bytes());
  } else {
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* k, const std::string& v) {
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", offset);
    add("length", std::to_string(weight_bytes().size()));
  }
  auto add_node = [&](const char* name, const char* op, std::vector<std::string> in, const char* out) {
    auto* n = g->add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
  };
  add_node("/fc/MatMul", "MatMul", {"X", "fc.weight"}, "h");
  add_node("/act/Relu", "Relu", {"h"}, "Y");
  return m;
}

void write_model(const fs::path& p, const onnx::ModelProto& m) {
  write(p, m.SerializeAsString());
}

void write_weights(const fs::path& p) {
  write(p, std::string(16, 'x') + weight_bytes());
}

onnx::ModelProto parse(const std::string& bytes) {
  onnx::ModelProto m;
  REQUIRE(m.ParseFromString(bytes));
  return m;
}

const onnx::TensorProto& weight_of(const onnx::ModelProto& m) {
  return m.graph().initializer(0);
}

std::string location_of(const onnx::TensorProto& t) {
  for (const auto& e : t.external_data())
    if (e.key() == "location") return e.value();
  return "";
}

// The weight's bytes, following an external reference relative to `dir`.
std::string weight_data(const onnx::ModelProto& m, const fs::path& dir) {
  const auto& t = weight_of(m);
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return t.raw_data();
  uint64_t offset = 0, length = 0;
  for (const auto& e : t.external_data()) {
    if (e.key() == "offset") offset = std::stoull(e.value());
    if (e.key() == "length") length = std::stoull(e.value());
  }
  return read(dir / location_of(t)).substr(offset, length);
}

Result load_only(const fs::path& p) {
  mx_model* m = nullptr;
  mx_status* s = mx_model_load_file(p.c_str(), &m);
  mx_model_release(m);
  return take(s, "load");
}

}  // namespace

TEST_CASE("external data: load, tag, save keeps it external, bytes inline it") {
  Scratch s("ext_ok");
  write_weights(s.models() / "weights.bin");
  write_model(s.models() / "m.onnx", net("weights.bin"));
  auto r = pipeline(s.models() / "m.onnx", s.out() / "o.onnx");
  REQUIRE_MESSAGE(r.code == MX_OK, r.message);
  CHECK(fs::exists(s.out() / "o.onnx.data"));
  auto saved = parse(read(s.out() / "o.onnx"));
  CHECK(weight_of(saved).data_location() == onnx::TensorProto::EXTERNAL);
  CHECK(location_of(weight_of(saved)) == "o.onnx.data");
  CHECK(weight_data(saved, s.out()) == weight_bytes());

  // Reloaded, saved as bytes: the weights come inline.
  mx_model* m = nullptr;
  REQUIRE(mx_model_load_file((s.out() / "o.onnx").c_str(), &m) == nullptr);
  CHECK(mx_model_check(m) == nullptr);
  void* bytes = nullptr;
  size_t size = 0;
  REQUIRE(mx_model_save_bytes(m, nullptr, &bytes, &size) == nullptr);
  auto inlined = parse(std::string(static_cast<char*>(bytes), size));
  mx_free(bytes);
  CHECK(weight_of(inlined).data_location() == onnx::TensorProto::DEFAULT);
  CHECK(weight_of(inlined).raw_data() == weight_bytes());

  // "external_data": false inlines into the file; no data file.
  REQUIRE(mx_model_save_file(m, (s.out() / "inline.onnx").c_str(), "{\"external_data\":false}") == nullptr);
  CHECK_FALSE(fs::exists(s.out() / "inline.onnx.data"));
  CHECK(weight_of(parse(read(s.out() / "inline.onnx"))).raw_data() == weight_bytes());
  // true with bytes is a usage error.
  mx_status* st = mx_model_save_bytes(m, "{\"external_data\":true}", &bytes, &size);
  CHECK(mx_status_code(st) == MX_ERR_INVALID_ARGUMENT);
  mx_status_release(st);
  mx_model_release(m);
}

TEST_CASE("external data: \"external_data\": true moves large inline weights out") {
  Scratch s("ext_write");
  write_model(s.models() / "m.onnx", net());
  auto r = pipeline(s.models() / "m.onnx", s.out() / "o.onnx", "{\"external_data\":true}");
  REQUIRE_MESSAGE(r.code == MX_OK, r.message);
  auto saved = parse(read(s.out() / "o.onnx"));
  CHECK(weight_of(saved).data_location() == onnx::TensorProto::EXTERNAL);
  CHECK(weight_data(saved, s.out()) == weight_bytes());
  CHECK(fs::file_size(s.out() / "o.onnx") < 4096);
  // Small models without large tensors get no empty data file.
  Scratch t("ext_small");
  write(t.models() / "tiny.onnx", mx::testing::tiny_net_bytes());
  REQUIRE(pipeline(t.models() / "tiny.onnx", t.out() / "o.onnx", "{\"external_data\":true}").code == MX_OK);
  CHECK_FALSE(fs::exists(t.out() / "o.onnx.data"));
}

TEST_CASE("external data: \"external_data_over\" moves a model larger than N out, keeps a smaller one") {
  Scratch s("ext_over");
  write_model(s.models() / "m.onnx", net());
  const auto size = fs::file_size(s.models() / "m.onnx");
  const std::string under = "{\"external_data_over\":" + std::to_string(size / 2) + "}";
  const std::string over = "{\"external_data_over\":" + std::to_string(size * 2) + "}";
  auto r = pipeline(s.models() / "m.onnx", s.out() / "big.onnx", under.c_str());
  REQUIRE_MESSAGE(r.code == MX_OK, r.message);
  CHECK(weight_of(parse(read(s.out() / "big.onnx"))).data_location() == onnx::TensorProto::EXTERNAL);
  CHECK(weight_data(parse(read(s.out() / "big.onnx")), s.out()) == weight_bytes());
  r = pipeline(s.models() / "m.onnx", s.out() / "small.onnx", over.c_str());
  REQUIRE_MESSAGE(r.code == MX_OK, r.message);
  CHECK(weight_of(parse(read(s.out() / "small.onnx"))).data_location() != onnx::TensorProto::EXTERNAL);
  CHECK_FALSE(fs::exists(s.out() / "small.onnx.data"));
  for (const char* bad : {"{\"external_data_over\":0}", "{\"external_data_over\":-5}", "{\"external_data_over\":\"1MB\"}"}) {
    r = pipeline(s.models() / "m.onnx", s.out() / "bad.onnx", bad);
    CHECK(r.code == MX_ERR_INVALID_ARGUMENT);
    CHECK(r.message.find("external_data_over") != std::string::npos);
    CHECK_FALSE(fs::exists(s.out() / "bad.onnx"));
  }
}

TEST_CASE("external data: saving over the file the model reads from (tag in place)") {
  Scratch s("ext_inplace");
  write_model(s.models() / "m.onnx", net());
  REQUIRE(pipeline(s.models() / "m.onnx", s.models() / "m.onnx", "{\"external_data\":true}").code == MX_OK);
  // m.onnx now reads m.onnx.data; saving it again over itself must not
  // read the half-rewritten data file.
  for (int round = 0; round < 2; ++round) {
    auto r = pipeline(s.models() / "m.onnx", s.models() / "m.onnx");
    REQUIRE_MESSAGE(r.code == MX_OK, r.message);
    CHECK(weight_data(parse(read(s.models() / "m.onnx")), s.models()) == weight_bytes());
  }
}

TEST_CASE("external data outside the model's directory is a security error") {
  Scratch s("ext_hostile");
  write_weights(s.root() / "outside.bin");
  fs::create_directories(s.models() / "sub");
  fs::create_symlink(s.root() / "outside.bin", s.models() / "link.bin");
  fs::create_directory_symlink(s.root(), s.models() / "up");
  fs::create_symlink("/etc/passwd", s.models() / "passwd");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"../../etc/passwd", "leaves the model's directory"},
      {"../outside.bin", "leaves the model's directory"},
      {"sub/../../outside.bin", "leaves the model's directory"},
      {"/etc/passwd", "absolute path"},
      {(s.root() / "outside.bin").string(), "absolute path"},
      {"link.bin", "outside the model's directory"},
      {"up/outside.bin", "outside the model's directory"},
      {"passwd", "outside the model's directory"},
  };
  for (const auto& [location, why] : cases) {
    CAPTURE(location);
    write_model(s.models() / "m.onnx", net(location));
    auto r = pipeline(s.models() / "m.onnx", s.out() / "o.onnx");
    INFO(r.message);
    CHECK(r.code == MX_ERR_SECURITY);
    CHECK(r.stage == "load");
    CHECK(r.message.find(why) != std::string::npos);
    CHECK(s.outputs().empty());
    // The same bytes through mx_model_load_bytes: refused before any I/O.
    const std::string b = net(location).SerializeAsString();
    mx_model* m = nullptr;
    mx_status* st = mx_model_load_bytes(b.data(), b.size(), &m);
    const bool textual = location[0] == '/' || location.find("..") != std::string::npos;
    CHECK(mx_status_code(st) == (textual ? MX_ERR_SECURITY : MX_ERR_UNSUPPORTED));
    CHECK(m == nullptr);
    mx_status_release(st);
  }
}

TEST_CASE("broken external references: clear errors, no output") {
  Scratch s("ext_broken");
  write_weights(s.models() / "weights.bin");
  struct Case {
    onnx::ModelProto model;
    mx_code code;
    const char* why;
  };
  std::vector<Case> cases;
  cases.push_back({net("missing.bin"), MX_ERR_IO, "missing.bin"});
  cases.push_back({net("weights.bin", "100000"), MX_ERR_SCHEMA, "past the end"});
  cases.push_back({net("weights.bin", "20"), MX_ERR_SCHEMA, "past the end"});
  cases.push_back({net("weights.bin", "-4"), MX_ERR_SCHEMA, "not a non-negative integer"});
  cases.push_back({net("weights.bin", "99999999999999999999999"), MX_ERR_SCHEMA, "not a non-negative"});
  cases.push_back({net("sub"), MX_ERR_IO, "not a regular file"});
  cases.push_back({net(""), MX_OK, ""});  // inline model: fine
  auto no_location = net("weights.bin");
  no_location.mutable_graph()->mutable_initializer(0)->mutable_external_data()->DeleteSubrange(0, 1);
  cases.push_back({no_location, MX_ERR_SCHEMA, "no \"location\""});
  // A frontend's answer may ask the save to derive a tensor
  // ("derived_references"); a model file may not: ONNX Runtime would read
  // the bytes as they are.
  auto derived = net("weights.bin");
  auto* e = derived.mutable_graph()->mutable_initializer(0)->add_external_data();
  e->set_key("modelexport_permutation");
  e->set_value("1,0");
  cases.push_back({derived, MX_ERR_SCHEMA, "only an export's answer may carry"});
  fs::create_directories(s.models() / "sub");
  for (auto& c : cases) {
    write_model(s.models() / "m.onnx", c.model);
    auto r = load_only(s.models() / "m.onnx");
    INFO(r.message);
    CHECK(r.code == c.code);
    CHECK(r.message.find(c.why) != std::string::npos);
  }
}
