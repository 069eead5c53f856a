#include "input_specs.hpp"

#include <map>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/error.hpp"
#include "mx/common/json_limits.hpp"
#include "symbol_names.hpp"

namespace mx::torch_export {
using mx::aten_onnx::Error;
namespace {

struct SpecDim {
  std::string name;
  int64_t size = 0;
};
struct Spec {
  std::string text, name, dtype;
  std::vector<SpecDim> dims;
};

[[noreturn]] void bad_spec(const std::string& text, const std::string& why) {
  throw Error(MX_ERR_INVALID_ARGUMENT,
              "input spec '" + mx::common::excerpt(text, 200) + "': " + why +
                  " (expected name:dtype[dim,...], e.g. input_ids:int64[batch=2,seq=16])");
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// One dim of a spec: "N" or "name=N" (spaces around each part), N of 1 to
// 12 digits; false when it is neither.
bool parse_dim(std::string_view item, SpecDim& out) {
  item = trim_spaces(item);
  const size_t eq = item.find('=');
  std::string_view digits = item;
  if (eq != std::string_view::npos) {
    const std::string_view name = trim_spaces(item.substr(0, eq));
    if (!is_identifier(name)) return false;
    out.name = std::string(name);
    digits = trim_spaces(item.substr(eq + 1));
  }
  if (digits.empty() || digits.size() > 12) return false;
  for (char c : digits)
    if (!is_digit(c)) return false;
  out.size = std::stoll(std::string(digits));
  return true;
}

// name:dtype[dims], matched by hand in one pass (the std::regex it replaces
// recursed once per character: a 60 KB spec overflowed the stack).
// name is [A-Za-z_][A-Za-z0-9_.]*, dtype [a-z0-9]+, dims anything but a
// line break up to the final ']'.
Spec parse(const std::string& text) {
  if (text.size() > mx::common::kMaxJsonStringBytes)
    bad_spec(text, "longer than " + std::to_string(mx::common::kMaxJsonStringBytes) + " bytes");
  const size_t colon = text.find(':');
  const size_t open = colon == std::string::npos ? colon : text.find('[', colon + 1);
  if (open == std::string::npos || text.back() != ']' ||
      text.find_first_of("\n\r", open) != std::string::npos)
    bad_spec(text, "not of the form name:dtype[dims]");
  const std::string_view whole(text), name = whole.substr(0, colon),
                                      dtype = whole.substr(colon + 1, open - colon - 1);
  bool name_ok = !name.empty() && is_identifier(name.substr(0, 1));
  for (char c : name)
    name_ok = name_ok && (c == '.' || c == '_' || is_digit(c) || is_identifier(std::string_view(&c, 1)));
  bool dtype_ok = !dtype.empty();
  for (char c : dtype) dtype_ok = dtype_ok && ((c >= 'a' && c <= 'z') || is_digit(c));
  if (!name_ok || !dtype_ok) bad_spec(text, "not of the form name:dtype[dims]");
  Spec s{text, std::string(name), std::string(dtype), {}};
  const std::string_view dims = whole.substr(open + 1, text.size() - open - 2);
  size_t pos = 0;
  while (!dims.empty() && pos <= dims.size()) {
    size_t comma = dims.find(',', pos);
    if (comma == std::string_view::npos) comma = dims.size();
    const std::string_view item = dims.substr(pos, comma - pos);
    SpecDim d;
    if (!parse_dim(item, d)) bad_spec(text, "dim '" + mx::common::excerpt(item) + "' is not N or name=N");
    if (d.size <= 0) bad_spec(text, "dim '" + std::string(item) + "' must be at least 1");
    s.dims.push_back(std::move(d));
    pos = comma + 1;
  }
  return s;
}

// A symbolic dim is named after the program's symbol, or after the name a
// spec gave any dim with that symbol (so every input sharing the symbol
// shares the name).
void set_dim(onnx::TensorShapeProto_Dimension* d, const Dim& dim,
             const std::map<std::string, std::string>& names) {
  if (dim.is_static) return d->set_dim_value(dim.value);
  auto it = names.find(dim.symbol);
  if (!dim.symbol.empty() && it != names.end()) return d->set_dim_param(it->second);
  d->set_dim_param(!dim.symbol.empty() ? dim.symbol : dim.expr);
}

void check_against_program(const Program& p, const Spec& s, const std::string& value, const TensorMeta& m) {
  const std::string want = mx::aten_onnx::dtype_name(m.dtype);
  if (s.dtype != want)
    throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' (spec '" + s.text + "') has dtype " +
                                             s.dtype + " but the program's input '" + value + "' is " + want);
  if (s.dims.size() != m.sizes.size())
    throw Error(MX_ERR_INVALID_ARGUMENT,
                "input '" + s.name + "' (spec '" + s.text + "') has rank " + std::to_string(s.dims.size()) +
                    " but the program expects rank " + std::to_string(m.sizes.size()));
  for (size_t k = 0; k < s.dims.size(); ++k) {
    const Dim& d = m.sizes[k];
    const int64_t size = s.dims[k].size;
    if (d.is_static && size != d.value)
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  "input '" + s.name + "' dim " + std::to_string(k) + " is " + std::to_string(size) +
                      " but the program was exported with a static " + std::to_string(d.value) +
                      " there (re-export with a torch.export.Dim)");
    if (d.is_static) continue;
    auto r = p.ranges.find(d.symbol);
    if (r != p.ranges.end() && (size < r->second.first || size > r->second.second))
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  "input '" + s.name + "' dim " + std::to_string(k) + " = " + std::to_string(size) +
                      " is outside the range the program allows for " + d.symbol + ": [" +
                      std::to_string(r->second.first) + ", " + std::to_string(r->second.second) + "]");
  }
}

}  // namespace

