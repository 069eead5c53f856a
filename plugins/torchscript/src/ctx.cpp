#include "ctx.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "complex_values.hpp"
#include "modelexport/modelexport.h"

namespace mx::torchscript {

std::unordered_map<std::string, LowerFn>& registry() {
  static std::unordered_map<std::string, LowerFn> r;
  return r;
}

int32_t onnx_type_of(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return onnx::TensorProto::FLOAT;
    case at::kDouble:
      return onnx::TensorProto::DOUBLE;
    case at::kHalf:
      return onnx::TensorProto::FLOAT16;
    case at::kBFloat16:
      return onnx::TensorProto::BFLOAT16;
    case at::kLong:
      return onnx::TensorProto::INT64;
    case at::kInt:
      return onnx::TensorProto::INT32;
    case at::kShort:
      return onnx::TensorProto::INT16;
    case at::kChar:
      return onnx::TensorProto::INT8;
    case at::kByte:
      return onnx::TensorProto::UINT8;
    case at::kBool:
      return onnx::TensorProto::BOOL;
    // a value's dtype; its ONNX tensor holds real pairs (complex_values.hpp)
    case at::kComplexFloat:
      return onnx::TensorProto::COMPLEX64;
    case at::kComplexDouble:
      return onnx::TensorProto::COMPLEX128;
    default:
      throw Error(MX_ERR_UNSUPPORTED, std::string("unsupported dtype ") + c10::toString(t));
  }
}
at::ScalarType scalar_type_of_onnx(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return at::kFloat;
    case onnx::TensorProto::DOUBLE:
      return at::kDouble;
    case onnx::TensorProto::FLOAT16:
      return at::kHalf;
    case onnx::TensorProto::BFLOAT16:
      return at::kBFloat16;
    case onnx::TensorProto::INT64:
      return at::kLong;
    case onnx::TensorProto::INT32:
      return at::kInt;
    case onnx::TensorProto::INT16:
      return at::kShort;
    case onnx::TensorProto::INT8:
      return at::kChar;
    case onnx::TensorProto::UINT8:
      return at::kByte;
    case onnx::TensorProto::BOOL:
      return at::kBool;
    case onnx::TensorProto::COMPLEX64:
      return at::kComplexFloat;
    case onnx::TensorProto::COMPLEX128:
      return at::kComplexDouble;
    default:
      throw Error(MX_ERR_INTERNAL, "unknown onnx type " + std::to_string(t));
  }
}

onnx::TensorProto to_tensor_proto(const at::Tensor& t0, const std::string& name) {
  if (t0.is_meta())
    throw Error(MX_ERR_INTERNAL, "internal: a constant without a value (meta tensor) for '" + name + "'");
  at::Tensor t = as_pairs(t0.detach()).contiguous().cpu();
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx_type_of(t.scalar_type()));
  for (auto s : t.sizes()) p.add_dims(s);
  p.set_raw_data(std::string(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size()));
  return p;
}

// ------------------------------------------------------------ environment
VP Ctx::get(const tj::Value* v) const {
  auto it = frame->env.find(v);
  if (it == frame->env.end())
    throw Error(MX_ERR_INTERNAL, "internal: value %" + v->debugName() + " not bound " + location());
  return it->second;
}

// A tensor argument whose value the lowering needs (a scalar given as a
// tensor): real unless computed from the model's inputs, which the walk
// carries as shapes only (shape_exec.hpp).
const at::Tensor& Ctx::value_of(const at::Tensor& t, size_t idx) const {
  if (t.is_meta())
    unsupported("argument " + std::to_string(idx) +
                " must be known at export time, but it is a tensor computed "
                "from the model's inputs (the export computes shapes only)");
  return t;
}

