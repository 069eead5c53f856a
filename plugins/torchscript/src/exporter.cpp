// Top level of the exporter: load, example inputs from specs, the walk,
// ONNX model assembly (inputs/outputs, dead-code elimination, shape
// inference, checker) and the hierarchy document.
#include "exporter.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>

#include "ctx.h"
#include "model/checkable_copy.hpp"
#include "modelexport/modelexport.h"
#include "module_tree.h"
#include "spec.h"
#include "walker.h"
#include "weights.h"

namespace mxts {
namespace {

std::string first_line(const std::string& s) {
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

torch::jit::Module load_module(const std::string& path) {
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(MX_ERR_IO, "cannot open model file '" + path + "'");
  }
  try {
    auto m = torch::jit::load(path);
    m.eval();
    return m;
  } catch (const std::exception& e) {
    throw Error(MX_ERR_PARSE, "'" + path + "' is not a TorchScript file (expected the output of "
                              "torch.jit.save / torch.jit.trace(...).save): " + first_line(e.what()));
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

// Example value for a spec: floats ~ N(0,1); integers uniform in [0, 2)
// (valid ids, masks and token types alike); bools all true.
at::Tensor example_for(const InputSpec& s) {
  std::vector<int64_t> shape;
  for (const auto& d : s.dims) shape.push_back(d.size);
  auto st = dtype_of_spec(s.dtype);
  if (st == at::kBool) return at::ones(shape, at::kBool);
  if (at::isIntegralType(st, false)) return at::randint(0, 2, shape, at::TensorOptions().dtype(st));
  return at::randn(shape, at::TensorOptions().dtype(at::kFloat)).to(st);
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
         k == "aten::_convolution" || k == "aten::matmul") && use.offset == 0)
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
      } catch (...) {
      }
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

// Removes nodes whose outputs reach no graph output; returns removed names.
std::set<std::string> eliminate_dead_nodes(onnx::GraphProto& g) {
  std::unordered_set<std::string> live;
  for (const auto& o : g.output()) live.insert(o.name());
  std::vector<bool> keep(g.node_size(), false);
  for (int i = g.node_size() - 1; i >= 0; --i) {
    const auto& n = g.node(i);
    bool used = false;
    for (const auto& o : n.output()) used |= live.count(o) > 0;
    if (!used) continue;
    keep[i] = true;
    for (const auto& in : n.input()) live.insert(in);
  }
  std::set<std::string> removed;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < g.node_size(); ++i) {
    if (keep[i]) *kept.Add() = g.node(i);
    else removed.insert(g.node(i).name());
  }
  g.mutable_node()->Swap(&kept);
  // unused initializers
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  for (auto& t : *g.mutable_initializer())
    if (live.count(t.name())) inits.Add()->Swap(&t);
  g.mutable_initializer()->Swap(&inits);
  return removed;
}

void rename_value(onnx::GraphProto& g, const std::string& from, const std::string& to) {
  for (auto& n : *g.mutable_node()) {
    for (auto& i : *n.mutable_input()) if (i == from) i = to;
    for (auto& o : *n.mutable_output()) if (o == from) o = to;
  }
}

}  // namespace

