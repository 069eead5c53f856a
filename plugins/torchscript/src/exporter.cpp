// Top level of the exporter: load, example inputs from specs, the walk,
// ONNX model assembly (inputs/outputs, dead-code elimination, shape
// inference, checker) and the hierarchy document.
#include "exporter.hpp"

#include <algorithm>

#include <torch/version.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <numeric>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <unordered_set>

#include "ctx.hpp"
#include "complex_values.hpp"
#include "dim_symbols.hpp"
#include "dynamic_dims.hpp"
#include "mx/aten_onnx/graph_passes.hpp"
#include "mx/aten_onnx/hierarchy_document.hpp"
#include "mx/aten_onnx/lowering_plugins.hpp"
#include "mx/aten_onnx/opset.hpp"
#include "modelexport/modelexport.h"
#include "op_libraries.hpp"
#include "script_module_tree.hpp"
#include "source_offsets.hpp"
#include "spec.hpp"
#include "walker.hpp"

namespace mx::torchscript {
namespace {

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// `offsets` (may be null) learns where each weight sits in the file.
// The operator LibTorch's load error names after "Unknown builtin op",
// "Unknown function" or "unknown operator" (past any non-letters), or ""
// when it names none. By hand, in one pass: std::regex recursed once per
// character of the message, which quotes the file.
std::string unknown_op_name(std::string_view what) {
  static constexpr std::string_view kPhrases[] = {"Unknown builtin op", "Unknown function",
                                                  "unknown operator"};
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  for (size_t pos = 0; pos < what.size(); ++pos)
    for (std::string_view phrase : kPhrases) {
      if (what.compare(pos, phrase.size(), phrase) != 0) continue;
      size_t first = pos + phrase.size();
      while (first < what.size() && !letter(what[first])) ++first;
      size_t last = first;
      while (last < what.size() && (letter(what[last]) || what[last] == ':' || what[last] == '.')) ++last;
      if (last > first) return std::string(what.substr(first, last - first));
    }
  return "";
}

torch::jit::Module load_module(const std::string& path, SourceOffsets* offsets = nullptr) {
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(MX_ERR_IO, "cannot open model file '" + path + "'");
  }
  load_torch_op_libraries();
  try {
    auto m = offsets ? offsets->load(path) : torch::jit::load(path);
    m.eval();
    return m;
  } catch (const std::exception& e) {
    // A file written by a newer torch names ops LibTorch 1.13 lacks
    // (scaled_dot_product_attention): say which, and where to go instead.
    const std::string what = e.what();
    const std::string op = unknown_op_name(what);
    const std::string ns = op.substr(0, op.find("::"));
    if (!op.empty() && op.find("::") != std::string::npos && ns != "aten" && ns != "prim")
      throw Error(MX_ERR_UNSUPPORTED,
                  "'" + path + "' calls the custom op " + op +
                      ", which no library loaded in this process registers: name the library that "
                      "registers it (TORCH_LIBRARY; torch.ops.load_library in Python) in " +
                      kOpLibrariesVariable + " (op libraries loaded: " + torch_op_libraries() + ")");
    if (!op.empty())
      throw Error(MX_ERR_UNSUPPORTED,
                  "'" + path + "' uses the operator " + op +
                      ", which this LibTorch (" TORCH_VERSION
                      ") does not know: the file was "
                      "written by a newer PyTorch. Export the model with torch.export instead "
                      "(ep = torch.export.export(model, args); torch.export.save(ep, 'model.pt2')) "
                      "and run `modelexport export model.pt2 -o model.onnx`");
    throw Error(MX_ERR_PARSE, "'" + path +
                                  "' is not a TorchScript file (expected the output of "
                                  "torch.jit.save / torch.jit.trace(...).save): " +
                                  first_line(e.what()));
  }
}

at::ScalarType dtype_of_spec(const std::string& d) {
  if (d == "float32") return at::kFloat;
  if (d == "float16") return at::kHalf;
  if (d == "float64") return at::kDouble;
  if (d == "int64") return at::kLong;
  if (d == "int32") return at::kInt;
  return at::kBool;
}

// Example value for a spec: a meta tensor (dtype and shape, no data): the
// walk computes shapes, not values (shape_exec.hpp). A shape larger than this
// machine's memory is refused, naming the input and its size: no run of the
// exported model could hold it here, and an op without a meta kernel would
// need a stand-in of that size.
at::Tensor example_for(const InputSpec& s) {
  std::vector<int64_t> shape;
  for (const auto& d : s.dims) shape.push_back(d.size);
  auto st = dtype_of_spec(s.dtype);
  const double bytes = std::accumulate(shape.begin(), shape.end(), static_cast<double>(c10::elementSize(st)),
                                       [](double a, int64_t d) { return a * static_cast<double>(d); });
  const double memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (bytes > memory) {
    char b[64];
    std::snprintf(b, sizeof b, "%.0f", bytes);
    throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' (" + s.text +
                                             "): its example tensor cannot be allocated: " + b +
                                             " bytes, more than this machine's memory");
  }
  return at::empty(shape, at::TensorOptions().dtype(st).device(at::kMeta));
}