int64_t Ctx::arg_int(size_t idx) const {
  auto& iv = in(idx)->iv;
  if (iv.isInt()) return iv.toInt();
  if (iv.isBool()) return iv.toBool();
  if (iv.isTensor()) return value_of(iv.toTensor(), idx).item<int64_t>();
  if (iv.isDouble()) return static_cast<int64_t>(iv.toDouble());
  unsupported("expected an int argument " + std::to_string(idx));
}
double Ctx::arg_double(size_t idx) const {
  auto& iv = in(idx)->iv;
  if (iv.isDouble()) return iv.toDouble();
  if (iv.isInt()) return static_cast<double>(iv.toInt());
  if (iv.isBool()) return iv.toBool();
  if (iv.isTensor()) return value_of(iv.toTensor(), idx).item<double>();
  unsupported("expected a float argument " + std::to_string(idx));
}
bool Ctx::arg_bool(size_t idx) const {
  auto& iv = in(idx)->iv;
  if (iv.isBool()) return iv.toBool();
  if (iv.isInt()) return iv.toInt() != 0;
  if (iv.isNone()) return false;
  unsupported("expected a bool argument " + std::to_string(idx));
}
std::string Ctx::arg_string(size_t idx) const {
  auto& iv = in(idx)->iv;
  if (iv.isString()) return iv.toStringRef();
  if (iv.isNone()) return "";
  unsupported("expected a string argument " + std::to_string(idx));
}
std::vector<int64_t> Ctx::arg_int_list(size_t idx) const {
  auto& iv = in(idx)->iv;
  if (iv.isIntList()) return iv.toIntVector();
  if (iv.isInt()) return {iv.toInt()};
  if (iv.isList()) {
    std::vector<int64_t> r;
    for (const auto& e : iv.toListRef()) r.push_back(e.toInt());
    return r;
  }
  if (iv.isTuple()) {
    std::vector<int64_t> r;
    for (const auto& e : iv.toTupleRef().elements()) r.push_back(e.toInt());
    return r;
  }
  unsupported("expected an int list argument " + std::to_string(idx));
}
at::Tensor Ctx::ex_t(size_t idx) const {
  auto& iv = in(idx)->iv;
  if (iv.isTensor()) return iv.toTensor();
  if (iv.isInt()) return at::scalar_tensor(iv.toInt(), at::kLong);
  if (iv.isDouble()) return at::scalar_tensor(iv.toDouble(), at::kDouble);
  if (iv.isBool()) return at::scalar_tensor(iv.toBool(), at::kBool);
  unsupported("expected a tensor argument " + std::to_string(idx));
}
at::Tensor Ctx::ex_out_t(size_t idx) const {
  const auto& iv = ex_out.at(idx);
  if (iv.isTensor()) return iv.toTensor();
  if (iv.isInt()) return at::scalar_tensor(iv.toInt(), at::kLong);
  if (iv.isDouble()) return at::scalar_tensor(iv.toDouble(), at::kDouble);
  if (iv.isBool()) return at::scalar_tensor(iv.toBool(), at::kBool);
  unsupported("expected a tensor output");
}

// ------------------------------------------------------------ materialisation
int32_t Ctx::onnx_type(const VP& v) {
  if (!v->name.empty()) return v->onnx_type;
  const auto& iv = v->iv;
  if (iv.isTensor()) return onnx_type_of(iv.toTensor().scalar_type());
  if (iv.isInt()) return onnx::TensorProto::INT64;
  if (iv.isDouble()) return onnx::TensorProto::DOUBLE;
  if (iv.isBool()) return onnx::TensorProto::BOOL;
  return onnx::TensorProto::INT64;  // lists
}

std::string Ctx::tensor(const VP& v) {
  if (!v->name.empty()) return v->name;
  if (v->is_module) unsupported("a module object used as a tensor");
  const auto& iv = v->iv;
  std::string n;
  if (iv.isTensor()) {
    if (!v->not_computed.empty())
      unsupported("it reads " + v->not_computed +
                  ", which the export does not compute (an output an inference graph does not use, "
                  "such as a pooling's indices)");
    if (!v->is_static) unsupported("internal: tensor value without ONNX name");
    n = constant(iv.toTensor());
  } else if (iv.isInt()) {
    n = ci64s(iv.toInt());
  } else if (iv.isDouble()) {
    n = constant(at::scalar_tensor(iv.toDouble(), at::kDouble));
  } else if (iv.isBool()) {
    n = constant(at::scalar_tensor(iv.toBool(), at::kBool));
  } else if (iv.isList() || iv.isTuple()) {
    return shape_list(v);
  } else {
    unsupported("cannot use a value of type " + iv.tagKind() + " as a tensor");
  }
  // cache on the Val (it lives in this frame's environment); the type
  // first: onnx_type() answers from the cache once the name is set
  v->onnx_type = onnx_type(v);
  v->name = n;
  return n;
}

std::string Ctx::tensor_as(const VP& v, at::ScalarType st) {
  if (v->name.empty() && v->is_static && !v->is_module) {
    const auto& iv = v->iv;
    if (iv.isInt() || iv.isDouble() || iv.isBool())
      return cscalar(iv.isInt()    ? static_cast<double>(iv.toInt())
                     : iv.isBool() ? (iv.toBool() ? 1.0 : 0.0)
                                   : iv.toDouble(),
                     st);
    if (iv.isTensor() && iv.toTensor().scalar_type() != st) return constant(iv.toTensor().to(st));
  }
  std::string n = tensor(v);
  return cast(n, onnx_type(v), onnx_type_of(st));
}

std::string Ctx::scalar_i64(const VP& v) {
  if (v->is_static && v->name.empty() && v->iv.isInt()) return ci64s(v->iv.toInt());
  std::string n = tensor(v);
  n = cast(n, onnx_type(v), onnx::TensorProto::INT64);
  // dynamic scalars are 0-d by convention; a 1-element 1-d tensor is reshaped
  if (v->iv.isTensor() && v->iv.toTensor().dim() > 0) n = emit1("Reshape", {n, ci64({})});
  return n;
}

