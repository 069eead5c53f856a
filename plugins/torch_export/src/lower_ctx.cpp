#include "lower_ctx.hpp"
#include "json_excerpt.hpp"
#include "json_integers.hpp"

#include "mx/onnx_proto.hpp"

#include <limits>

#include "modelexport/modelexport.h"
#include "module_stack.hpp"
#include "schema_defaults.hpp"
#include "mx/aten_onnx/error.hpp"

namespace mx::torch_export {
using mx::aten_onnx::Error;

// A float argument: a JSON number, or the strings torch writes for the
// values JSON cannot hold ("Infinity", "-Infinity", "NaN").
double json_float(const json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw Error(MX_ERR_PARSE, "not a number: '" + s + "'");
}

std::string node_name(const json& node) {
  auto string_at = [](const json& j, const char* key) -> const json* {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? &*it : nullptr;
  };
  if (const json* name = string_at(node, "name"))
    return mx::common::excerpt(name->get_ref<const std::string&>());
  auto outputs = node.is_object() ? node.find("outputs") : node.end();
  if (outputs == node.end() || !outputs->is_array() || outputs->empty() || !(*outputs)[0].is_object())
    return "?";
  const json& out = (*outputs)[0];
  const json* name = nullptr;
  if (out.contains("as_tensor")) name = string_at(out.at("as_tensor"), "name");
  else if (out.contains("as_tensors") && out.at("as_tensors").is_array() && !out.at("as_tensors").empty())
    name = string_at(out.at("as_tensors")[0], "name");
  else if (out.contains("as_sym_int")) name = string_at(out.at("as_sym_int"), "as_name");
  return name ? mx::common::excerpt(name->get_ref<const std::string&>()) : "?";
}

std::string LowerCtx::where() const {
  return "node '" + node_name() + "' (" + target() + ") in module '" + module + "'";
}

int LowerCtx::current_call() const {
  if (node != call_of_node_) {
    call_of_node_ = node;
    call_ = 0;
    if (node && node->contains("metadata")) {
      const json& meta = (*node).at("metadata");
      if (meta.is_object() && meta.contains("nn_module_stack") && meta.at("nn_module_stack").is_string())
        call_ = innermost_call(meta.at("nn_module_stack").get<std::string>());
    }
  }
  return call_;
}

// An argument the archive leaves out holds its schema default (the
// serializer drops arguments equal to it), so a lowering's own fallback is
// only reached for arguments whose default is None.
const json* LowerCtx::arg(const std::string& name) const {
  for (const auto& in : node->at("inputs"))
    if (in.at("name").get<std::string>() == name) {
      const json& a = in.at("arg");
      return a.contains("as_none") ? nullptr : &a;
    }
  return schema_default(target(), name);
}

const json& LowerCtx::required(const std::string& name) const {
  const json* a = arg(name);
  if (!a) unsupported("argument '" + name + "' is missing");
  return *a;
}

mx::aten_onnx::ArgKind LowerCtx::arg_kind(const std::string& name) const {
  using mx::aten_onnx::ArgKind;
  const json* a = arg(name);
  if (!a) return ArgKind::none;
  if (a->contains("as_tensor")) return ArgKind::tensor;
  if (a->contains("as_optional_tensor"))
    return (*a).at("as_optional_tensor").contains("as_none") ? ArgKind::none : ArgKind::tensor;
  if (a->contains("as_tensors") || a->contains("as_optional_tensors")) return ArgKind::tensors;
  if (a->contains("as_int")) return ArgKind::integer;
  if (a->contains("as_float")) return ArgKind::floating;
  if (a->contains("as_bool")) return ArgKind::boolean;
  if (a->contains("as_string")) return ArgKind::string;
  if (a->contains("as_ints") || a->contains("as_sym_ints")) return ArgKind::ints;
  if (a->contains("as_floats")) return ArgKind::floats;
  if (a->contains("as_sym_int")) return ArgKind::sym_int;
  if (a->contains("as_sym_float")) return ArgKind::sym_float;
  if (a->contains("as_scalar_type")) return ArgKind::dtype;
  if (a->contains("as_complex")) return ArgKind::complex_number;
  return ArgKind::other;
}

const json& LowerCtx::list_of(const std::string& name) const {
  const json& a = required(name);
  if (a.contains("as_tensors")) return a.at("as_tensors");
  if (a.contains("as_optional_tensors")) return a.at("as_optional_tensors");
  unsupported("argument '" + name + "' is not a tensor list: " + brief(a));
}

// Elements of as_tensors are {"name": ...}; of as_optional_tensors
// {"as_tensor": {"name": ...}} or {"as_none": ...}.
std::vector<const Value*> LowerCtx::tensor_list(const std::string& name) {
  std::vector<const Value*> out;
  for (const auto& t : list_of(name)) {
    const json& named = t.contains("as_tensor") ? t.at("as_tensor") : t;
    if (!named.contains("name")) {
      out.push_back(nullptr);
      continue;
    }
    auto it = values.find(named.at("name").get<std::string>());
    if (it == values.end()) unsupported("argument '" + name + "' reads a value nothing defines");
    out.push_back(&it->second);
  }
  return out;
}

std::optional<std::vector<int64_t>> LowerCtx::static_ints(const std::string& name) {
  const json& a = required(name);
  if (a.contains("as_ints")) return as_int64s(a.at("as_ints"));
  if (a.contains("as_int")) return std::vector<int64_t>{as_int64(a.at("as_int"))};
  if (!a.contains("as_sym_ints")) unsupported("argument '" + name + "' must be an int list, got " + brief(a));
  std::vector<int64_t> out;
  for (const auto& s : a.at("as_sym_ints")) {
    if (s.contains("as_int")) {
      out.push_back(as_int64(s.at("as_int")));
      continue;
    }
    auto it = values.find(s.at("as_name").get<std::string>());
    if (it == values.end() || !it->second.int_value) return std::nullopt;
    out.push_back(*it->second.int_value);
  }
  return out;
}

size_t LowerCtx::list_length(const std::string& name) {
  const json& a = required(name);
  for (const char* key :
       {"as_ints", "as_sym_ints", "as_floats", "as_tensors", "as_optional_tensors", "as_bools"})
    if (a.contains(key)) return a.at(key).size();
  return 0;
}

std::vector<double> LowerCtx::floats(const std::string& name) {
  const json& a = required(name);
  if (!a.contains("as_floats"))
    unsupported("argument '" + name + "' must be a static float list, got " + brief(a));
  std::vector<double> out;
  for (const auto& f : a.at("as_floats")) out.push_back(json_float(f));
  return out;
}

std::string LowerCtx::undefined_because(const std::string& name) const {
  auto it = uncomputed.find(name);
  if (it == uncomputed.end()) return "which nothing defines before this node";
  return "which is " + it->second + ", an output its lowering does not compute";
}

const Value& LowerCtx::value_of(const std::string& name) {
  const json& a = required(name);
  std::string vname;
  if (a.contains("as_tensor")) vname = a.at("as_tensor").at("name").get<std::string>();
  else if (a.contains("as_optional_tensor") && a.at("as_optional_tensor").contains("as_tensor"))
    vname = a.at("as_optional_tensor").at("as_tensor").at("name").get<std::string>();
  else unsupported("argument '" + name + "' is not a tensor: " + brief(a));
  auto it = values.find(vname);
  if (it == values.end())
    unsupported("argument '" + name + "' reads value '" + vname + "', " + undefined_because(vname));
  return it->second;
}

int64_t LowerCtx::int_arg(const std::string& name, std::optional<int64_t> fallback) {
  const json* a = arg(name);
  if (!a) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  if (a->contains("as_int")) return as_int64((*a).at("as_int"));
  if (a->contains("as_bool")) return (*a).at("as_bool").get<bool>();
  if (a->contains("as_sym_int") && (*a).at("as_sym_int").contains("as_int"))
    return as_int64((*a).at("as_sym_int").at("as_int"));
  if (a->contains("as_sym_int")) {
    auto it = values.find((*a).at("as_sym_int").at("as_name").get<std::string>());
    if (it != values.end() && it->second.int_value) return *it->second.int_value;
  }
  unsupported("argument '" + name + "' must be a static int, got " + brief(*a));
}

double LowerCtx::float_arg(const std::string& name, std::optional<double> fallback) {
  const json* a = arg(name);
  if (!a) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  if (a->contains("as_float")) return json_float((*a).at("as_float"));
  if (a->contains("as_int")) return static_cast<double>(as_int64((*a).at("as_int")));
  if (a->contains("as_bool")) return (*a).at("as_bool").get<bool>();
  unsupported("argument '" + name + "' must be a static number, got " + brief(*a));
}

bool LowerCtx::bool_arg(const std::string& name, std::optional<bool> fallback) {
  const json* a = arg(name);
  if (!a) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  if (a->contains("as_bool")) return (*a).at("as_bool").get<bool>();
  if (a->contains("as_int")) return as_int64((*a).at("as_int")) != 0;
  unsupported("argument '" + name + "' must be a static bool, got " + brief(*a));
}

std::string LowerCtx::string_arg(const std::string& name, const std::string& fallback) {
  const json* a = arg(name);
  if (!a) return fallback;
  if (a->contains("as_string")) return (*a).at("as_string").get<std::string>();
  unsupported("argument '" + name + "' must be a string, got " + brief(*a));
}

std::vector<int64_t> LowerCtx::ints(const std::string& name, std::optional<std::vector<int64_t>> fallback) {
  const json* a = arg(name);
  if (!a) {
    if (fallback) return *fallback;
    unsupported("argument '" + name + "' is missing");
  }
  if (a->contains("as_ints")) return as_int64s((*a).at("as_ints"));
  if (a->contains("as_int")) return {as_int64((*a).at("as_int"))};
  if (a->contains("as_sym_ints")) {
    std::vector<int64_t> out;
    for (const auto& s : (*a).at("as_sym_ints")) {
      if (s.contains("as_int")) {
        out.push_back(as_int64(s.at("as_int")));
        continue;
      }
      auto it = values.find(s.at("as_name").get<std::string>());
      if (it == values.end() || !it->second.int_value)
        unsupported("argument '" + name + "' holds a dynamic size where static ones are needed");
      out.push_back(*it->second.int_value);
    }
    return out;
  }
  unsupported("argument '" + name + "' must be an int list, got " + brief(*a));
}

std::string LowerCtx::symint_onnx(const json& s) {
  if (s.contains("as_int")) return ci64s(as_int64(s.at("as_int")));
  const std::string n = s.at("as_name").get<std::string>();
  auto it = values.find(n);
  if (it == values.end()) unsupported("SymInt '" + n + "' is used before anything defines it");
  if (it->second.int_value) return ci64s(*it->second.int_value);
  return it->second.onnx;
}

std::string LowerCtx::sym_int(const std::string& name) {
  const json& a = required(name);
  if (a.contains("as_int")) return ci64s(as_int64(a.at("as_int")));
  if (a.contains("as_sym_int")) return symint_onnx(a.at("as_sym_int"));
  unsupported("argument '" + name + "' must be an int, got " + brief(a));
}

std::string LowerCtx::int_list(const std::string& name) {
  const json& a = required(name);
  if (a.contains("as_ints")) return ci64(as_int64s(a.at("as_ints")));
  if (!a.contains("as_sym_ints")) unsupported("argument '" + name + "' must be an int list, got " + brief(a));
  // Concat of static runs and unsqueezed dynamic elements.
  std::vector<std::string> parts;
  std::vector<int64_t> run;
  for (const auto& s : a.at("as_sym_ints")) {
    std::optional<int64_t> known;
    if (s.contains("as_int")) known = as_int64(s.at("as_int"));
    else if (auto it = values.find(s.at("as_name").get<std::string>()); it != values.end())
      known = it->second.int_value;
    if (known) {
      run.push_back(*known);
      continue;
    }
    if (!run.empty()) parts.push_back(ci64(run));
    run.clear();
    parts.push_back(unsqueeze(symint_onnx(s), {0}));
  }
  if (!run.empty()) parts.push_back(ci64(run));
  if (parts.size() == 1) return parts[0];
  return emit1("Concat", parts, {attr("axis", int64_t{0})});
}

std::pair<double, double> LowerCtx::complex_arg(const std::string& name) {
  const json& a = required(name);
  if (!a.contains("as_complex"))
    unsupported("argument '" + name + "' must be a complex number, got " + brief(a));
  const json& c = a.at("as_complex");
  return {json_float(c.at("real")), json_float(c.at("imag"))};
}

std::string LowerCtx::operand(const std::string& name, int32_t dtype) {
  const json& a = required(name);
  if (a.contains("as_tensor") || a.contains("as_optional_tensor")) {
    const Value& v = value_of(name);
    return cast(v.onnx, v.dtype, dtype);
  }
  if (a.contains("as_float")) return cscalar(json_float(a.at("as_float")), dtype);
  if (a.contains("as_int")) return cscalar(static_cast<double>(as_int64(a.at("as_int"))), dtype);
  if (a.contains("as_bool")) return cscalar(a.at("as_bool").get<bool>() ? 1.0 : 0.0, dtype);
  if (a.contains("as_sym_int")) {
    const json& s = a.at("as_sym_int");
    if (s.contains("as_int")) return cscalar(static_cast<double>(as_int64(s.at("as_int"))), dtype);
    return cast(symint_onnx(s), onnx::TensorProto::INT64, dtype);
  }
  if (a.contains("as_sym_float")) {  // a SymFloat: a 0-d double (lower/sym_int.cpp)
    const json& s = a.at("as_sym_float");
    if (s.contains("as_float")) return cscalar(json_float(s.at("as_float")), dtype);
    auto it = values.find(s.at("as_name").get<std::string>());
    if (it == values.end()) unsupported("argument '" + name + "' reads a SymFloat nothing defines");
    return cast(it->second.onnx, it->second.dtype, dtype);
  }
  unsupported("argument '" + name + "' must be a number or a tensor, got " + brief(a));
}

int32_t LowerCtx::dtype_arg(const std::string& name, int32_t fallback) {
  const json* a = arg(name);
  if (!a) return fallback;
  if (!a->contains("as_scalar_type"))
    unsupported("argument '" + name + "' must be a dtype, got " + brief(*a));
  int32_t t = onnx_dtype_of_torch(as_int64((*a).at("as_scalar_type")));
  if (t == 0) unsupported("dtype code " + brief((*a).at("as_scalar_type")) + " has no ONNX equivalent");
  return t;
}

size_t LowerCtx::n_outputs() const {
  return node->at("outputs").size();
}

bool LowerCtx::output_is_tensor(size_t k) const {
  return node->at("outputs").at(k).contains("as_tensor");
}

bool LowerCtx::output_is_tensor_list(size_t k) const {
  return node->at("outputs").at(k).contains("as_tensors");
}

const TensorMeta& LowerCtx::meta_of(const std::string& value) const {
  auto it = tensors->find(value);
  if (it == tensors->end()) unsupported("value '" + value + "' has no tensor metadata");
  return it->second;
}

const TensorMeta& LowerCtx::out_meta(size_t k) const {
  const json& o = node->at("outputs").at(k);
  if (!o.contains("as_tensor")) unsupported("output " + std::to_string(k) + " is not a tensor");
  return meta_of(o.at("as_tensor").at("name").get<std::string>());
}

void LowerCtx::out(size_t k, const std::string& onnx_name) {
  const json& o = node->at("outputs").at(k);
  if (!o.contains("as_tensor")) unsupported("output " + std::to_string(k) + " is not a tensor");
  const TensorMeta& m = out_meta(k);
  Value v;
  v.onnx = onnx_name;
  v.dtype = m.dtype;
  v.shape = m.sizes;
  values[o.at("as_tensor").at("name").get<std::string>()] = std::move(v);
  if (k == 0) apply_mutation(onnx_name);  // an in-place op: later reads of its `self` see the result
}

void LowerCtx::out_sym(size_t k, const std::string& onnx_name, std::optional<int64_t> static_value) {
  const json& o = node->at("outputs").at(k);
  if (!o.contains("as_sym_int")) unsupported("output " + std::to_string(k) + " is not a SymInt");
  Value v;
  v.kind = Value::sym_int;
  v.onnx = onnx_name;
  v.dtype = onnx::TensorProto::INT64;
  v.int_value = static_value;
  values[o.at("as_sym_int").at("as_name").get<std::string>()] = std::move(v);
}

size_t LowerCtx::list_size(size_t k) const {
  const json& o = node->at("outputs").at(k);
  if (!o.contains("as_tensors")) unsupported("output " + std::to_string(k) + " is not a tensor list");
  return o.at("as_tensors").size();
}

const std::vector<Dim>& LowerCtx::list_item_shape(size_t k, size_t item) const {
  const json& o = node->at("outputs").at(k);
  if (!o.contains("as_tensors")) unsupported("output " + std::to_string(k) + " is not a tensor list");
  return meta_of(o.at("as_tensors").at(item).at("name").get<std::string>()).sizes;
}

void LowerCtx::out_list(size_t k, const std::vector<std::string>& names) {
  const json& list = node->at("outputs").at(k).at("as_tensors");
  for (size_t i = 0; i < names.size() && i < list.size(); ++i) {
    const std::string vname = list[i].at("name").get<std::string>();
    const TensorMeta& m = meta_of(vname);
    Value v;
    v.onnx = names[i];
    v.dtype = m.dtype;
    v.shape = m.sizes;
    values[vname] = std::move(v);
  }
}

}  // namespace mx::torch_export