ExportResult export_model(const ExportOptions& opt) {
  if (opt.opset < 14 || opt.opset > 17)
    throw Error(MX_ERR_INVALID_ARGUMENT, "opset " + std::to_string(opt.opset) + " not supported (14..17)");
  std::vector<InputSpec> specs;
  for (const auto& s : opt.inputs) specs.push_back(parse_input_spec(s));

  torch::jit::Module module = load_module(opt.model_path);
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

  at::manual_seed(0);
  Ctx cx(opt.opset);
  Frame top{module, "", {}};
  cx.frame = &top;
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
        throw Error(MX_ERR_INVALID_ARGUMENT, "missing input '" + arg.name() + "' (the model's forward takes: " +
                                                 arg_names + ")");
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
        throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has dtype " + s.dtype + " but the model expects " +
                                                 c10::toString(*tt->scalarType()));
      if (tt->dim() && *tt->dim() != s.dims.size())
        throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has rank " + std::to_string(s.dims.size()) +
                                                 " but the model expects rank " + std::to_string(*tt->dim()));
    } else if (!gv->type()->isSubtypeOf(*c10::TensorType::get())) {
      throw Error(MX_ERR_UNSUPPORTED, "input '" + s.name + "' has type " + gv->type()->repr_str() +
                                          "; only tensor inputs are supported");
    }
    std::string req = required_kind(gv, module);
    bool is_int = at::isIntegralType(st, true);
    if (req == "integer" && !is_int)
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has dtype " + s.dtype +
                                               " but the model uses it as embedding indices (int64/int32 expected)");
    if (req == "floating" && is_int)
      throw Error(MX_ERR_INVALID_ARGUMENT, "input '" + s.name + "' has dtype " + s.dtype +
                                               " but the model uses it as floating-point data");
    v->iv = example_for(s);
    v->name = s.name;
    v->onnx_type = onnx_type_of(st);
    if (cx.input_names.size() < 64) v->from_inputs = uint64_t{1} << cx.input_names.size();
    cx.input_names.push_back(s.name);
    auto* vi = cx.graph.add_input();
    vi->set_name(s.name);
    set_tensor_type(vi, v->onnx_type, &s.dims);
    call_args.push_back(v);
  }

  Walker walker(cx);
  std::vector<VP> results = walker.call(module, "", *graph, call_args, false);
  cx.frame = &top;
  cx.node = nullptr;

  // Outputs: flattened, named output / output_N.
  std::vector<VP> outs;
  for (const auto& r : results) flatten_outputs(r, outs);
  std::set<std::string> input_names;
  for (const auto& i : cx.graph.input()) input_names.insert(i.name());
  std::set<std::string> used_out;
  for (size_t k = 0; k < outs.size(); ++k) {
    std::string oname = outs.size() == 1 ? "output" : "output_" + std::to_string(k);
    std::string src = cx.t(outs[k]);
    bool is_init = false;
    for (const auto& t : cx.graph.initializer()) is_init |= t.name() == src;
    if (input_names.count(src) || is_init || used_out.count(src)) {
      std::string id = cx.emit1("Identity", {src});
      rename_value(cx.graph, id, oname);
    } else {
      rename_value(cx.graph, src, oname);
      for (auto& o : outs) if (o->name == src) o->name = oname;
      used_out.insert(oname);
    }
    auto* vi = cx.graph.add_output();
    vi->set_name(oname);
    set_tensor_type(vi, cx.onnx_type(outs[k]), nullptr);
    // rank from the example; dims left unknown unless shape inference knows better
    auto* sh = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
    if (outs[k]->iv.isTensor())
      for (int64_t d = 0; d < outs[k]->iv.toTensor().dim(); ++d) sh->add_dim();
  }

  auto removed = eliminate_dead_nodes(cx.graph);

  ModuleTree tree = build_module_tree(module, walker.execution_order(), opt.drop_builtin_tags);
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("modelexport");
  model.set_producer_version(MXTS_VERSION);
  auto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(opt.opset);
  *model.mutable_graph() = std::move(cx.graph);
  model.mutable_graph()->set_name(tree.root_class);

  // Weights: inline (raw_data), or streamed from the module's tensors into
  // <output_dir>/model.onnx.data; either way no weight is copied before this.
  const uint64_t weights = weight_bytes(model.graph(), cx.init_data);
  const uint64_t inline_size = weights + model.ByteSizeLong();
  const bool over_limit = inline_size > kInlineLimit;
  const bool external = opt.external_data == ExternalData::yes ||
                        (opt.external_data == ExternalData::automatic && over_limit);
  auto gb = [](uint64_t n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(n) / 1e9);
    return std::string(buf);
  };
  if (!external && over_limit)
    throw Error(MX_ERR_INVALID_ARGUMENT,
                "the exported model (" + gb(inline_size) + ", weights " + gb(weights) +
                    ") exceeds protobuf's 2 GB limit; export it with external data "
                    "(leave \"external_data\" unset or true; CLI: --external-data)");
  if (external && opt.output_dir.empty())
    throw Error(MX_ERR_UNSUPPORTED,
                std::string(opt.external_data == ExternalData::yes ? "external data was asked for"
                                                                   : "the model's weights (" + gb(weights) +
                                                                         ") need ONNX external data") +
                    ", but the host gave no \"output_dir\" to write it to (a modelexport host "
                    "older than the external-data protocol?)");
  std::string onnx_file;
  struct RemoveOnError {  // a failed export leaves nothing in output_dir
    std::vector<std::string> paths;
    bool armed = true;
    ~RemoveOnError() {
      if (armed)
        for (const auto& p : paths) std::remove(p.c_str());
    }
  } cleanup;
  if (external) {
    onnx_file = opt.output_dir + "/model.onnx";
    cleanup.paths = {onnx_file + ".data", onnx_file};
    write_external_weights(*model.mutable_graph(), cx.init_data, onnx_file + ".data", "model.onnx.data");
  } else {
    inline_weights(*model.mutable_graph(), cx.init_data);
  }
  cx.init_data.clear();

  if (opt.check) {
    // External initializers are graph inputs in the checked copy (which
    // holds no weight); inline models are checked as they are.
    onnx::ModelProto copy;
    if (external) copy = modelexport::model::checkable_copy(model);
    onnx::ModelProto& checked = external ? copy : model;
    try {
      onnx::shape_inference::InferShapes(checked);
    } catch (const std::exception& e) {
      throw Error(MX_ERR_INTERNAL, std::string("ONNX shape inference failed on the exported graph: ") + e.what());
    }
    // Outputs get their inferred shapes; value_info keeps intermediates.
    auto* g = checked.mutable_graph();
    for (auto& o : *g->mutable_output())
      for (const auto& vi : g->value_info())
        if (vi.name() == o.name() && vi.type().tensor_type().has_shape()) *o.mutable_type() = vi.type();
    if (external) {
      *model.mutable_graph()->mutable_value_info() = g->value_info();
      *model.mutable_graph()->mutable_output() = g->output();
    }
    try {
      onnx::checker::check_model(checked);
    } catch (const std::exception& e) {
      throw Error(MX_ERR_INTERNAL, std::string("exported model fails the ONNX checker: ") + e.what());
    }
  }

  // Hierarchy document.
  nlohmann::json nodes = nlohmann::json::array();
  std::map<std::string, int> evidence = {{"direct", 0}, {"scope", 0}, {"metadata", 0},
                                         {"parameter", 0}, {"propagated", 0}, {"root", 0}};
  int at_root = 0;
  for (const auto& r : cx.records) {
    if (removed.count(r.name)) continue;
    nodes.push_back({{"name", r.name}, {"module", r.module}, {"tag", tree.tags[r.module]}, {"evidence", r.evidence}});
    evidence[r.evidence]++;
    at_root += r.module.empty();
  }
  std::string base = opt.model_path.substr(opt.model_path.find_last_of('/') + 1);
  nlohmann::json doc = {
      {"schema", "modelexport.hierarchy/1"},
      {"producer", {{"name", "modelexport"}, {"version", MXTS_VERSION}, {"source", "torchscript"}}},
      {"model", {{"root_class", tree.root_class}, {"source_file", base}, {"opset", opt.opset}}},
      {"modules", tree.modules},
      {"nodes", nodes},
      {"statistics", {{"nodes", nodes.size()}, {"evidence", evidence}, {"at_root", at_root}}}};

  ExportResult res;
  if (!model.SerializeToString(&res.onnx_bytes)) throw Error(MX_ERR_INTERNAL, "cannot serialize the ONNX model");
  if (external) {
    write_file(onnx_file, res.onnx_bytes);
    res.onnx_bytes.clear();
    res.onnx_file = onnx_file;
  }
  res.hierarchy_json = doc.dump();
  cleanup.armed = false;
  return res;
}

std::string module_tree_json(const std::string& model_path, bool drop_builtin_tags) {
  torch::jit::Module module = load_module(model_path);
  ModuleTree tree = build_module_tree(module, {{"", 0}}, drop_builtin_tags);
  std::string base = model_path.substr(model_path.find_last_of('/') + 1);
  nlohmann::json doc = {
      {"schema", "modelexport.hierarchy/1"},
      {"producer", {{"name", "modelexport"}, {"version", MXTS_VERSION}, {"source", "torchscript"}}},
      {"model", {{"root_class", tree.root_class}, {"source_file", base}}},
      {"modules", tree.modules},
      {"nodes", nlohmann::json::array()},
      {"statistics", {{"nodes", 0}}}};
  return doc.dump();
}

}  // namespace mxts
