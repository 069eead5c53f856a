// The shared argument interface (mx::aten_onnx::OpContext) over a jit::Node,
// for the lowerings of aten_onnx/src/lower. Arguments are found by the
// names of the node's schema; the jit graph holds every argument (defaults
// as constants), so a schema argument is always an input. Scalars and lists
// are read from their example values, as this frontend's own lowerings do.
//
// Shapes: a dim is static unless it follows a named (dynamic) input dim,
// which the shifted run tells (dynamic_dims.hpp); a dynamic dim carries its
// example size as the hint. A lowering that needs a static dim where it is
// dynamic refuses it rather than bake the example size.
#include "ctx.hpp"
#include "dynamic_dims.hpp"

#include "modelexport/modelexport.h"

namespace mx::torchscript {
using mx::aten_onnx::ArgKind;
using mx::aten_onnx::Dim;
using mx::aten_onnx::Value;

void Ctx::begin_shared(const tj::Node* n) {
  node = n;
  shared_values_.clear();
  shared_by_name_.clear();
  shared_shapes_.clear();
  const auto* schema = n->maybeSchema();
  std::string name = schema ? schema->name() : n->kind().toQualString();
  const std::string overload = schema ? schema->overload_name() : "";
  if (const auto colons = name.find("::"); colons != std::string::npos) name.replace(colons, 2, ".");
  set_target(name + "." + (overload.empty() ? "default" : overload));
}

std::optional<size_t> Ctx::find_arg(const std::string& name) const {
  const auto* schema = node->maybeSchema();
  if (!schema) return std::nullopt;
  const auto index = schema->argumentIndexWithName(name);
  if (!index || static_cast<size_t>(*index) >= node->inputs().size()) return std::nullopt;
  return static_cast<size_t>(*index);
}

size_t Ctx::arg_index(const std::string& name) const {
  const auto k = find_arg(name);
  if (!k) unsupported("argument '" + name + "' is missing");
  return *k;
}

ArgKind Ctx::arg_kind(const std::string& name) const {
  const auto k = find_arg(name);
  if (!k) return ArgKind::none;
  const VP v = in(*k);
  const c10::IValue& iv = v->iv;
  if (iv.isNone()) return ArgKind::none;
  if (iv.isTensor()) return ArgKind::tensor;
  const auto& type = node->schema().arguments()[*k].type();
  if (type->kind() == c10::TypeKind::OptionalType &&
      type->expectRef<c10::OptionalType>().getElementType()->kind() == c10::TypeKind::ScalarTypeType)
    return ArgKind::dtype;
  if (type->kind() == c10::TypeKind::ScalarTypeType) return ArgKind::dtype;
  if (iv.isTensorList() || (iv.isList() && type->str().find("Tensor") != std::string::npos))
    return ArgKind::tensors;
  if (iv.isInt()) return v->is_static || v->name.empty() ? ArgKind::integer : ArgKind::sym_int;
  if (iv.isDouble()) return ArgKind::floating;
  if (iv.isBool()) return ArgKind::boolean;
  if (iv.isString()) return ArgKind::string;
  if (iv.isComplexDouble()) return ArgKind::complex_number;
  if (iv.isIntList()) return ArgKind::ints;
  if (iv.isDoubleList()) return ArgKind::floats;
  if (iv.isList() || iv.isTuple()) return ArgKind::ints;
  return ArgKind::other;
}

std::vector<Dim> Ctx::dims_of(const at::Tensor& t, const std::vector<bool>& dynamic) const {
  std::vector<Dim> dims;
  for (int64_t k = 0; k < t.dim(); ++k) {
    Dim d;
    d.value = t.size(k);
    d.is_static = !dynamic[static_cast<size_t>(k)];
    if (!d.is_static) d.expr = "?";
    dims.push_back(d);
  }
  return dims;
}

const c10::IValue& Ctx::shifted_output(size_t k) const {
  static const c10::IValue none;
  return out_shift == Shift::known && k < shifted_out.size() ? shifted_out[k] : none;
}

const Value& Ctx::shared_value(const VP& v, const std::string& key) {
  if (auto it = shared_by_name_.find(key); it != shared_by_name_.end()) return *it->second;
  Value out;
  out.onnx = tensor(v);
  out.dtype = onnx_type(v);
  if (v->iv.isTensor()) {
    const at::Tensor& t = v->iv.toTensor();
    out.shape = dims_of(t, dynamic_dims(t, v->shift, v->shifted));
  }
  shared_values_.push_back(std::move(out));
  shared_by_name_[key] = &shared_values_.back();
  return shared_values_.back();
}

const Value& Ctx::value_of(const std::string& name) {
  const size_t k = arg_index(name);
  const VP v = in(k);
  if (v->iv.isNone()) unsupported("argument '" + name + "' is None where a tensor is needed");
  return shared_value(v, name);
}

std::vector<const Value*> Ctx::tensor_list(const std::string& name) {
  const VP list = in(arg_index(name));
  std::vector<VP> elems = list->elems;
  if (!list->has_elems) {  // a constant list
    if (!list->iv.isList()) unsupported("argument '" + name + "' is not a tensor list");
    for (const auto& e : list->iv.toListRef()) {
      auto c = std::make_shared<Val>();
      c->iv = e;
      c->is_static = true;
      elems.push_back(c);
    }
  }
  std::vector<const Value*> out;
  for (size_t i = 0; i < elems.size(); ++i) {
    if (elems[i]->iv.isNone()) out.push_back(nullptr);
    else out.push_back(&shared_value(elems[i], name + "[" + std::to_string(i) + "]"));
  }
  return out;
}

int64_t Ctx::int_arg(const std::string& name, std::optional<int64_t> fallback) {
  const auto k = find_arg(name);
  if (!k || in(*k)->iv.isNone()) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  return arg_int(*k);
}

double Ctx::float_arg(const std::string& name, std::optional<double> fallback) {
  const auto k = find_arg(name);
  if (!k || in(*k)->iv.isNone()) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  return arg_double(*k);
}

bool Ctx::bool_arg(const std::string& name, std::optional<bool> fallback) {
  const auto k = find_arg(name);
  if (!k || in(*k)->iv.isNone()) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  return arg_bool(*k);
}

std::string Ctx::string_arg(const std::string& name, const std::string& fallback) {
  const auto k = find_arg(name);
  if (!k || in(*k)->iv.isNone()) return fallback;
  return arg_string(*k);
}

std::vector<int64_t> Ctx::ints(const std::string& name, std::optional<std::vector<int64_t>> fallback) {
  const auto k = find_arg(name);
  if (!k || in(*k)->iv.isNone()) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  return arg_int_list(*k);
}

std::optional<std::vector<int64_t>> Ctx::static_ints(const std::string& name) {
  const VP v = in(arg_index(name));
  if (v->has_elems) {
    std::vector<int64_t> out;
    for (const auto& e : v->elems) {
      if (!(e->is_static && e->name.empty() && e->iv.isInt())) return std::nullopt;
      out.push_back(e->iv.toInt());
    }
    return out;
  }
  if (!v->is_static) return std::nullopt;
  return arg_int_list(arg_index(name));
}

size_t Ctx::list_length(const std::string& name) {
  const VP v = in(arg_index(name));
  if (v->has_elems) return v->elems.size();
  if (v->iv.isList()) return v->iv.toListRef().size();
  if (v->iv.isTuple()) return v->iv.toTupleRef().elements().size();
  return 0;
}

std::vector<double> Ctx::floats(const std::string& name) {
  const c10::IValue& iv = in(arg_index(name))->iv;
  if (iv.isDoubleList()) return iv.toDoubleVector();
  unsupported("argument '" + name + "' must be a static float list");
}

std::string Ctx::int_list(const std::string& name) {
  return shape_list(arg_index(name));
}

std::string Ctx::sym_int(const std::string& name) {
  return scalar_i64(in(arg_index(name)));
}

std::string Ctx::operand(const std::string& name, int32_t dtype) {
  return tensor_as(arg_index(name), scalar_type_of_onnx(dtype));
}

int32_t Ctx::dtype_arg(const std::string& name, int32_t fallback) {
  const auto k = find_arg(name);
  if (!k || in(*k)->iv.isNone()) return fallback;
  const c10::IValue& iv = in(*k)->iv;
  if (!iv.isInt()) unsupported("argument '" + name + "' must be a dtype");
  return onnx_type_of(static_cast<at::ScalarType>(iv.toInt()));
}

std::pair<double, double> Ctx::complex_arg(const std::string& name) {
  const c10::IValue& iv = in(arg_index(name))->iv;
  if (!iv.isComplexDouble()) unsupported("argument '" + name + "' must be a complex number");
  const c10::complex<double> z = iv.toComplexDouble();
  return {z.real(), z.imag()};
}

// An output is computed from everything the node reads.
const std::vector<Dim>& Ctx::out_shape(size_t k) const {
  auto key = std::make_pair(k, SIZE_MAX);
  if (auto it = shared_shapes_.find(key); it != shared_shapes_.end()) return it->second;
  const at::Tensor t = ex_out_t(k);
  return shared_shapes_[key] = dims_of(t, dynamic_dims(t, out_shift, shifted_output(k)));
}

void Ctx::out_sym(size_t k, const std::string& onnx_name, std::optional<int64_t> static_value) {
  if (static_value) {
    auto v = std::make_shared<Val>();
    v->iv = c10::IValue(*static_value);
    v->is_static = true;
    return out_val(k, v);
  }
  out(k, onnx_name, onnx::TensorProto::INT64);
}

size_t Ctx::list_size(size_t k) const {
  const auto& iv = ex_out.at(k);
  if (!iv.isTensorList()) unsupported("output " + std::to_string(k) + " is not a tensor list");
  return iv.toTensorList().size();
}

const std::vector<Dim>& Ctx::list_item_shape(size_t k, size_t item) const {
  auto key = std::make_pair(k, item);
  if (auto it = shared_shapes_.find(key); it != shared_shapes_.end()) return it->second;
  const at::Tensor t = ex_out.at(k).toTensorList().get(item);
  const c10::IValue& list = shifted_output(k);
  const bool same_length = list.isTensorList() && list.toTensorList().size() == list_size(k);
  const c10::IValue shifted = same_length ? c10::IValue(list.toTensorList().get(item)) : c10::IValue();
  const Shift shift = out_shift == Shift::known && !same_length ? Shift::unknown : out_shift;
  return shared_shapes_[key] = dims_of(t, dynamic_dims(t, shift, shifted));
}

void Ctx::out_list(size_t k, const std::vector<std::string>& onnx_names) {
  const auto list = ex_out.at(k).toTensorList();
  auto v = std::make_shared<Val>();
  v->iv = ex_out.at(k);
  v->has_elems = true;
  uint64_t from_inputs = 0;  // the walker sets the list's own; its elements are read alone later
  for (size_t i = 0; i < node->inputs().size(); ++i) from_inputs |= in(i)->from_inputs;
  for (size_t i = 0; i < onnx_names.size() && i < list.size(); ++i) {
    auto e = std::make_shared<Val>();
    e->from_inputs = from_inputs;
    e->iv = list.get(i);
    e->name = onnx_names[i];
    e->onnx_type = onnx_type_of(list.get(i).scalar_type());
    v->elems.push_back(e);
  }
  out_val(k, v);
}

std::string Ctx::node_name() const {
  if (!node) return "?";
  return node->outputs().empty() ? std::string(node->kind().toUnqualString()) : node->output(0)->debugName();
}

std::string Ctx::where() const {
  return std::string("op ") + (node ? node->kind().toQualString() : "?") + " " + location();
}

}  // namespace mx::torchscript
