// A weight's stored data must be what the program's tensor meta says of it
// (an exported mismatch is a file no runtime loads), and sizes/strides that
// claim more than their bytes are refused before anything is allocated.
#include <doctest/doctest.h>

#include <chrono>

#include "pt2_cli.hpp"

using namespace mx::hostile;

namespace {

// tiny_mlp with body.0.weight's stored meta changed by `edit`.
fs::path with_weight_meta(const Scratch& s, void (*edit)(nlohmann::json& meta)) {
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json config = a.json("data/weights/model_weights_config.json");
  edit(config["config"]["body.0.weight"]["tensor_meta"]);
  a.set_json("data/weights/model_weights_config.json", config);
  const fs::path path = s.models() / "w.pt2";
  write_pt2(path, a);
  return path;
}

nlohmann::json dims(std::initializer_list<int64_t> v) {
  nlohmann::json out = nlohmann::json::array();
  for (int64_t d : v) out.push_back({{"as_int", d}});
  return out;
}

}  // namespace

TEST_CASE("stored data of another shape than the program's is refused") {
  Scratch s("pt2_weight_shape");
  const fs::path in = with_weight_meta(s, [](nlohmann::json& m) {
    m["sizes"] = dims({16, 16});  // the program says [32, 16]
  });
  check_refused(export_pt2(s, in), s,
                "the stored data of body.0.weight is float32[16,16] but the program's 'p_body_0_weight' is "
                "float32[32,16]");
}

TEST_CASE("stored data of size zero for a [32,16] weight is refused") {
  Scratch s("pt2_weight_empty");
  const fs::path in = with_weight_meta(s, [](nlohmann::json& m) { m["sizes"] = dims({0, 16}); });
  check_refused(export_pt2(s, in), s, "body.0.weight is float32[0,16]");
}

TEST_CASE("stored data of another dtype than the program's is refused") {
  Scratch s("pt2_weight_dtype");
  const fs::path in = with_weight_meta(s, [](nlohmann::json& m) { m["dtype"] = 6; });  // float16
  check_refused(export_pt2(s, in), s, "body.0.weight is float16[32,16]");
}

TEST_CASE("sizes [2^31, 2^31] with zero strides are refused at once, by hierarchy too") {
  for (bool huge : {true, false}) {
    Scratch s("pt2_weight_expand");
    const fs::path in = with_weight_meta(s, huge ? [](nlohmann::json& m) {
      m["sizes"] = dims({int64_t{1} << 31, int64_t{1} << 31});
      m["strides"] = dims({0, 0});
    } : [](nlohmann::json& m) {
      m["sizes"] = dims({int64_t{1} << 31, int64_t{1} << 30});
      m["strides"] = dims({0, 0});
    });
    const auto start = std::chrono::steady_clock::now();
    check_refused(export_pt2(s, in), s, "a strided view of");
    check_refused(hierarchy_of_pt2(s, in), s, "a strided view of");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  }
}
