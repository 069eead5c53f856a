#include "extract/boundary_types.hpp"

#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "mx/onnx_proto.hpp"
#include <onnx/shape_inference/implementation.h>

namespace mx::extract {
namespace {

using Shape = onnx::TensorShapeProto;
using ShapeMap = std::unordered_map<std::string, Shape>;

bool is_typed_tensor(const onnx::ValueInfoProto& v) {
  return v.has_type() && v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0;
}
bool has_shape(const onnx::ValueInfoProto& v) {
  return v.type().tensor_type().has_shape();
}

onnx::ValueInfoProto tensor_info(const std::string& name, int32_t elem_type, const Shape* shape) {
  onnx::ValueInfoProto v;
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  if (shape) *tt->mutable_shape() = *shape;
  return v;
}

// Keeps `v` unless the map has a shapeless entry and `v` has a shape.
void offer(std::unordered_map<std::string, onnx::ValueInfoProto>& map, const onnx::ValueInfoProto& v) {
  if (!is_typed_tensor(v)) return;
  auto [it, fresh] = map.emplace(v.name(), v);
  if (!fresh && !has_shape(it->second) && has_shape(v)) it->second = v;
}

void add_graph_types(std::unordered_map<std::string, onnx::ValueInfoProto>& map, const onnx::GraphProto& g) {
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list) offer(map, v);
  for (const auto& t : g.initializer()) {
    Shape s;
    for (auto d : t.dims()) s.add_dim()->set_dim_value(d);
    offer(map, tensor_info(t.name(), t.data_type(), &s));
  }
}

// Initializers of more elements than this become typed inputs in the
// inferred copies; smaller ones (shape constants, scalars) keep their
// values, which data propagation reads.
constexpr int64_t kKeptInitializerElements = 64;

int64_t element_count(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  return n;
}

// The model's graph without weight bytes, for inference.
onnx::ModelProto weightless_copy(const onnx::ModelProto& proto) {
  onnx::ModelProto copy;
  copy.set_ir_version(proto.ir_version());
  *copy.mutable_opset_import() = proto.opset_import();
  *copy.mutable_functions() = proto.functions();
  const auto& src = proto.graph();
  auto* g = copy.mutable_graph();
  g->set_name(src.name());
  *g->mutable_node() = src.node();
  *g->mutable_input() = src.input();
  *g->mutable_output() = src.output();
  // value_info is left out: inference rebuilds it, and the concrete passes
  // must not merge with symbolic declarations.
  std::unordered_set<std::string> is_input;
  for (const auto& v : src.input()) is_input.insert(v.name());
  for (const auto& t : src.initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL && element_count(t) <= kKeptInitializerElements) {
      *g->add_initializer() = t;
    } else if (!is_input.count(t.name())) {
      Shape s;
      for (auto d : t.dims()) s.add_dim()->set_dim_value(d);
      *g->add_input() = tensor_info(t.name(), t.data_type(), &s);
    }
  }
  return copy;
}

// ONNX's inference names the dims it cannot know "unk__<n>" (a fresh name
// per dim, per run): they are unknown dims, not the program's symbols, and
// the passes below compare and merge dims by their symbols.
void forget_generated_symbols(onnx::GraphProto& g) {
  for (auto& v : *g.mutable_value_info()) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (d.has_dim_param() && d.dim_param().rfind("unk__", 0) == 0) d.clear_dim_param();
  }
}

// Lenient inference with data propagation: partial results are still
// useful. `data`, if given, receives what data propagation computed (values
// of small int tensors: shapes, sizes, indices), as TensorShapeProtos.
void infer(onnx::ModelProto& m, ShapeMap* data = nullptr) {
  try {
    onnx::ShapeInferenceOptions lenient(/*check_type=*/false, /*error_mode=*/0,
                                        /*enable_data_propagation=*/true);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), lenient, data);
  } catch (const std::exception&) {}
  forget_generated_symbols(*m.mutable_graph());
}