std::string Ctx::shape_list(const VP& v) {
  const auto& iv = v->iv;
  if (v->is_static && !iv.isTensor()) {
    std::vector<int64_t> vals;
    if (iv.isInt()) vals = {iv.toInt()};
    else if (iv.isIntList()) vals = iv.toIntVector();
    else if (iv.isList())
      for (const auto& e : iv.toListRef()) vals.push_back(e.toInt());
    else if (iv.isTuple())
      for (const auto& e : iv.toTupleRef().elements()) vals.push_back(e.toInt());
    else unsupported("expected an int list");
    return ci64(vals);
  }
  if (!v->name.empty()) {
    std::string n = cast(v->name, v->onnx_type, onnx::TensorProto::INT64);
    bool zero_d = iv.isInt() || (iv.isTensor() && iv.toTensor().dim() == 0);
    return zero_d ? unsqueeze(n, {0}) : n;
  }
  if (!v->has_elems) unsupported("internal: list without elements");
  // Concat of static runs and unsqueezed dynamic elements
  std::vector<std::string> parts;
  std::vector<int64_t> run;
  for (const auto& e : v->elems) {
    if (e->is_static && e->name.empty() && e->iv.isInt()) {
      run.push_back(e->iv.toInt());
      continue;
    }
    if (!run.empty()) {
      parts.push_back(ci64(run));
      run.clear();
    }
    parts.push_back(unsqueeze(scalar_i64(e), {0}));
  }
  if (!run.empty()) parts.push_back(ci64(run));
  if (parts.size() == 1) return parts[0];
  return emit1("Concat", parts, {attr("axis", int64_t{0})});
}

// ------------------------------------------------------------ constants
std::string Ctx::constant(const at::Tensor& t) {
  return constant(to_tensor_proto(t, ""));
}

std::string Ctx::initializer(const at::Tensor& t, const std::string& path) {
  std::ostringstream k;
  const auto& st = t.storage();
  k << st.data() << '|' << t.storage_offset() << '|' << t.sizes() << '|' << t.strides() << '|'
    << c10::toString(t.scalar_type());
  auto it = init_by_key_.find(k.str());
  if (it != init_by_key_.end()) return it->second;
  std::string name = path;
  if (init_names_.count(name)) name += "_" + std::to_string(init_names_[name]++);
  init_names_[name] = 1;
  // a view of the module's weight when contiguous (complex: its real pairs)
  at::Tensor data = as_pairs(t.detach()).contiguous().cpu();
  auto* p = graph.add_initializer();
  p->set_name(name);
  p->set_data_type(onnx_type_of(data.scalar_type()));
  for (auto d : data.sizes()) p->add_dims(d);
  init_data[name] = std::move(data);
  init_by_key_[k.str()] = name;
  return name;
}

void Ctx::out(size_t idx, const std::string& name, int32_t onnx_t) {
  auto v = std::make_shared<Val>();
  v->iv = ex_out.at(idx);
  v->name = name;
  if (onnx_t >= 0) v->onnx_type = onnx_t;
  else if (v->iv.isTensor()) v->onnx_type = onnx_type_of(v->iv.toTensor().scalar_type());
  else if (v->iv.isInt()) v->onnx_type = onnx::TensorProto::INT64;
  else if (v->iv.isDouble()) v->onnx_type = onnx::TensorProto::DOUBLE;
  else if (v->iv.isBool()) v->onnx_type = onnx::TensorProto::BOOL;
  else v->onnx_type = onnx::TensorProto::INT64;
  bind(node->output(idx), v);
}

// ------------------------------------------------------------ errors
std::string Ctx::location() const {
  std::ostringstream o;
  o << "(in module " << (frame->path.empty() ? "<root>" : frame->path) << ", class ";
  auto qn = frame->module.type()->name();
  std::string cls = qn ? qn->name() : "?";
  o << cls << ")";
  if (!node) return o.str();
  try {
    auto sr = node->sourceRange();
    auto orig = sr.findSourceRangeThatGenerated();
    const tj::SourceRange& use = orig ? *orig : sr;
    auto flc = use.file_line_col();
    if (flc) {
      o << " at " << std::get<0>(*flc) << ":" << std::get<1>(*flc);
      auto src = use.source();
      std::string line = src->get_line(src->lineno_for_offset(use.start())).str();
      // prefer the real source line when the file is readable
      std::ifstream f(std::get<0>(*flc));
      std::string l;
      for (size_t k = 0; f && k < std::get<1>(*flc) && std::getline(f, l); ++k) {}
      if (f && !l.empty()) line = l;
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      size_t a = line.find_first_not_of(" \t");
      o << ": " << (a == std::string::npos ? line : line.substr(a));
    }
  } catch (...) {}
  return o.str();
}

void Ctx::unsupported(const std::string& what) const {
  std::string kind = node ? node->kind().toQualString() : "?";
  throw Error(MX_ERR_UNSUPPORTED, "unsupported op " + kind + ": " + what + " " + location());
}

}  // namespace mx::torchscript