// What the graph does with an input: "integer" if it feeds embedding
// indices, "floating" if it feeds linear/conv/norm data; followed through
// CallMethod boundaries. Used to reject wrong dtypes early with a clear message.
std::string required_kind(const torch::jit::Value* v, const torch::jit::Module& m, int depth = 0) {
  if (depth > 8) return "";
  for (const auto& use : v->uses()) {
    const auto* n = use.user;
    std::string k = n->kind().toQualString();
    if (k == "aten::embedding" && use.offset == 1) return "integer";
    if ((k == "aten::linear" || k == "aten::layer_norm" || k == "aten::conv2d" || k == "aten::conv1d" ||
         k == "aten::_convolution" || k == "aten::matmul") &&
        use.offset == 0)
      return "floating";
    if (k == "prim::CallMethod" && use.offset > 0) {
      // resolve the callee when the receiver is a GetAttr chain from self
      std::vector<std::string> names;
      const torch::jit::Value* r = n->input(0);
      while (r->node()->kind() == c10::prim::GetAttr) {
        names.push_back(r->node()->s(c10::attr::name));
        r = r->node()->input(0);
      }
      if (r->node()->kind() != c10::prim::Param) continue;
      try {
        torch::jit::Module sub = m;
        for (auto it = names.rbegin(); it != names.rend(); ++it) sub = sub.attr(*it).toModule();
        auto g = sub.get_method(n->s(c10::attr::name)).graph();
        auto r2 = required_kind(g->inputs()[use.offset], sub, depth + 1);
        if (!r2.empty()) return r2;
      } catch (...) {}
    }
  }
  return "";
}

void set_tensor_type(onnx::ValueInfoProto* vi, int32_t elem, const std::vector<DimSpec>* dims) {
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  if (dims) {
    auto* sh = tt->mutable_shape();
    for (const auto& d : *dims) {
      auto* dim = sh->add_dim();
      if (!d.name.empty()) dim->set_dim_param(d.name);
      else dim->set_dim_value(d.size);
    }
  }
}

void flatten_outputs(const VP& v, std::vector<VP>& out) {
  if (v->has_elems) {
    for (const auto& e : v->elems) flatten_outputs(e, out);
    return;
  }
  if (v->iv.isTuple() || v->iv.isList()) {
    if (v->name.empty() && !v->is_static)
      throw Error(MX_ERR_UNSUPPORTED, "model output is a list/tuple without known elements");
  }
  out.push_back(v);
}

}  // namespace