// libonnx 1.12 propagates shape arithmetic (Shape, Gather, Unsqueeze,
// Concat, ...) but Slice, Reshape, Expand, Range, ConstantOfShape read only
// constant inputs: a Slice whose end is Unsqueeze(Gather(Shape(x))) gets no
// shape at all. With every input dim bound to a number, the propagated
// values are plain int64 constants: each becomes an initializer its
// consumers read instead, and inference runs again. Returns whether
// anything was folded.
bool fold_propagated_values(onnx::ModelProto& m, const ShapeMap& data,
                            std::unordered_set<std::string>& folded) {
  auto* g = m.mutable_graph();
  std::unordered_map<std::string, const onnx::ValueInfoProto*> types;
  for (const auto& v : g->value_info()) types[v.name()] = &v;
  std::unordered_map<std::string, std::string> renamed;
  for (const auto& [name, value] : data) {
    auto t = types.find(name);
    if (folded.count(name) || t == types.end() || !has_shape(*t->second)) continue;
    const auto& tt = t->second->type().tensor_type();
    const int rank = tt.shape().dim_size();
    if (tt.elem_type() != onnx::TensorProto::INT64 || rank > 1 || (rank == 0 && value.dim_size() != 1))
      continue;
    onnx::TensorProto c;
    c.set_name("modelexport::folded::" + name);
    c.set_data_type(onnx::TensorProto::INT64);
    if (rank == 1) c.add_dims(value.dim_size());
    bool complete = true;
    for (const auto& d : value.dim()) {
      complete = complete && d.has_dim_value();
      c.add_int64_data(d.dim_value());
    }
    if (!complete) continue;
    folded.insert(name);
    renamed[name] = c.name();
    *g->add_initializer() = std::move(c);
  }
  for (auto& n : *g->mutable_node())
    for (auto& in : *n.mutable_input())
      if (auto r = renamed.find(in); r != renamed.end()) in = r->second;
  return !renamed.empty();
}

// ---------------------------------------------------------------- bindings
// A symbolic input dim: a dim_param (shared by every dim that names it) or
// an anonymous dynamic dim (its own symbol, left unnamed in results).
struct Symbol {
  std::string param;  // "" for anonymous
};
using Binding = std::vector<int64_t>;  // value per symbol

// Symbols of the graph inputs, in order, and per (input, dim) its symbol.
struct InputSymbols {
  std::vector<Symbol> symbols;
  std::map<std::pair<int, int>, size_t> at;
};

InputSymbols input_symbols(const onnx::GraphProto& g) {
  InputSymbols out;
  std::map<std::string, size_t> by_param;
  for (int i = 0; i < g.input_size(); ++i) {
    const auto& t = g.input(i).type().tensor_type();
    for (int d = 0; d < t.shape().dim_size(); ++d) {
      const auto& dim = t.shape().dim(d);
      if (dim.has_dim_value()) continue;
      if (dim.has_dim_param()) {
        auto [it, fresh] = by_param.emplace(dim.dim_param(), out.symbols.size());
        if (fresh) out.symbols.push_back({dim.dim_param()});
        out.at[{i, d}] = it->second;
      } else {
        out.at[{i, d}] = out.symbols.size();
        out.symbols.push_back({""});
      }
    }
  }
  return out;
}

// Two bindings: symbol k is the (2k)-th prime from 17 in one and the next
// prime in the other. Distinct values per symbol and per binding, so a
// dynamic dim differs between the two and is named only when it follows a
// symbol in both; moderate values, because a model clamps at its limits
// (a BERT slices its 512-row position table to seq: at seq = 1009 both
// bindings would read 512, a static dim that is not).
std::pair<Binding, Binding> two_bindings(size_t n) {
  std::vector<int64_t> primes;
  for (int64_t p = 17; primes.size() < 2 * n; p += 2) {
    bool prime = true;
    for (int64_t q = 3; q * q <= p; q += 2)
      if (p % q == 0) {
        prime = false;
        break;
      }
    if (prime) primes.push_back(p);
  }
  Binding a, b;
  for (size_t k = 0; k < n; ++k) {
    a.push_back(primes[2 * k]);
    b.push_back(primes[2 * k + 1]);
  }
  return {a, b};
}

