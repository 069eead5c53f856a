// Top level of the torch.export frontend: archive -> program -> inputs,
// parameters as initializers -> every node lowered in the module its
// nn_module_stack names -> outputs -> the shared model assembly and the
// hierarchy document.
#include "exporter.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "archive.hpp"
#include "autocast.hpp"
#include "input_specs.hpp"
#include "json_excerpt.hpp"
#include "lower_ctx.hpp"
#include "module_stack.hpp"
#include "modelexport/modelexport.h"
#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/aten_onnx/hierarchy_document.hpp"
#include "mx/aten_onnx/lowering_plugins.hpp"
#include "mx/aten_onnx/opset.hpp"
#include "mx/aten_onnx/module_tree.hpp"
#include "mx/common/module_path.hpp"
#include "program.hpp"
#include "state.hpp"
#include "stored_tensors.hpp"

namespace mx::torch_export {
namespace {
using json = nlohmann::json;

std::string target_of(const json& node) {
  std::string t = node.at("target").get<std::string>();
  if (t.rfind("torch.ops.", 0) == 0) t = t.substr(10);
  return t;
}

// What the module stacks tell about one module.
struct SeenModule {
  std::string qualified_class;
  int order = -1;
};

struct NodePlace {
  std::string module;
  bool placed = false;  // false: the program places the node in no module
};

// The entries of a node's nn_module_stack; a malformed one is an error
// naming the file, the node, its op and the field (not the node lowered
// before it).
std::vector<StackEntry> module_stack_of(const json& node, const std::string& file) {
  auto meta = node.find("metadata");
  if (meta == node.end() || !meta->is_object()) return {};
  auto stack = meta->find("nn_module_stack");
  if (stack == meta->end() || stack->is_null()) return {};
  try {
    if (!stack->is_string()) throw std::runtime_error("must be a string, got " + brief(*stack));
    return parse_module_stack(stack->get_ref<const std::string&>());
  } catch (const std::exception& e) {
    const auto target = node.find("target");
    const std::string op = target != node.end() && target->is_string() ? target_of(node) : "?";
    throw Error(MX_ERR_PARSE, "'" + file + "': node '" + node_name(node) + "' (" + op +
                                  "): metadata.nn_module_stack " + e.what());
  }
}

NodePlace place_of(const json& node, std::map<std::string, SeenModule>& seen, const std::string& file) {
  NodePlace p;
  for (const auto& e : module_stack_of(node, file)) {
    seen.emplace(e.path, SeenModule{e.qualified_class, static_cast<int>(seen.size())});  // first call wins
    p.module = e.path;
    p.placed = true;
  }
  return p;
}

// Every op of the program without a lowering, each with its node and
// module, in one error (not only the first). Bodies of higher-order ops
// are walked with a stack of their own, each before the node that holds
// it: programs nest them as deep as their JSON allows.
void collect_missing(const json& graph, std::map<std::string, std::vector<std::string>>& missing,
                     std::map<std::string, SeenModule>& seen, const std::string& file) {
  struct Frame {
    const json* nodes;
    size_t next = 0;
    bool bodies_walked = false;  // of nodes[next]
  };
  std::vector<Frame> stack{{&graph.at("nodes")}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next >= f.nodes->size()) {
      stack.pop_back();
      continue;
    }
    const json& node = (*f.nodes)[f.next];
    if (!f.bodies_walked) {
      f.bodies_walked = true;
      std::vector<const json*> bodies;
      for (const auto& in : node.at("inputs"))
        if (in.at("arg").contains("as_graph"))
          bodies.push_back(&in.at("arg").at("as_graph").at("graph").at("nodes"));
      for (auto it = bodies.rbegin(); it != bodies.rend(); ++it) stack.push_back({*it});  // first body on top
      continue;
    }
    ++f.next;
    f.bodies_walked = false;
    const std::string target = target_of(node);
    if (mx::aten_onnx::lowering_of(target, kFrontend)) continue;
    auto& where = missing[target];
    if (where.size() < 3)
      where.push_back("node '" + node_name(node) + "' in module '" + place_of(node, seen, file).module + "'");
  }
}

void require_lowerings(const Program& p) {
  std::map<std::string, std::vector<std::string>> missing;
  std::map<std::string, SeenModule> seen;
  try {
    collect_missing(p.graph(), missing, seen, p.file);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // the top graph's nodes were checked by read_program, nested ones not
    throw Error(MX_ERR_PARSE,
                "'" + p.file + "': a nested graph does not follow the torch.export schema: " + e.what());
  }
  if (missing.empty()) return;
  std::string msg =
      "'" + p.file + "': " + std::to_string(missing.size()) + " op(s) of the program have no ONNX lowering:";
  for (const auto& [target, where] : missing) {
    msg += "\n  " + target + " (";
    for (size_t k = 0; k < where.size(); ++k) msg += (k ? "; " : "") + where[k];
    msg += ")";
  }
  // An op from outside PyTorch's own namespaces is a library's custom op
  // (torch.library, transformers' kernels): say what the user can do.
  std::string custom;
  for (const auto& [target, where] : missing) {
    const std::string ns = target.substr(0, target.find('.'));
    if (ns != "aten" && ns != "prims" && ns != "higher_order" && ns != "_operator" && ns != "torch" &&
        ns != "math")
      custom += (custom.empty() ? "" : ", ") + target;
  }
  if (!custom.empty())
    msg +=
        "\n" + custom + " " + (custom.find(',') == std::string::npos ? "is a custom op" : "are custom ops") +
        " of another library: export the program after ep.run_decompositions() if the library registered a "
        "decomposition, put a lowering plugin for it on MODELEXPORT_PLUGIN_PATH (docs/lowering-plugins.md; "
        "lowering plugins found: " +
        mx::aten_onnx::active_lowering_plugins() +
        "), or replace the op in the model before "
        "torch.export";
  throw Error(MX_ERR_UNSUPPORTED, msg);
}

// Parameters, buffers and lifted constants become initializers named by
// their fully qualified name (one the program writes is also a graph
// input, state.hpp); returns the weights' bytes by name.
mx::aten_onnx::WeightMap bind_stored(const Program& p, const StoredTensors& stored, LowerCtx& cx) {
  mx::aten_onnx::WeightMap weights;
  // A lifted constant that is a buffer's or parameter's very tensor (the
  // same bytes of the archive: a StaticCache's caches, reached through a
  // plain attribute in a non-strict export, are lifted as constants beside
  // the buffers they are) is read under the buffer's name: one tensor, one
  // ONNX value, and a write to it is the buffer's (state.hpp).
  std::map<std::tuple<uint64_t, uint64_t, int32_t, std::vector<int64_t>>, std::string> module_tensors;
  auto identity = [](const StoredTensor& t) {
    return std::make_tuple(t.bytes.source_offset, t.bytes.size, t.dtype, t.dims);
  };
  for (const auto& in : p.inputs)
    if (in.kind == InputSlot::parameter || in.kind == InputSlot::buffer)
      if (const StoredTensor* t = stored.find(in.target);
          t && t->bytes.source_offset != mx::aten_onnx::kNotInSource)
        module_tensors.emplace(identity(*t), in.target);
  for (const auto& in : p.inputs) {
    if (in.kind != InputSlot::parameter && in.kind != InputSlot::buffer && in.kind != InputSlot::constant)
      continue;
    const StoredTensor* t = stored.find(in.target);
    if (!t)
      throw Error(MX_ERR_PARSE, "'" + p.file + "': " + in.target + " (graph value '" + in.value +
                                    "') has no stored data (a non-persistent buffer?)");
    if (in.kind == InputSlot::constant && t->bytes.source_offset != mx::aten_onnx::kNotInSource)
      if (auto same = module_tensors.find(identity(*t)); same != module_tensors.end()) {
        const StoredTensor& m = *stored.find(same->second);
        Value v;
        v.onnx = same->second;
        v.dtype = m.dtype;
        for (auto d : m.dims) v.shape.push_back(Dim{true, d, "", ""});
        cx.values[in.value] = std::move(v);
        cx.input_onnx[in.value] = same->second;
        continue;
      }
    auto* init = cx.graph.add_initializer();
    init->set_name(in.target);
    // A complex tensor's bytes are its real pairs: the initializer is the
    // real tensor with a trailing axis of 2 that lower/fft.cpp computes on.
    const bool complex =
        t->dtype == onnx::TensorProto::COMPLEX64 || t->dtype == onnx::TensorProto::COMPLEX128;
    init->set_data_type(!complex                                   ? t->dtype
                        : t->dtype == onnx::TensorProto::COMPLEX64 ? onnx::TensorProto::FLOAT
                                                                   : onnx::TensorProto::DOUBLE);
    for (auto d : t->dims) init->add_dims(d);
    if (complex) init->add_dims(2);
    weights[in.target] = t->bytes;
    weights[in.target].program_constant = in.kind == InputSlot::constant;
    // bytes in the archive's read-only mapping (a gathered copy is not)
    weights[in.target].file_mapped = t->bytes.source_offset != mx::aten_onnx::kNotInSource;
    Value v;
    v.onnx = in.target;
    v.dtype = t->dtype;
    for (auto d : t->dims) v.shape.push_back(Dim{true, d, "", ""});
    cx.values[in.value] = std::move(v);
    cx.input_onnx[in.value] = in.target;
  }
  return weights;
}

// A node reading a complex tensor (carried as real pairs, lower/fft.cpp)
// lowers through its "complex." lowering, or is refused: an op unaware of
// the pair layout would compute garbage silently.
mx::aten_onnx::LowerFn lowering_for(LowerCtx& cx, const json& node) {
  bool complex = false;
  auto note = [&](const json& t) {
    auto it = cx.values.find(t.at("name").get<std::string>());
    complex |= it != cx.values.end() && (it->second.dtype == onnx::TensorProto::COMPLEX64 ||
                                         it->second.dtype == onnx::TensorProto::COMPLEX128);
  };
  for (const auto& in : node.at("inputs")) {  // a tensor, or a list of them (cat, stack)
    const json& a = in.at("arg");
    if (a.contains("as_tensor")) note(a.at("as_tensor"));
    if (a.contains("as_tensors"))
      for (const auto& t : a.at("as_tensors")) note(t);
  }
  if (!complex) {
    // A node that reads no tensor and makes a complex one (core ATen's
    // scalar_tensor / full of a complex number), or that reads a Python
    // complex number (`x * 1j`: a real tensor promoted), has its complex
    // lowering.
    bool reads_tensor = false, reads_complex_number = false;
    for (const auto& in : node.at("inputs")) {
      reads_tensor |= in.at("arg").contains("as_tensor") || in.at("arg").contains("as_tensors");
      reads_complex_number |= in.at("arg").contains("as_complex");
    }
    const bool makes = !reads_tensor || reads_complex_number;
    const int32_t out = makes && cx.n_outputs() > 0 && cx.output_is_tensor(0) ? cx.out_dtype(0) : 0;
    if (out == onnx::TensorProto::COMPLEX64 || out == onnx::TensorProto::COMPLEX128)
      if (mx::aten_onnx::LowerFn fn = find_lowering("complex." + cx.target())) return fn;
    return mx::aten_onnx::lowering_of(cx.target(), kFrontend);
  }
  if (mx::aten_onnx::LowerFn fn = find_lowering("complex." + cx.target())) return fn;
  cx.unsupported(
      "a complex tensor as input (complex values are lowered for the FFTs, abs, angle, real/imag, "
      "view_as_real, add/sub/mul/div, neg, reciprocal, pow, exp, log, sqrt, sin/cos/sinh/cosh/tanh, "
      "sigmoid, sum/mean/prod, var/std, vector norms, matrix products and view ops only)");
}

// The tensor outputs the node's lowering left unbound, named for a later
// reader's message.
void note_uncomputed(LowerCtx& cx, const json& node) {
  const auto why = cx.take_uncomputed_reasons();
  size_t k = 0;
  for (const auto& o : node.value("outputs", json::array())) {
    if (o.contains("as_tensor")) {
      const std::string name = o.at("as_tensor").at("name").get<std::string>();
      if (!cx.values.count(name)) {
        auto it = why.find(k);
        cx.uncomputed[name] = "output " + std::to_string(k) + " of node '" + node_name(node) + "' (" +
                              cx.target() + (it == why.end() ? "" : ": " + it->second) + ")";
      }
    }
    ++k;
  }
}

// The node's records get evidence `root` when the program placed it in
// no module (`direct` otherwise, set by the emitter): the input size reads
// torch.export hoists to the top of the graph carry a placeholder stack,
// and no module of the program is recorded as running them
// (README.md, "Lowering").
void lower_node(LowerCtx& cx, const json& node, std::map<std::string, SeenModule>& seen) {
  cx.node = &node;
  cx.set_target(target_of(node));
  const NodePlace place = place_of(node, seen, cx.program.file);
  cx.module = place.module;
  const size_t first = cx.records.size();
  for (const auto& in : node.at("inputs")) {  // every tensor the node reads must be defined before it
    const json& a = in.at("arg");
    if (a.contains("as_tensor") && !cx.values.count(a.at("as_tensor").at("name").get<std::string>()))
      cx.unsupported("input '" + in.value("name", std::string()) + "' reads value '" +
                     a.at("as_tensor").at("name").get<std::string>() + "', " +
                     cx.undefined_because(a.at("as_tensor").at("name").get<std::string>()));
  }
  const AutocastInputs autocast(cx, node);
  lowering_for(cx, node)(cx);
  note_uncomputed(cx, node);
  if (!place.placed)
    for (size_t k = first; k < cx.records.size(); ++k) cx.records[k].evidence = "root";
}

std::vector<mx::aten_onnx::ModuleInfo> module_infos(const Program& p, const StoredTensors& stored,
                                                    const std::map<std::string, SeenModule>& seen) {
  // Parameter counts from the signature's parameters (each counted once).
  std::map<std::string, int64_t> numel;
  for (const auto& in : p.inputs)
    if (in.kind == InputSlot::parameter)
      if (const StoredTensor* t = stored.find(in.target)) {
        int64_t n = 1;
        for (auto d : t->dims) n *= d;
        numel[in.target] = n;
      }
  std::map<std::string, mx::aten_onnx::ModuleInfo> by_path;
  for (const auto& [path, m] : seen) {
    mx::aten_onnx::ModuleInfo info;
    info.path = path;
    info.qualified_class = m.qualified_class;
    info.cls = mx::aten_onnx::class_of(m.qualified_class);
    info.executed = true;
    info.execution_order = m.order;
    by_path[path] = info;
  }
  if (!by_path.count("")) by_path[""] = {"", "Module", "", 0, 0, true, 0, false, nullptr};
  // Modules the program knows (module_call_graph) but no node ran in: an
  // eval-mode Dropout after run_decompositions(). Class unknown.
  const json& gm = p.model.at("graph_module");
  if (gm.contains("module_call_graph") && gm.at("module_call_graph").is_array())
    for (const auto& entry : gm.at("module_call_graph"))
      if (entry.is_object() && entry.contains("fqn") && entry.at("fqn").is_string()) {
        const std::string fqn = entry.at("fqn").get<std::string>();
        if (!by_path.count(fqn)) by_path[fqn] = {fqn, "Module", "", 0, 0, false, -1, true, nullptr};
      }
  // Ancestors no node ran in (a ModuleList, a Sequential whose children
  // are called directly): listed so the tree is whole, class unknown.
  // A prefix sorts before its extensions, so an ancestor already present
  // had its own chain completed: the climb stops there (linear, not
  // modules x depth x path length for deeply nested stacks).
  for (auto it = by_path.begin(); it != by_path.end(); ++it)
    for (std::string a = mx::common::parent_path(it->first); !a.empty(); a = mx::common::parent_path(a)) {
      if (by_path.count(a)) break;
      by_path[a] = {a, "Module", "", 0, 0, false, -1, true, nullptr};  // class unknown
    }
  // Each parameter counts toward its module (own) and every ancestor: one
  // climb per parameter, not a scan of all parameters per module.
  for (const auto& [name, n] : numel) {
    const std::string owner = mx::common::parent_path(name);
    if (auto it = by_path.find(owner); it != by_path.end()) it->second.own_parameters += n;
    for (std::string a = owner;; a = mx::common::parent_path(a)) {
      if (auto it = by_path.find(a); it != by_path.end()) it->second.parameters += n;
      if (a.empty()) break;
    }
  }
  std::vector<mx::aten_onnx::ModuleInfo> out;
  out.push_back(by_path.at(""));
  for (auto& [path, info] : by_path)
    if (!path.empty()) out.push_back(info);
  return out;
}

mx::aten_onnx::DocumentSource document_source(const std::string& model_path, int opset) {
  return {"torch.export", MXTE_VERSION, model_path, opset};
}

// `progress` (ExportOptions::progress) hears of every top-level node lowered.
void report_lowered(const std::function<bool(uint64_t, uint64_t)>& progress, uint64_t done, uint64_t total) {
  if (progress && !progress(done, total)) throw Error(MX_ERR_CANCELLED, "torch_export: export cancelled");
}

// Lowers every node of the program in `cx`, then names the graph outputs.
// Returns the sidecar's "state" (add_state).
json lower_graph(LowerCtx& cx, const Program& program, std::map<std::string, SeenModule>& seen,
                 const std::function<bool(uint64_t, uint64_t)>& progress = {}, bool state_outputs = true) {
  cx.lower_nested = [&](const json& node) { lower_node(cx, node, seen); };
  const json& nodes = program.graph().at("nodes");
  uint64_t lowered = 0;
  report_lowered(progress, lowered, nodes.size());
  for (const auto& node : nodes) {
    if (cx.skip_through) {  // a node of a vmap region its first node unrolled
      if (&node == cx.skip_through) cx.skip_through = nullptr;
      report_lowered(progress, ++lowered, nodes.size());
      continue;
    }
    try {
      lower_node(cx, node, seen);
    } catch (const Error& e) {
      // A shared helper's error (a constant of a dtype it cannot write, ...)
      // knows no node: name the one being lowered.
      if (std::string(e.what()).find(cx.where()) != std::string::npos) throw;
      throw Error(e.code, "'" + program.file + "': cannot lower " + cx.where() + ": " + e.what());
    } catch (const std::exception& e) {
      throw Error(MX_ERR_UNSUPPORTED, "'" + program.file + "': cannot lower " + cx.where() + ": " + e.what());
    }
    report_lowered(progress, ++lowered, nodes.size());
  }
  cx.module = "";
  cx.node = nullptr;
  for (size_t k = 0; k < program.user_outputs.size(); ++k) {
    auto it = cx.values.find(program.user_outputs[k]);
    if (it == cx.values.end())
      throw Error(MX_ERR_PARSE,
                  "'" + program.file + "': output '" + program.user_outputs[k] + "' is never computed");
    // A complex output is written as torch.view_as_real gives it: real
    // pairs on a last axis of 2 (lower/fft.cpp).
    int32_t dtype = it->second.dtype;
    if (dtype == 0)
      throw Error(MX_ERR_UNSUPPORTED, "'" + program.file + "': output '" + program.user_outputs[k] +
                                          "' has a dtype ONNX cannot express (tensor_values dtype code)");
    int64_t rank = static_cast<int64_t>(it->second.shape.size());
    if (dtype == onnx::TensorProto::COMPLEX64 || dtype == onnx::TensorProto::COMPLEX128) {
      dtype = dtype == onnx::TensorProto::COMPLEX64 ? onnx::TensorProto::FLOAT : onnx::TensorProto::DOUBLE;
      ++rank;
    }
    bind_graph_output(cx, it->second.onnx, mx::aten_onnx::output_name(k, program.user_outputs.size()), dtype,
                      rank);
  }
  return add_state(cx, program, state_outputs);
}

void bind_inputs(LowerCtx& cx, const Program& program, const std::vector<std::string>& specs) {
  for (const auto& name : add_graph_inputs(program, specs, cx.graph)) {
    const TensorMeta& m = program.tensors.at(name);
    cx.values[name] = Value{Value::tensor, name, m.dtype, m.sizes, std::nullopt};
    cx.input_onnx[name] = name;
  }
  // An effect token (threaded through higher_order.with_effects, lower/
  // effects.cpp) is an empty tensor no ONNX value reads.
  for (const auto& in : program.inputs)
    if (in.kind == InputSlot::token && !in.value.empty()) {
      onnx::TensorProto empty;
      empty.set_data_type(onnx::TensorProto::FLOAT);
      empty.add_dims(0);
      cx.values[in.value] = Value{
          Value::tensor, cx.constant(empty), onnx::TensorProto::FLOAT, {Dim{true, 0, "", ""}}, std::nullopt};
    }
}

// The program's dims of every tensor value the lowering bound to an ONNX
// name, for the graph passes (a name bound twice with other dims is left
// out; complex values, stored with an extra dim, too).
mx::aten_onnx::SymbolicShapes symbolic_shapes(const LowerCtx& cx) {
  mx::aten_onnx::SymbolicShapes shapes;
  std::set<std::string> ambiguous;
  for (const auto& [name, v] : cx.values) {
    if (v.kind != Value::tensor || v.onnx.empty() || v.dtype == onnx::TensorProto::COMPLEX64 ||
        v.dtype == onnx::TensorProto::COMPLEX128)
      continue;
    std::vector<mx::aten_onnx::SymbolicDim> dims;
    for (const auto& d : v.shape) {
      mx::aten_onnx::SymbolicDim s;
      if (d.is_static) s.size = d.value;
      else s.symbol = d.symbol.empty() ? d.expr : d.symbol;
      dims.push_back(std::move(s));
    }
    auto [it, fresh] = shapes.emplace(v.onnx, dims);
    auto same = [](const auto& a, const auto& b) {
      if (a.size() != b.size()) return false;
      for (size_t k = 0; k < a.size(); ++k)
        if (a[k].size != b[k].size || a[k].symbol != b[k].symbol) return false;
      return true;
    };
    if (!fresh && !same(it->second, dims)) ambiguous.insert(v.onnx);
  }
  for (const auto& name : ambiguous) shapes.erase(name);
  return shapes;
}

}  // namespace

