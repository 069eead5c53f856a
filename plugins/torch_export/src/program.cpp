#include "program.hpp"
#include "json_integers.hpp"

#include "mx/onnx_proto.hpp"

#include <set>
#include <vector>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"
#include "mx/common/json_limits.hpp"
#include "symbol_names.hpp"

namespace mx::torch_export {
using mx::aten_onnx::Error;
using json = nlohmann::json;
namespace {

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw Error(MX_ERR_PARSE, "'" + file + "': " + what);
}

std::string trimmed(std::string_view s) {
  std::string out(s);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

Dim read_dim(const json& d) {
  Dim out;
  if (d.contains("as_int")) {
    out.value = as_int64(d.at("as_int"));
    return out;
  }
  const json& e = d.at("as_expr");
  out.is_static = false;
  out.expr = e.at("expr_str").get<std::string>();
  if (e.contains("hint") && e.at("hint").is_object() && e.at("hint").contains("as_int"))
    out.value = as_int64(e.at("hint").at("as_int"));
  out.symbol = symbol_of_expr(out.expr);
  return out;
}

InputSlot read_input(const json& spec) {
  InputSlot s;
  if (spec.contains("user_input")) {
    s.kind = InputSlot::user;
    const json& a = spec.at("user_input").at("arg");
    if (a.contains("as_tensor")) s.value = a.at("as_tensor").at("name").get<std::string>();
  } else if (spec.contains("parameter")) {
    s.kind = InputSlot::parameter;
    s.value = spec.at("parameter").at("arg").at("name").get<std::string>();
    s.target = spec.at("parameter").at("parameter_name").get<std::string>();
  } else if (spec.contains("buffer")) {
    s.kind = InputSlot::buffer;
    s.value = spec.at("buffer").at("arg").at("name").get<std::string>();
    s.target = spec.at("buffer").at("buffer_name").get<std::string>();
  } else if (spec.contains("tensor_constant")) {
    s.kind = InputSlot::constant;
    s.value = spec.at("tensor_constant").at("arg").at("name").get<std::string>();
    s.target = spec.at("tensor_constant").at("tensor_constant_name").get<std::string>();
  } else if (spec.contains("token")) {
    s.kind = InputSlot::token;
    s.value = spec.at("token").at("arg").at("name").get<std::string>();
  }
  return s;
}

// A buffer_mutation / parameter_mutation / user_input_mutation output
// spec, appended to `out`; false for any other spec.
bool read_mutation(const json& spec, std::vector<Mutation>& out) {
  static const struct {
    const char* spec;
    const char* name;
    Mutation::Kind kind;
  } kinds[] = {{"buffer_mutation", "buffer_name", Mutation::buffer},
               {"parameter_mutation", "parameter_name", Mutation::parameter},
               {"user_input_mutation", "user_input_name", Mutation::user_input}};
  for (const auto& k : kinds) {
    if (!spec.contains(k.spec)) continue;
    const json& m = spec.at(k.spec);
    out.push_back({k.kind, m.at("arg").at("name").get<std::string>(), m.at(k.name).get<std::string>()});
    return true;
  }
  return false;
}

// Every value of a graph is defined once, in the top graph and in each
// nested graph of a higher-order op (torch.export.load refuses a program
// that defines one twice; lowering it, the second definition would
// silently replace the first for every later reader). Nested graphs are
// walked with a work list: programs nest them as deep as their JSON allows.
void refuse_values_defined_twice(const Program& p, const json& top_nodes) {
  struct Graph {
    const json* nodes;
    std::set<std::string> defined;  // its inputs, then its nodes' outputs
    bool nested;
  };
  auto names_of = [](const json& list, std::set<std::string>& into) {
    if (!list.is_array()) return;
    for (const auto& v : list)
      if (v.is_object() && v.contains("as_tensor") && v.at("as_tensor").is_object() &&
          v.at("as_tensor").contains("name") && v.at("as_tensor").at("name").is_string())
        into.insert(v.at("as_tensor").at("name").get<std::string>());
  };
  std::vector<Graph> work{{&top_nodes, {}, false}};
  for (const auto& in : p.inputs)
    if (!in.value.empty()) work.back().defined.insert(in.value);
  while (!work.empty()) {
    Graph g = std::move(work.back());
    work.pop_back();
    if (!g.nodes->is_array()) continue;
    for (size_t k = 0; k < g.nodes->size(); ++k) {
      const json& node = (*g.nodes)[k];
      if (!node.is_object()) continue;
      auto define = [&](const json& tensor) {
        if (!tensor.is_object() || !tensor.contains("name") || !tensor.at("name").is_string()) return;
        const std::string& name = tensor.at("name").get_ref<const std::string&>();
        if (g.defined.insert(name).second) return;
        const json* target =
            node.contains("target") && node.at("target").is_string() ? &node.at("target") : nullptr;
        bad(p.file, "value '" + mx::common::excerpt(name) + "' is defined twice (again by " +
                        (g.nested ? "node " + std::to_string(k) + " of a nested graph"
                                  : "graph node " + std::to_string(k)) +
                        ", " + (target ? mx::common::excerpt(target->get<std::string>()) : std::string("?")) +
                        ")");
      };
      if (node.contains("outputs") && node.at("outputs").is_array())
        for (const auto& out : node.at("outputs")) {
          if (!out.is_object()) continue;
          if (out.contains("as_tensor")) define(out.at("as_tensor"));
          if (out.contains("as_tensors") && out.at("as_tensors").is_array())
            for (const auto& t : out.at("as_tensors")) define(t);
        }
      if (!node.contains("inputs") || !node.at("inputs").is_array()) continue;
      for (const auto& in : node.at("inputs")) {
        if (!in.is_object() || !in.contains("arg") || !in.at("arg").is_object() ||
            !in.at("arg").contains("as_graph"))
          continue;
        const json& body = in.at("arg").at("as_graph");
        if (!body.is_object() || !body.contains("graph") || !body.at("graph").is_object()) continue;
        const json& graph = body.at("graph");
        if (!graph.contains("nodes")) continue;
        Graph nested{&graph.at("nodes"), {}, true};
        if (graph.contains("inputs")) names_of(graph.at("inputs"), nested.defined);
        work.push_back(std::move(nested));
      }
    }
  }
}

}  // namespace

std::map<std::string, TensorMeta> read_tensor_values(const json& graph) {
  std::map<std::string, TensorMeta> out;
  for (const auto& [name, meta] : graph.at("tensor_values").items()) {
    TensorMeta t;
    const int64_t code = as_int64(meta.at("dtype"));
    if (!is_torch_dtype_code(code))  // torch.export.load refuses it too
      throw std::runtime_error("tensor_values '" + mx::common::excerpt(name) + "': dtype " +
                               std::to_string(code) + " is not a torch.export ScalarType code");
    t.dtype = onnx_dtype_of_torch(code);
    for (const auto& d : meta.at("sizes")) t.sizes.push_back(read_dim(d));
    if (meta.contains("strides") && meta.at("strides").is_array())
      for (const auto& d : meta.at("strides")) t.strides.push_back(read_dim(d));
    if (meta.contains("storage_offset") && meta.at("storage_offset").is_object())
      t.storage_offset = read_dim(meta.at("storage_offset"));
    out.emplace(name, std::move(t));
  }
  return out;
}

bool is_torch_dtype_code(int64_t t) {
  return (t >= 0 && t <= 13) || (t >= 28 && t <= 35);
}

int32_t onnx_dtype_of_torch(int64_t t) {
  switch (t) {
    case 1:
      return onnx::TensorProto::UINT8;
    case 2:
      return onnx::TensorProto::INT8;
    case 3:
      return onnx::TensorProto::INT16;
    case 4:
      return onnx::TensorProto::INT32;
    case 5:
      return onnx::TensorProto::INT64;
    case 6:
      return onnx::TensorProto::FLOAT16;
    case 7:
      return onnx::TensorProto::FLOAT;
    case 8:
      return onnx::TensorProto::DOUBLE;
    case 12:
      return onnx::TensorProto::BOOL;
    case 10:
      return onnx::TensorProto::COMPLEX64;  // lowered as float [..., 2] (lower/fft.cpp)
    case 11:
      return onnx::TensorProto::COMPLEX128;  // double [..., 2]
    case 13:
      return onnx::TensorProto::BFLOAT16;
    default:
      return 0;
  }
}

Program read_program(const Archive& archive) {
  Program p;
  p.file = archive.path();
  const std::string format = trimmed(archive.read("archive_format"));
  if (format != "pt2") bad(p.file, "archive_format is '" + format + "', expected 'pt2'");
  if (archive.has("byteorder")) {
    const std::string order = trimmed(archive.read("byteorder"));
    if (order != "little")
      bad(p.file, "byteorder is '" + order + "'; only little-endian archives are supported");
  }
  return parse_program(p.file, archive.read("models/model.json"));
}

Program parse_program(const std::string& file, std::string_view text) {
  Program p;
  p.file = file;
  const std::string violation = mx::common::json_limit_violation(text);
  if (!violation.empty()) bad(p.file, "models/model.json: " + violation);
  try {
    p.model = json::parse(text.begin(), text.end());
  } catch (const std::exception& e) {
    bad(p.file, std::string("models/model.json is not JSON: ") + e.what());
  }
  try {
    const json& v = p.model.at("schema_version");
    const int major = static_cast<int>(as_int64(v.at("major")));
    if (major != kSchemaMajor)
      throw Error(
          MX_ERR_UNSUPPORTED,
          "'" + p.file + "' was written with torch.export schema version " + std::to_string(major) + "." +
              std::to_string(
                  v.contains("minor") && v.at("minor").is_number_integer() ? as_int64(v.at("minor")) : 0) +
              "; this frontend reads major version " + std::to_string(kSchemaMajor) +
              " (torch 2.6 and later)");
    const json& gm = p.model.at("graph_module");
    const json& nodes = gm.at("graph").at("nodes");
    if (!nodes.is_array()) bad(p.file, "graph.nodes is not a list");
    for (size_t k = 0; k < nodes.size(); ++k) {
      const json& n = nodes[k];
      if (!n.is_object() || !n.contains("target") || !n.at("target").is_string() || !n.contains("inputs") ||
          !n.at("inputs").is_array() || !n.contains("outputs") || !n.at("outputs").is_array())
        bad(p.file, "graph node " + std::to_string(k) + " lacks a string target or input/output lists");
      for (const auto& in : n.at("inputs"))
        if (!in.is_object() || !in.contains("name") || !in.at("name").is_string() || !in.contains("arg") ||
            !in.at("arg").is_object())
          bad(p.file, "graph node " + std::to_string(k) + " (" + n.at("target").get<std::string>() +
                          ") has an input without a name and an argument");
    }
    p.tensors = read_tensor_values(gm.at("graph"));
    for (const auto& spec : gm.at("signature").at("input_specs")) p.inputs.push_back(read_input(spec));
    refuse_values_defined_twice(p, nodes);
    for (const auto& spec : gm.at("signature").at("output_specs")) {
      if (read_mutation(spec, p.mutations)) continue;
      if (!spec.contains("user_output")) continue;
      const json& a = spec.at("user_output").at("arg");
      if (!a.contains("as_tensor"))
        throw Error(MX_ERR_UNSUPPORTED, "'" + p.file + "': a model output that is not a tensor (" + brief(a) +
                                            ") is not supported");
      p.user_outputs.push_back(a.at("as_tensor").at("name").get<std::string>());
    }
    if (p.model.contains("range_constraints"))
      for (const auto& [sym, r] : p.model.at("range_constraints").items()) {
        const int64_t lo =
            r.contains("min_val") && !r.at("min_val").is_null() ? as_int64(r.at("min_val")) : INT64_MIN;
        const int64_t hi = r.contains("max_val") && r.at("max_val").is_number_integer()
                               ? as_int64(r.at("max_val"))
                               : INT64_MAX;
        if (lo > hi)  // torch.export.load refuses it too: no size satisfies it
          bad(p.file, "range_constraints of " + mx::common::excerpt(sym) + ": min_val " + std::to_string(lo) +
                          " is above max_val " + std::to_string(hi));
        p.ranges[sym] = {lo, hi};
      }
    if (p.model.contains("verifiers") && p.model.at("verifiers").is_array() &&
        !p.model.at("verifiers").empty())
      p.dialect = p.model.at("verifiers")[0].get<std::string>();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    bad(p.file, std::string("models/model.json does not follow the torch.export schema: ") + e.what());
  }
  return p;
}

}  // namespace mx::torch_export