ShapeMap shapes_at(const onnx::ModelProto& weightless, const InputSymbols& syms, const Binding& values) {
  onnx::ModelProto m = weightless;
  auto* g = m.mutable_graph();
  for (const auto& [where, sym] : syms.at)
    g->mutable_input(where.first)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(where.second)
        ->set_dim_value(values[sym]);
  for (auto& o : *g->mutable_output()) o.mutable_type()->mutable_tensor_type()->clear_shape();
  // Each round resolves the shapes the previous one's constants unlock; a
  // chain of dependent Shape -> Slice -> Shape steps per round at most.
  constexpr int kMaxRounds = 16;
  std::unordered_set<std::string> folded;
  for (int round = 0; round < kMaxRounds; ++round) {
    ShapeMap data;
    infer(m, &data);
    if (!fold_propagated_values(m, data, folded)) break;
  }
  ShapeMap shapes;
  for (const auto* list : {&g->value_info(), &g->output()})
    for (const auto& v : *list)
      if (is_typed_tensor(v) && has_shape(v)) shapes[v.name()] = v.type().tensor_type().shape();
  return shapes;
}

// One shape from the two concrete ones (see the header).
std::optional<Shape> generalise(const Shape& a, const Shape& b, const InputSymbols& syms, const Binding& va,
                                const Binding& vb) {
  if (a.dim_size() != b.dim_size()) return std::nullopt;
  Shape out;
  for (int d = 0; d < a.dim_size(); ++d) {
    auto* dim = out.add_dim();
    const auto &da = a.dim(d), &db = b.dim(d);
    if (!da.has_dim_value() || !db.has_dim_value()) continue;  // data-dependent: dynamic
    if (da.dim_value() == db.dim_value()) {
      dim->set_dim_value(da.dim_value());
      continue;
    }
    for (size_t s = 0; s < syms.symbols.size(); ++s)
      if (va[s] == da.dim_value() && vb[s] == db.dim_value()) {
        if (!syms.symbols[s].param.empty()) dim->set_dim_param(syms.symbols[s].param);
        break;
      }
  }
  return out;
}

}  // namespace

struct BoundaryTypes::Inferred {
  std::unordered_map<std::string, onnx::ValueInfoProto> symbolic;
  std::unordered_map<std::string, onnx::ValueInfoProto> generalised;
  onnx::ModelProto weightless;
  InputSymbols syms;
  Binding va, vb;
  ShapeMap at_a, at_b;
  bool concrete_done = false;
};

BoundaryTypes::BoundaryTypes(const onnx::ModelProto& proto) : proto_(proto) {
  add_graph_types(declared_, proto.graph());
}

BoundaryTypes::~BoundaryTypes() = default;

const onnx::ValueInfoProto* BoundaryTypes::find(const std::string& name) {
  auto known = declared_.find(name);
  if (known != declared_.end() && has_shape(known->second)) return &known->second;
  if (!inferred_) {
    inferred_ = std::make_unique<Inferred>();
    inferred_->weightless = weightless_copy(proto_);
    onnx::ModelProto symbolic = inferred_->weightless;
    infer(symbolic);
    add_graph_types(inferred_->symbolic, symbolic.graph());
  }
  Inferred& in = *inferred_;
  auto sym = in.symbolic.find(name);
  if (sym != in.symbolic.end() && has_shape(sym->second)) return &sym->second;
  // The element type, from wherever it is known.
  const onnx::ValueInfoProto* typed = sym != in.symbolic.end()   ? &sym->second
                                      : known != declared_.end() ? &known->second
                                                                 : nullptr;
  if (!typed) return nullptr;
  if (auto g = in.generalised.find(name); g != in.generalised.end()) return &g->second;
  if (!in.concrete_done) {
    in.concrete_done = true;
    in.syms = input_symbols(in.weightless.graph());
    std::tie(in.va, in.vb) = two_bindings(in.syms.symbols.size());
    in.at_a = shapes_at(in.weightless, in.syms, in.va);
    in.at_b = shapes_at(in.weightless, in.syms, in.vb);
  }
  auto a = in.at_a.find(name), b = in.at_b.find(name);
  if (a == in.at_a.end() || b == in.at_b.end()) return nullptr;
  const auto shape = generalise(a->second, b->second, in.syms, in.va, in.vb);
  if (!shape) return nullptr;
  auto [it, _] =
      in.generalised.emplace(name, tensor_info(name, typed->type().tensor_type().elem_type(), &*shape));
  return &it->second;
}

}  // namespace mx::extract
