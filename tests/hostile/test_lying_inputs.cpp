// Inputs that claim what they are not: tensor dims far beyond their data,
// sidecar module paths that break the path rule, a supplied tree whose
// parents and children disagree.
#include <doctest/doctest.h>

#include "mx/onnx_proto.hpp"

#include "c_api_steps.hpp"
#include "fixture_model.hpp"

using namespace mx::hostile;
using mx::testing::tiny_net;

TEST_CASE("a tensor whose dims claim far more data than it holds is refused") {
  Scratch s("lying_sizes");
  auto m = tiny_net();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  w->add_dims(int64_t{1} << 20);
  w->add_dims(int64_t{1} << 20);
  w->clear_float_data();
  w->set_raw_data(std::string(4, '\0'));
  write(s.models() / "big.onnx", bytes_of(m));
  auto r = pipeline(s.models() / "big.onnx", s.out() / "o.onnx");
  CHECK(r.code == MX_ERR_SCHEMA);
  CHECK(r.stage == "load");
  CHECK(r.message.find("claim 1099511627776 elements") != std::string::npos);
  mx_code code = MX_OK;
  const std::string report = validate(s.models() / "big.onnx", &code);
  CHECK(report.find("\"kind\":\"tensor_data\"") != std::string::npos);
}

TEST_CASE("sidecar module paths follow the --hierarchy rule") {
  Scratch s("lying_paths");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  for (const char* bad : {"..", "a/b c"}) {
    write(s.models() / "m.hierarchy.json",
          std::string("{\"schema\":\"modelexport.hierarchy/1\",\"modules\":[{\"path\":\"\","
                      "\"class\":\"Net\",\"children\":[\"") +
              bad + "\"]},{\"path\":\"" + bad + "\",\"class\":\"X\",\"parent\":\"\"}],\"nodes\":[]}");
    auto r = pipeline(s.models() / "m.onnx", s.out() / "o.onnx");
    INFO(r.message);
    CHECK(r.code == MX_ERR_SCHEMA);
    CHECK(r.message.find("is not a module path") != std::string::npos);
  }
}

TEST_CASE("tag --hierarchy refuses a tree that validate would call broken") {
  Scratch s("lying_tree");
  write(s.models() / "m.onnx", bytes_of(tiny_net()));
  mx_model* m = load(s.models() / "m.onnx");
  // fc names the root as parent, the root does not list it; "x" is listed
  // as a child of fc but says its parent is the root.
  const char* opts =
      "{\"hierarchy\":{\"schema\":\"modelexport.hierarchy/1\",\"nodes\":[],\"modules\":["
      "{\"path\":\"\",\"class\":\"Net\",\"children\":[\"x\"]},"
      "{\"path\":\"fc\",\"class\":\"Linear\",\"parent\":\"\",\"children\":[\"x\"]},"
      "{\"path\":\"x\",\"class\":\"X\",\"parent\":\"\"}]}}";
  mx_status* st = mx_registry_tag(registry(), "scope", m, opts);
  CHECK(mx_status_code(st) == MX_ERR_SCHEMA);
  CHECK(std::string(mx_status_message(st)).find("module tree is inconsistent") != std::string::npos);
  mx_status_release(st);
  mx_model_release(m);
}
