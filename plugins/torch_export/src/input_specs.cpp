#include "input_specs.hpp"

#include <map>
#include <regex>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/error.hpp"

namespace mxte {
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
  throw Error(MX_ERR_INVALID_ARGUMENT, "input spec '" + text + "': " + why +
                                           " (expected name:dtype[dim,...], e.g. input_ids:int64[batch=2,seq=16])");
}

Spec parse(const std::string& text) {
  static const std::regex whole(R"(^([A-Za-z_][A-Za-z0-9_.]*):([a-z0-9]+)\[(.*)\]$)");
  std::smatch m;
  if (!std::regex_match(text, m, whole)) bad_spec(text, "not of the form name:dtype[dims]");
  Spec s{text, m[1], m[2], {}};
  const std::string dims = m[3];
  static const std::regex dim(R"(^\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*=\s*)?([0-9]{1,12})\s*$)");
  size_t pos = 0;
  while (!dims.empty() && pos <= dims.size()) {
    size_t comma = dims.find(',', pos);
    if (comma == std::string::npos) comma = dims.size();
    const std::string item = dims.substr(pos, comma - pos);
    std::smatch d;
    if (!std::regex_match(item, d, dim)) bad_spec(text, "dim '" + item + "' is not N or name=N");
    const int64_t size = std::stoll(d[2]);
    if (size <= 0) bad_spec(text, "dim '" + item + "' must be at least 1");
    s.dims.push_back({d[1], size});
    pos = comma + 1;
  }
  return s;
}

// A symbolic dim is named after the program's symbol, or after the name a
// spec gave any dim with that symbol (so every input sharing the symbol
// shares the name).
void set_dim(onnx::TensorShapeProto_Dimension* d, const Dim& dim, const std::map<std::string, std::string>& names) {
  if (dim.is_static) return d->set_dim_value(dim.value);
  auto it = names.find(dim.symbol);
  if (!dim.symbol.empty() && it != names.end()) return d->set_dim_param(it->second);
  d->set_dim_param(!dim.symbol.empty() ? dim.symbol : dim.expr);
}

void check_against_program(const Program& p, const Spec& s, const std::string& value, const TensorMeta& m) {
  const std::string want = mx::aten_onnx::dtype_name(m.dtype);
  if (s.dtype != want)
    throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' (spec '" + s.text + "') has dtype " + s.dtype +
                                             " but the program's input '" + value + "' is " + want);
  if (s.dims.size() != m.sizes.size())
    throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' (spec '" + s.text + "') has rank " +
                                             std::to_string(s.dims.size()) + " but the program expects rank " +
                                             std::to_string(m.sizes.size()));
  for (size_t k = 0; k < s.dims.size(); ++k) {
    const Dim& d = m.sizes[k];
    const int64_t size = s.dims[k].size;
    if (d.is_static && size != d.value)
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' dim " + std::to_string(k) + " is " +
                                               std::to_string(size) + " but the program was exported with a static " +
                                               std::to_string(d.value) + " there (re-export with a torch.export.Dim)");
    if (d.is_static) continue;
    auto r = p.ranges.find(d.symbol);
    if (r != p.ranges.end() && (size < r->second.first || size > r->second.second))
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' dim " + std::to_string(k) + " = " +
                                               std::to_string(size) + " is outside the range the program allows for " +
                                               d.symbol + ": [" + std::to_string(r->second.first) + ", " +
                                               std::to_string(r->second.second) + "]");
  }
}

}  // namespace

std::vector<std::string> add_graph_inputs(const Program& p, const std::vector<std::string>& spec_texts,
                                          onnx::GraphProto& graph) {
  std::map<std::string, Spec> specs;
  for (const auto& t : spec_texts) {
    Spec s = parse(t);
    if (!specs.emplace(s.name, s).second) throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' given twice");
  }
  std::vector<std::string> names, known;
  for (const auto& in : p.inputs)
    if (in.kind == InputSlot::user) known.push_back(in.value);
  for (const auto& [name, s] : specs)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error(MX_ERR_INVALID_ARGUMENT, "unknown input '" + name + "' (spec '" + s.text +
                                               "'); the program's inputs are: " + list);
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
        throw Error(MX_ERR_INVALID_ARGUMENT, "input specs name the program's dim " + d.symbol + " both '" + it->second +
                                                 "' and '" + name + "' (one size, one name)");
    }
  }
  for (const auto& in : p.inputs) {
    if (in.kind != InputSlot::user) continue;
    if (in.value.empty())
      throw Error(MX_ERR_UNSUPPORTED, "'" + p.file + "': a non-tensor model input is not supported");
    auto meta = p.tensors.find(in.value);
    if (meta == p.tensors.end()) throw Error(MX_ERR_PARSE, "'" + p.file + "': input '" + in.value + "' has no metadata");
    if (meta->second.dtype == 0)
      throw Error(MX_ERR_UNSUPPORTED, "'" + p.file + "': input '" + in.value + "' has a dtype ONNX cannot express");
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

}  // namespace mxte