void lower_program_for_check(const Program& program) {
  require_lowerings(program);
  LowerCtx cx(17, program);
  bind_inputs(cx, program, {});
  for (const auto& in : program.inputs) {  // weights as typed values, no bytes
    if (in.kind != InputSlot::parameter && in.kind != InputSlot::buffer && in.kind != InputSlot::constant)
      continue;
    auto m = program.tensors.find(in.value);
    if (m == program.tensors.end())
      throw Error(MX_ERR_PARSE, "'" + program.file + "': no metadata for " + in.value);
    cx.values[in.value] = Value{Value::tensor, in.target, m->second.dtype, m->second.sizes, std::nullopt};
    cx.input_onnx[in.value] = in.target;
  }
  std::map<std::string, SeenModule> seen;
  lower_graph(cx, program, seen);
}

ExportResult export_model(const ExportOptions& opt) {
  mx::aten_onnx::require_supported_opset(opt.opset);
  Archive archive(opt.model_path);
  const Program program = read_program(archive);
  const StoredTensors stored(archive);
  stored.check_against(program);
  const mx::aten_onnx::LoweringPlugins plugins(opt.lowering_plugins, kFrontend);
  const mx::aten_onnx::LoweringPluginScope plugins_in_use(&plugins);
  require_lowerings(program);

  LowerCtx cx(opt.opset, program);
  cx.fused_ops = opt.fused_ops;
  bind_inputs(cx, program, opt.inputs);
  auto weights = bind_stored(program, stored, cx);
  std::map<std::string, SeenModule> seen;
  const json state = lower_graph(cx, program, seen, opt.progress, opt.state_outputs);
  if (const std::string w = dropped_updates_warning(program.file, state); !w.empty() && opt.warn) opt.warn(w);
  const auto passes =
      mx::aten_onnx::run_export_passes(cx.graph, weights, opt, symbolic_shapes(cx), cx.records);

  const auto tree =
      mx::aten_onnx::build_module_tree(module_infos(program, stored, seen), opt.drop_builtin_tags);
  auto assembly = mx::aten_onnx::assembly_options(opt, tree.root_class, MXTE_VERSION);
  if (opt.weights_by_reference) assembly.weights_source = opt.model_path;
  auto model = mx::aten_onnx::assemble_model(std::move(cx.graph), weights, assembly);

  json doc = mx::aten_onnx::export_document(
      document_source(opt.model_path, opt.opset), tree,
      mx::aten_onnx::hierarchy_nodes(cx.records, passes.removed, tree.tags), passes.summary);
  if (!state.is_null()) doc["state"] = state;
  return {std::move(model.onnx_bytes), std::move(model.onnx_file), doc.dump()};
}

std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags) {
  Archive archive(model_path);
  const Program program = read_program(archive);
  const StoredTensors stored(archive);
  stored.check_against(program);
  std::map<std::string, SeenModule> seen;
  for (const auto& node : program.graph().at("nodes")) place_of(node, seen, program.file);
  const auto tree = mx::aten_onnx::build_module_tree(module_infos(program, stored, seen), drop_builtin_tags);
  return mx::aten_onnx::module_tree_document(document_source(model_path, 0), tree).dump();
}

}  // namespace mx::torch_export
