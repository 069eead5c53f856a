#include <doctest/doctest.h>

#include <map>
#include <stdexcept>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "test_support.hpp"

using namespace mx::aten_onnx;

namespace {

// The argument interface over plain maps: tensors and ints by name, every
// output a float tensor of the first input's shape. What a lowering reads
// beyond that is an error, so a test sees exactly what the lowering asked.
struct MapOpContext : OpContext {
  explicit MapOpContext(const std::string& target) : OpContext(17) { set_target(target); }
  std::map<std::string, Value> tensors;
  std::map<std::string, int64_t> ints_by_name;
  std::vector<std::string> outputs;
  std::vector<Dim> shape;

  ArgKind arg_kind(const std::string& n) const override {
    if (tensors.count(n)) return ArgKind::tensor;
    return ints_by_name.count(n) ? ArgKind::integer : ArgKind::none;
  }
  const Value& value_of(const std::string& n) override {
    if (!tensors.count(n)) unsupported("no tensor " + n);
    return tensors.at(n);
  }
  std::vector<const Value*> tensor_list(const std::string& n) override { unsupported("list " + n); }
  int64_t int_arg(const std::string& n, std::optional<int64_t> f) override {
    if (ints_by_name.count(n)) return ints_by_name.at(n);
    if (f) return *f;
    unsupported("no int " + n);
  }
  double float_arg(const std::string& n, std::optional<double> f) override {
    if (f) return *f;
    unsupported("no float " + n);
  }
  bool bool_arg(const std::string& n, std::optional<bool> f) override {
    if (f) return *f;
    unsupported("no bool " + n);
  }
  std::string string_arg(const std::string&, const std::string& f) override { return f; }
  std::vector<int64_t> ints(const std::string& n, std::optional<std::vector<int64_t>> f) override {
    if (f) return *f;
    unsupported("no ints " + n);
  }
  std::optional<std::vector<int64_t>> static_ints(const std::string& n) override { unsupported("ints " + n); }
  size_t list_length(const std::string& n) override { unsupported("list " + n); }
  std::vector<double> floats(const std::string& n) override { unsupported("floats " + n); }
  std::string int_list(const std::string& n) override { unsupported("int list " + n); }
  std::string sym_int(const std::string& n) override { return ci64s(int_arg(n, std::nullopt)); }
  std::string operand(const std::string& n, int32_t dtype) override {
    const Value& v = value_of(n);
    return cast(v.onnx, v.dtype, dtype);
  }
  int32_t dtype_arg(const std::string&, int32_t f) override { return f; }
  std::pair<double, double> complex_arg(const std::string& n) override { unsupported("no complex " + n); }
  size_t n_outputs() const override { return 1; }
  const std::vector<Dim>& out_shape(size_t) const override { return shape; }
  int32_t out_dtype(size_t) const override { return onnx::TensorProto::FLOAT; }
  void out(size_t, const std::string& onnx_name) override { outputs.push_back(onnx_name); }
  void out_sym(size_t, const std::string& onnx_name, std::optional<int64_t>) override {
    outputs.push_back(onnx_name);
  }
  size_t list_size(size_t) const override { unsupported("list output"); }
  const std::vector<Dim>& list_item_shape(size_t, size_t) const override { unsupported("list output"); }
  void out_list(size_t, const std::vector<std::string>&) override { unsupported("list output"); }
  bool output_is_tensor(size_t) const override { return true; }
  bool output_is_tensor_list(size_t) const override { return false; }
  std::string node_name() const override { return "test"; }
  std::string where() const override { return "test"; }
  std::vector<std::string> ops() const {
    std::vector<std::string> out;
    for (const auto& n : graph.node()) out.push_back(n.op_type());
    return out;
  }

 protected:
  const std::string& current_module() const override { return module_; }

 private:
  std::string module_;
};

bool found(const std::string& target, const std::string& frontend) {
  return find_lowering(target, frontend) != nullptr;
}

}  // namespace

TEST_CASE("lowering registry: no name twice, shared lowerings in aten_onnx/src/lower") {
  CHECK(duplicate_lowerings().empty());
  for (const auto& d : duplicate_lowerings()) MESSAGE("registered twice: " << d);
  REQUIRE(lowering_registry().size() > 300);
  for (const auto& [name, reg] : lowering_registry()) {
    CAPTURE(name);
    CHECK(reg.frontend.empty());
    CHECK(reg.file.rfind("aten_onnx/src/lower/", 0) == 0);
  }
}

TEST_CASE("lowering registry: an overload falls back to the op's name") {
  CHECK((find_lowering("aten.add.Tensor", "torchscript") == find_lowering("aten.add", "torch_export")));
  CHECK(found("aten.relu.default", "torchscript"));
  CHECK(found("aten.where.self", "torchscript"));
  CHECK_FALSE(found("aten.no_such_op.default", "torchscript"));
  CHECK_FALSE(found("prim.no_fallback", "torchscript"));
}

TEST_CASE("a shared lowering runs through the argument interface") {
  MapOpContext cx("aten.softmax.int");
  cx.tensors["self"] =
      Value{Value::tensor, "x", onnx::TensorProto::FLOAT, {Dim{true, 2}, Dim{false, 3, "s0", "s0"}}};
  cx.ints_by_name["dim"] = -1;
  cx.shape = cx.tensors["self"].shape;
  LowerFn fn = find_lowering(cx.target(), "test");
  REQUIRE(static_cast<bool>(fn));
  fn(cx);
  CHECK(cx.op() == "softmax");
  CHECK(cx.ops() == std::vector<std::string>{"Softmax"});
  REQUIRE(cx.outputs.size() == 1);
  CHECK(cx.graph.node(0).attribute(0).i() == 1);  // -1 normalised against rank 2
  MapOpContext missing("aten.softmax.int");
  CHECK_THROWS_WITH(find_lowering("aten.softmax.int", "test")(missing),
                    "unsupported: no tensor self at test");
}