std::vector<std::string> add_graph_inputs(const Program& p, const std::vector<std::string>& spec_texts,
                                          onnx::GraphProto& graph) {
  std::map<std::string, Spec> specs;
  for (const auto& t : spec_texts) {
    Spec s = parse(t);
    if (!specs.emplace(s.name, s).second)
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' given twice");
  }
  std::vector<std::string> names, known;
  for (const auto& in : p.inputs)
    if (in.kind == InputSlot::user) known.push_back(in.value);
  for (const auto& [name, s] : specs)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  "unknown input '" + name + "' (spec '" + s.text + "'); the program's inputs are: " + list);
    }
  std::map<std::string, std::string> dim_names;  // program symbol -> spec name
  for (const auto& in : p.inputs) {
    auto spec = specs.find(in.value);
    auto meta = p.tensors.find(in.value);
    if (in.kind != InputSlot::user || spec == specs.end() || meta == p.tensors.end()) continue;
    for (size_t k = 0; k < spec->second.dims.size() && k < meta->second.sizes.size(); ++k) {
      const Dim& d = meta->second.sizes[k];
      const std::string& name = spec->second.dims[k].name;
      if (d.is_static || d.symbol.empty() || name.empty()) continue;
      auto [it, fresh] = dim_names.emplace(d.symbol, name);
      if (!fresh && it->second != name)
        throw Error(MX_ERR_INVALID_ARGUMENT, "input specs name the program's dim " + d.symbol + " both '" +
                                                 it->second + "' and '" + name + "' (one size, one name)");
    }
  }
  for (const auto& in : p.inputs) {
    if (in.kind != InputSlot::user) continue;
    if (in.value.empty())
      throw Error(MX_ERR_UNSUPPORTED, "'" + p.file + "': a non-tensor model input is not supported");
    auto meta = p.tensors.find(in.value);
    if (meta == p.tensors.end())
      throw Error(MX_ERR_PARSE, "'" + p.file + "': input '" + in.value + "' has no metadata");
    if (meta->second.dtype == 0)
      throw Error(MX_ERR_UNSUPPORTED,
                  "'" + p.file + "': input '" + in.value + "' has a dtype ONNX cannot express");
    auto spec = specs.find(in.value);
    if (spec != specs.end()) check_against_program(p, spec->second, in.value, meta->second);
    auto* vi = graph.add_input();
    vi->set_name(in.value);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(meta->second.dtype);
    auto* shape = tt->mutable_shape();
    for (size_t k = 0; k < meta->second.sizes.size(); ++k)
      set_dim(shape->add_dim(), meta->second.sizes[k], dim_names);
    names.push_back(in.value);
  }
  return names;
}

}  // namespace mx::torch_export