ExportResult export_model(const ExportOptions& opt) {
  mx::aten_onnx::require_supported_opset(opt.opset);
  std::vector<InputSpec> specs;
  for (const auto& s : opt.inputs) specs.push_back(parse_input_spec(s));

  SourceOffsets offsets;
  torch::jit::Module module = load_module(opt.model_path, &offsets);
  torch::NoGradGuard no_grad;
  auto method = module.find_method("forward");
  if (!method) throw Error(MX_ERR_INVALID_ARGUMENT, "'" + opt.model_path + "' has no forward method");
  auto graph = method->graph();
  const auto& schema = method->function().getSchema();
  const auto& args = schema.arguments();  // args[0] = self

  std::string arg_names;
  for (size_t k = 1; k < args.size(); ++k) arg_names += (k > 1 ? ", " : "") + args[k].name();
  std::map<std::string, size_t> by_name;
  for (size_t k = 0; k < specs.size(); ++k) {
    bool found = false;
    for (size_t a = 1; a < args.size(); ++a) found |= args[a].name() == specs[k].name;
    if (!found)
      throw Error(MX_ERR_INVALID_ARGUMENT, "unknown input '" + specs[k].name + "' (spec '" + specs[k].text +
                                               "'); the model's forward takes: " + arg_names);
    if (by_name.count(specs[k].name))
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + specs[k].name + "' given twice");
    by_name[specs[k].name] = k;
  }

  const mx::aten_onnx::LoweringPlugins plugins(opt.lowering_plugins, kFrontend);
  const mx::aten_onnx::LoweringPluginScope plugins_in_use(&plugins);
  at::manual_seed(0);
  Ctx cx(opt.opset);
  cx.fused_ops = opt.fused_ops;
  Frame top{module, "", {}};
  cx.frame = &top;
  DimSymbols symbols;  // for the graph passes
  std::vector<VP> call_args;
  auto self = std::make_shared<Val>();
  self->is_module = true;
  self->iv = module._ivalue();
  call_args.push_back(self);
  for (size_t a = 1; a < args.size(); ++a) {
    const auto& arg = args[a];
    auto it = by_name.find(arg.name());
    auto v = std::make_shared<Val>();
    if (it == by_name.end()) {
      if (!arg.default_value())
        throw Error(MX_ERR_INVALID_ARGUMENT,
                    "missing input '" + arg.name() + "' (the model's forward takes: " + arg_names + ")");
      v->iv = *arg.default_value();
      v->is_static = true;
      call_args.push_back(v);
      continue;
    }
    const InputSpec& s = specs[it->second];
    const torch::jit::Value* gv = graph->inputs()[a];
    auto st = dtype_of_spec(s.dtype);
    if (auto tt = gv->type()->cast<c10::TensorType>()) {
      if (tt->scalarType() && *tt->scalarType() != st)
        throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has dtype " + s.dtype +
                                                 " but the model expects " +
                                                 c10::toString(*tt->scalarType()));
      if (tt->dim() && *tt->dim() != s.dims.size())
        throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has rank " +
                                                 std::to_string(s.dims.size()) +
                                                 " but the model expects rank " + std::to_string(*tt->dim()));
    } else if (!gv->type()->isSubtypeOf(*c10::TensorType::get())) {
      throw Error(MX_ERR_UNSUPPORTED, "input '" + s.name + "' has type " + gv->type()->repr_str() +
                                          "; only tensor inputs are supported");
    }
    std::string req = required_kind(gv, module);
    bool is_int = at::isIntegralType(st, true);
    if (req == "integer" && !is_int)
      throw Error(MX_ERR_INVALID_ARGUMENT,
                  "input '" + s.name + "' has dtype " + s.dtype +
                      " but the model uses it as embedding indices (int64/int32 expected)");
    if (req == "floating" && is_int)
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has dtype " + s.dtype +
                                               " but the model uses it as floating-point data");
    v->iv = example_for(s);
    v->name = s.name;
    v->onnx_type = onnx_type_of(st);
    if (cx.input_names.size() < 64) v->from_inputs = uint64_t{1} << cx.input_names.size();
    // Named dims are dynamic: the shifted run doubles them (dynamic_dims.hpp).
    if (std::any_of(s.dims.begin(), s.dims.end(), [](const DimSpec& d) { return !d.name.empty(); })) {
      std::vector<int64_t> shifted;
      for (const auto& d : s.dims) shifted.push_back(d.name.empty() ? d.size : shifted_size(d.size));
      v->shift = Shift::known;
      v->shifted = at::empty(shifted, at::TensorOptions().dtype(st).device(at::kMeta));
    }
    symbols.bind_input(*v, s.name);
    cx.input_names.push_back(s.name);
    auto* vi = cx.graph.add_input();
    vi->set_name(s.name);
    set_tensor_type(vi, v->onnx_type, &s.dims);
    call_args.push_back(v);
  }

  WalkProgress progress(*graph, opt.progress);
  Walker walker(cx, &progress, &symbols);
  std::vector<VP> results = walker.call(module, "", *graph, call_args, false);
  progress.finish();
  cx.frame = &top;
  cx.node = nullptr;

  // Outputs: flattened, named output / output_N; rank from the example,
  // dims left unknown unless shape inference knows better.
  std::vector<VP> outs;
  for (const auto& r : results) flatten_outputs(r, outs);
  // A complex output is written as the .pt2 frontend writes one, as
  // torch.view_as_real gives it: its real pairs on a last axis of 2.
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string src = cx.tensor(outs[k]);
    const int32_t type = cx.onnx_type(outs[k]);
    int64_t rank = outs[k]->iv.isTensor() ? outs[k]->iv.toTensor().dim() : 0;
    if (is_complex_onnx(type)) ++rank;
    std::string now = mx::aten_onnx::add_graph_output(cx, src, mx::aten_onnx::output_name(k, outs.size()),
                                                      pair_component(type), rank);
    for (auto& o : outs)
      if (o->name == src) o->name = now;
  }

  // Weights: by reference to the .pt when the host takes them so and they
  // are stored there as they are (source_offsets.hpp); else inline
  // (raw_data), or streamed from the module's tensors into
  // <output_dir>/model.onnx.data. Either way no weight is copied before this.
  // External data demanded without an output_dir keeps its documented
  // refusal (docs/plugin-protocol.md, "Large models") rather than being
  // silently answered by reference.
  const bool by_reference =
      opt.weights_by_reference && !(opt.external_data == ExternalData::yes && opt.output_dir.empty());
  mx::aten_onnx::WeightMap weights;
  for (const auto& [name, t] : cx.init_data)
    weights[name] = {static_cast<const char*>(t.data_ptr()),
                     static_cast<uint64_t>(t.numel()) * t.element_size(),
                     by_reference ? offsets.offset_of(t) : mx::aten_onnx::kNotInSource};
  const auto passes = mx::aten_onnx::run_export_passes(cx.graph, weights, opt, symbols.shapes(), cx.records);

  ModuleTree tree = build_module_tree(module, walker.execution_order(), opt.drop_builtin_tags);
  auto assembly = mx::aten_onnx::assembly_options(opt, tree.root_class, MXTS_VERSION);
  if (by_reference) assembly.weights_source = opt.model_path;
  auto model = mx::aten_onnx::assemble_model(std::move(cx.graph), weights, assembly);
  cx.init_data.clear();

  const nlohmann::json doc = mx::aten_onnx::export_document(
      {"torchscript", MXTS_VERSION, opt.model_path, opt.opset}, tree,
      mx::aten_onnx::hierarchy_nodes(cx.records, passes.removed, tree.tags), passes.summary);

  ExportResult res;
  res.onnx_bytes = std::move(model.onnx_bytes);
  res.onnx_file = std::move(model.onnx_file);
  res.hierarchy_json = doc.dump();
  return res;
}

std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags) {
  torch::jit::Module module = load_module(model_path);
  ModuleTree tree = build_module_tree(module, {{"", 0}}, drop_builtin_tags);
  return mx::aten_onnx::module_tree_document({"torchscript", MXTS_VERSION, model_path, 0}, tree).dump();
}

}  // namespace mx::torchscript
