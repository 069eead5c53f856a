#include "dim_symbols.hpp"

#include <algorithm>

#include "dynamic_dims.hpp"

namespace mx::torchscript {
namespace {

using Sizes = DimSymbols::Sizes;
// Per dim (or int element): kStatic, a symbol, or "" (nothing proven).
using Symbols = std::vector<std::string>;

// One dim of a tensor as the rules read it: its example size and token.
struct DimOf {
  int64_t size = 0;
  std::string token;
};

// One element of an int list argument: its value when it is proven static,
// else its token.
struct ElemOf {
  std::optional<int64_t> value;
  std::string token;
};

bool is_tensor(const VP& v) {
  return v && v->iv.isTensor() && v->iv.toTensor().defined();
}

// A value that reads no named input dim (constants, weights, what is
// computed from them alone): its sizes are static by construction.
bool static_by_construction(const Val& v) {
  return v.is_static || v.shift == Shift::none;
}

// An int, or a 0-d integer tensor holding one (NumToTensor's result).
bool is_int_value(const c10::IValue& iv) {
  if (iv.isInt()) return true;
  if (!iv.isTensor() || !iv.toTensor().defined()) return false;
  const at::Tensor& t = iv.toTensor();
  return t.dim() == 0 && at::isIntegralType(t.scalar_type(), false);
}

std::optional<int64_t> int_of(const c10::IValue& iv) {
  if (iv.isInt()) return iv.toInt();
  if (is_int_value(iv) && !iv.toTensor().is_meta()) return iv.toTensor().item<int64_t>();
  return std::nullopt;
}

std::vector<DimOf> dims_of(const VP& v) {
  const at::Tensor& t = v->iv.toTensor();
  const auto rank = static_cast<size_t>(t.dim());
  std::vector<DimOf> dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    dims[k].size = t.size(static_cast<int64_t>(k));
    if (static_by_construction(*v)) dims[k].token = DimSymbols::kStatic;
    else if (v->dim_symbols.size() == rank) dims[k].token = v->dim_symbols[k];
  }
  return dims;
}

Symbols tokens_of(const std::vector<DimOf>& dims) {
  Symbols s;
  for (const auto& d : dims) s.push_back(d.token);
  return s;
}

bool is_static(const DimOf& d) {
  return d.token == DimSymbols::kStatic;
}

bool is_symbol(const std::string& token) {
  return !token.empty() && token != DimSymbols::kStatic;
}

std::optional<int64_t> static_int(const VP& v) {
  if (!v || !v->is_static || !v->iv.isInt()) return std::nullopt;
  return v->iv.toInt();
}

std::optional<std::vector<int64_t>> static_ints(const VP& v) {
  if (!v || !v->is_static || !v->iv.isIntList()) return std::nullopt;
  return v->iv.toIntVector();
}

// The elements of an int list argument (a size list), or nothing when its
// length is unknown.
std::optional<std::vector<ElemOf>> elems_of(const VP& l) {
  if (!l) return std::nullopt;
  std::vector<ElemOf> out;
  if (static_by_construction(*l) && l->iv.isIntList()) {
    for (int64_t x : l->iv.toIntVector()) out.push_back({x, DimSymbols::kStatic});
    return out;
  }
  if (l->has_elems) {
    for (const auto& e : l->elems) {
      if (!e->iv.isInt()) return std::nullopt;
      if (static_by_construction(*e)) {
        out.push_back({e->iv.toInt(), DimSymbols::kStatic});
        continue;
      }
      const std::string token = e->value_symbols.size() == 1 ? e->value_symbols[0] : "";
      if (token == DimSymbols::kStatic) out.push_back({e->iv.toInt(), token});
      else out.push_back({std::nullopt, token});
    }
    return out;
  }
  if (!l->iv.isIntList()) return std::nullopt;
  const auto example = l->iv.toIntVector();
  for (size_t k = 0; k < example.size(); ++k) {
    const std::string token = l->value_symbols.size() == example.size() ? l->value_symbols[k] : "";
    if (token == DimSymbols::kStatic) out.push_back({example[k], token});
    else out.push_back({std::nullopt, token});
  }
  return out;
}

// The tokens of a shape given as a size list (view, zeros, ...): a static
// size is static, a dynamic one its symbol; -1 is inferred: nothing proven.
std::optional<Symbols> from_size_list(const VP& l, size_t rank) {
  const auto elems = elems_of(l);
  if (!elems || elems->size() != rank) return std::nullopt;
  Symbols s;
  for (const auto& e : *elems) s.push_back(e.value ? (*e.value >= 0 ? DimSymbols::kStatic : "") : e.token);
  return s;
}

int64_t norm(int64_t d, size_t rank) {
  return d < 0 ? d + static_cast<int64_t>(rank) : d;
}

bool in_range(int64_t d, size_t rank) {
  return d >= 0 && d < static_cast<int64_t>(rank);
}

bool all_static(const std::vector<DimOf>& dims, size_t from, size_t to) {
  for (size_t k = from; k < to && k < dims.size(); ++k)
    if (!is_static(dims[k])) return false;
  return true;
}

// Broadcasting (right-aligned): an output dim is static when an input dim
// at its position is static and not 1 (the others must agree or be 1) or
// all are static; a symbol when every input dim there is that symbol or a
// static 1.
Symbols broadcast(const std::vector<std::vector<DimOf>>& ins, size_t rank) {
  Symbols out(rank);
  for (size_t r = 0; r < rank; ++r) {  // r-th dim from the right
    std::string symbol;
    bool known = true, any = false, fixed = false, all_fixed = true;
    for (const auto& dims : ins) {
      if (r >= dims.size()) continue;
      const DimOf& d = dims[dims.size() - 1 - r];
      any = true;
      if (is_static(d)) {
        fixed |= d.size != 1;
        continue;
      }
      all_fixed = false;
      if (!is_symbol(d.token) || (!symbol.empty() && symbol != d.token)) known = false;
      symbol = d.token;
    }
    if (!any) continue;
    if (fixed || all_fixed) out[rank - 1 - r] = DimSymbols::kStatic;
    else if (known) out[rank - 1 - r] = symbol;
  }
  return out;
}

// "aten::add_" -> "aten::add" (in-place forms keep their input's shape, as
// the functional ones compute it); dunder names stay.
std::string base_op(const std::string& kind) {
  if (kind.size() > 2 && kind.back() == '_' && kind[kind.size() - 2] != '_')
    return kind.substr(0, kind.size() - 1);
  return kind;
}

// Ops whose output has the shape of their first input.
const std::set<std::string>& same_shape_ops() {
  static const std::set<std::string> ops = {"aten::contiguous",
                                            "aten::clone",
                                            "aten::detach",
                                            "aten::dropout",
                                            "aten::feature_dropout",
                                            "aten::alpha_dropout",
                                            "aten::relu",
                                            "aten::relu6",
                                            "aten::gelu",
                                            "aten::silu",
                                            "aten::sigmoid",
                                            "aten::tanh",
                                            "aten::hardtanh",
                                            "aten::hardswish",
                                            "aten::hardsigmoid",
                                            "aten::leaky_relu",
                                            "aten::elu",
                                            "aten::selu",
                                            "aten::celu",
                                            "aten::mish",
                                            "aten::softplus",
                                            "aten::softmax",
                                            "aten::log_softmax",
                                            "aten::layer_norm",
                                            "aten::group_norm",
                                            "aten::batch_norm",
                                            "aten::instance_norm",
                                            "aten::neg",
                                            "aten::exp",
                                            "aten::log",
                                            "aten::sqrt",
                                            "aten::rsqrt",
                                            "aten::abs",
                                            "aten::erf",
                                            "aten::cos",
                                            "aten::sin",
                                            "aten::reciprocal",
                                            "aten::to",
                                            "aten::type_as",
                                            "aten::_to_copy",

                                            "aten::tril",
                                            "aten::triu",
                                            "aten::cumsum",
                                            "aten::logical_not",
                                            "aten::bitwise_not",
                                            "aten::sign",
                                            "aten::floor",
                                            "aten::ceil",
                                            "aten::round",
                                            "aten::square",
                                            "aten::float",
                                            "aten::long",
                                            "aten::int",
                                            "aten::bool",
                                            "aten::half",
                                            "aten::double",
                                            "aten::zeros_like",
                                            "aten::ones_like",
                                            "aten::empty_like",
                                            "aten::full_like",
                                            "aten::rand_like",
                                            "aten::randn_like"};
  return ops;
}

// Element-wise ops that broadcast their tensor inputs.
const std::set<std::string>& broadcast_ops() {
  static const std::set<std::string> ops = {
      "aten::add",        "aten::sub",          "aten::mul",         "aten::div",         "aten::rsub",
      "aten::where",      "aten::eq",           "aten::ne",          "aten::lt",          "aten::gt",
      "aten::le",         "aten::ge",           "aten::pow",         "aten::masked_fill", "aten::maximum",
      "aten::minimum",    "aten::floor_divide", "aten::remainder",   "aten::fmod",        "aten::logical_and",
      "aten::logical_or", "aten::logical_xor",  "aten::bitwise_and", "aten::bitwise_or",  "aten::bitwise_xor",
      "aten::__and__",    "aten::__or__",       "aten::__xor__",     "aten::atan2",       "aten::lerp",
      "aten::addcmul",    "aten::addcdiv",      "aten::hypot",       "aten::true_divide", "aten::clamp",
      "aten::clamp_min",  "aten::clamp_max"};
  return ops;
}

// List and tuple plumbing: an output is an element of an input.
bool structural(const std::string& op) {
  return op == "prim::ListUnpack" || op == "prim::TupleUnpack" || op == "prim::TupleIndex" ||
         op == "prim::ListIndex" || op == "aten::__getitem__" || op == "prim::ListConstruct" ||
         op == "prim::TupleConstruct";
}

bool is_conv(const std::string& op) {
  return op == "aten::conv1d" || op == "aten::conv2d" || op == "aten::conv3d" || op == "aten::_convolution" ||
         op == "aten::convolution" || op == "aten::conv_transpose1d" || op == "aten::conv_transpose2d" ||
         op == "aten::conv_transpose3d";
}

bool is_pool(const std::string& op) {
  return op == "aten::max_pool1d" || op == "aten::max_pool2d" || op == "aten::max_pool3d" ||
         op == "aten::avg_pool1d" || op == "aten::avg_pool2d" || op == "aten::avg_pool3d" ||
         op == "aten::adaptive_avg_pool1d" || op == "aten::adaptive_avg_pool2d" ||
         op == "aten::adaptive_avg_pool3d" || op == "aten::adaptive_max_pool2d";
}

// The tokens of tensor output k of `n` (rank `rank`) by the op's rule, or
// nothing when the op has none.
std::optional<Symbols> tensor_rule(Ctx& cx, const tj::Node* n, const std::string& op, size_t k, size_t rank) {
  const size_t n_in = n->inputs().size();
  auto in = [&](size_t i) { return i < n_in ? cx.get(n->input(i)) : VP(); };
  auto tensor_dims = [&](size_t i) -> std::optional<std::vector<DimOf>> {
    const VP v = in(i);
    if (!is_tensor(v)) return std::nullopt;
    return dims_of(v);
  };
  const auto x = tensor_dims(0);
  if (k == 0 && (same_shape_ops().count(op) || op == "aten::native_layer_norm")) {
    if (x && x->size() == rank) return tokens_of(*x);
    return std::nullopt;
  }
  if ((op == "aten::max" || op == "aten::min") && n_in == 3 && k < 2) {  // values and indices along a dim
    const auto d = static_int(in(1));
    const VP keep = in(2);
    if (!x || !d || !keep || !keep->is_static || !keep->iv.isBool() ||
        !in_range(norm(*d, x->size()), x->size()))
      return std::nullopt;
    Symbols s = tokens_of(*x);
    const auto at = static_cast<size_t>(norm(*d, x->size()));
    if (keep->iv.toBool()) s[at] = DimSymbols::kStatic;
    else s.erase(s.begin() + static_cast<std::ptrdiff_t>(at));
    if (s.size() != rank) return std::nullopt;
    return s;
  }
  if (k != 0) return std::nullopt;
  if (broadcast_ops().count(op)) {
    std::vector<std::vector<DimOf>> ins;
    for (size_t i = 0; i < n_in; ++i)
      if (auto d = tensor_dims(i)) ins.push_back(*d);
    return broadcast(ins, rank);
  }
  if (op == "aten::permute") {
    const auto perm = static_ints(in(1));
    if (!x || !perm || perm->size() != rank || x->size() != rank) return std::nullopt;
    Symbols s;
    for (int64_t p : *perm) {
      if (!in_range(norm(p, rank), rank)) return std::nullopt;
      s.push_back((*x)[static_cast<size_t>(norm(p, rank))].token);
    }
    return s;
  }
  if (op == "aten::transpose" || op == "aten::t") {
    if (!x || x->size() != rank) return std::nullopt;
    Symbols s = tokens_of(*x);
    if (op == "aten::t") {
      if (rank == 2) std::swap(s[0], s[1]);
      return s;
    }
    const auto a = static_int(in(1)), b = static_int(in(2));
    if (!a || !b || !in_range(norm(*a, rank), rank) || !in_range(norm(*b, rank), rank)) return std::nullopt;
    std::swap(s[static_cast<size_t>(norm(*a, rank))], s[static_cast<size_t>(norm(*b, rank))]);
    return s;
  }
  if (op == "aten::unsqueeze") {
    const auto d = static_int(in(1));
    if (!x || !d || x->size() + 1 != rank || !in_range(norm(*d, rank), rank)) return std::nullopt;
    Symbols s = tokens_of(*x);
    s.insert(s.begin() + norm(*d, rank), DimSymbols::kStatic);
    return s;
  }
  if (op == "aten::squeeze" || op == "aten::select") {
    const auto d = static_int(in(1));
    if (!x || !d || x->size() != rank + 1 || !in_range(norm(*d, x->size()), x->size())) return std::nullopt;
    const auto at = static_cast<size_t>(norm(*d, x->size()));
    if (op == "aten::squeeze" && !(is_static((*x)[at]) && (*x)[at].size == 1)) return std::nullopt;
    Symbols s = tokens_of(*x);
    s.erase(s.begin() + static_cast<std::ptrdiff_t>(at));
    return s;
  }
  if (op == "aten::slice") {
    const auto d = static_int(in(1));
    if (!x || !d || x->size() != rank || !in_range(norm(*d, rank), rank)) return std::nullopt;
    Symbols s = tokens_of(*x);
    const auto at = static_cast<size_t>(norm(*d, rank));
    const VP start = in(2), end = in(3), step = in(4);
    auto fixed = [](const VP& v) { return !v || v->iv.isNone() || static_int(v).has_value(); };
    const bool from_zero = start && (start->iv.isNone() || static_int(start) == int64_t{0});
    const bool to_end = end && (end->iv.isNone() || static_int(end).value_or(0) >= (int64_t{1} << 62));
    const bool unit = !step || step->iv.isNone() || static_int(step) == int64_t{1};
    if (from_zero && to_end && unit) return s;  // x[0:]: the dim as it is
    // a static dim sliced by static bounds stays static; anything else is unknown
    s[at] = is_static((*x)[at]) && fixed(start) && fixed(end) && fixed(step) ? DimSymbols::kStatic : "";
    return s;
  }
  if (op == "aten::expand") {
    const auto elems = elems_of(in(1));
    if (!x || !elems || elems->size() != rank || x->size() > rank) return std::nullopt;
    Symbols s(rank);
    const size_t lead = rank - x->size();
    for (size_t j = 0; j < rank; ++j) {
      const ElemOf& e = (*elems)[j];
      if (e.value == int64_t{-1}) s[j] = j >= lead ? (*x)[j - lead].token : "";
      else s[j] = e.value ? DimSymbols::kStatic : e.token;
    }
    return s;
  }
  if (op == "aten::expand_as" || op == "aten::view_as" || op == "aten::reshape_as") {
    const auto other = tensor_dims(1);
    if (!other || other->size() != rank) return std::nullopt;
    return tokens_of(*other);
  }
  if (op == "aten::view" || op == "aten::reshape" || op == "aten::_unsafe_view")
    return from_size_list(in(1), rank);
  if (op == "aten::zeros" || op == "aten::ones" || op == "aten::empty" || op == "aten::full" ||
      op == "aten::rand" || op == "aten::randn")
    return from_size_list(in(0), rank);
  if (op == "aten::new_zeros" || op == "aten::new_ones" || op == "aten::new_empty" || op == "aten::new_full")
    return from_size_list(in(1), rank);
  if (op == "aten::linear") {
    if (!x || x->size() != rank || rank == 0) return std::nullopt;
    const auto w = tensor_dims(1);  // [out, in]: the output's last dim is the weight's first
    if (!w || w->size() != 2) return std::nullopt;
    Symbols s = tokens_of(*x);
    s.back() = (*w)[0].token;
    return s;
  }
  if (op == "aten::matmul" || op == "aten::bmm") {
    const auto b = tensor_dims(1);
    if (!x || !b || x->size() < 2 || b->empty()) return std::nullopt;
    if (b->size() == 1) {  // matrix x vector: x's dims but the last
      if (rank + 1 != x->size()) return std::nullopt;
      Symbols s = tokens_of(*x);
      s.pop_back();
      return s;
    }
    if (rank != std::max(x->size(), b->size())) return std::nullopt;
    std::vector<DimOf> xb(x->begin(), x->end() - 2), bb(b->begin(), b->end() - 2);
    Symbols s = broadcast({xb, bb}, rank - 2);
    s.push_back((*x)[x->size() - 2].token);
    s.push_back(b->back().token);
    return s;
  }
  if (op == "aten::mm" || op == "aten::addmm") {
    const auto a = tensor_dims(op == "aten::mm" ? 0 : 1), b = tensor_dims(op == "aten::mm" ? 1 : 2);
    if (!a || !b || a->size() != 2 || b->size() != 2 || rank != 2) return std::nullopt;
    if (op == "aten::addmm") {  // the bias broadcasts against a @ b
      const auto bias = tensor_dims(0);
      if (!bias) return std::nullopt;
      return broadcast({*bias, {(*a)[0], (*b)[1]}}, 2);
    }
    return Symbols{(*a)[0].token, (*b)[1].token};
  }
  if (op == "aten::embedding") {
    const auto idx = tensor_dims(1);
    if (!x || x->size() != 2 || !idx || idx->size() + 1 != rank) return std::nullopt;
    Symbols s = tokens_of(*idx);
    s.push_back((*x)[1].token);  // the table's row width
    return s;
  }
  if (is_conv(op) || is_pool(op)) {
    if (!x || x->size() != rank || rank < 2) return std::nullopt;
    if (is_conv(op)) {  // batched only: the weight has x's rank
      const auto w = tensor_dims(1);
      if (!w || w->size() != rank) return std::nullopt;
    }
    // Batch kept (channels when unbatched, for pools); the rest static when
    // the input's is and so are every other argument (weight, bias, kernel,
    // stride, padding).
    bool fixed = all_static(*x, 1, rank);
    for (size_t i = 1; i < n_in; ++i) {
      const VP a = in(i);
      if (!a || a->iv.isNone()) continue;
      fixed = fixed && (is_tensor(a) ? all_static(dims_of(a), 0, SIZE_MAX) : static_by_construction(*a));
    }
    Symbols s(rank, fixed ? DimSymbols::kStatic : "");
    s[0] = (*x)[0].token;
    if (is_conv(op)) {  // the output channels: the weight's, static when it is
      bool weights_static = true;
      for (size_t i = 1; i < n_in; ++i)
        if (const VP a = in(i); is_tensor(a))
          weights_static = weights_static && all_static(dims_of(a), 0, SIZE_MAX);
      s[1] = weights_static ? DimSymbols::kStatic : "";
    }
    return s;
  }
  if (op == "aten::cat" || op == "aten::concat" || op == "aten::stack") {
    const VP list = in(0);
    const auto d = static_int(in(1));
    if (!list || !list->has_elems || list->elems.empty() || !d) return std::nullopt;
    std::vector<std::vector<DimOf>> parts;
    for (const auto& e : list->elems) {
      if (!is_tensor(e)) return std::nullopt;
      parts.push_back(dims_of(e));
    }
    Symbols s = tokens_of(parts[0]);  // the other dims agree between the parts
    if (op == "aten::stack") {
      if (s.size() + 1 != rank || !in_range(norm(*d, rank), rank)) return std::nullopt;
      s.insert(s.begin() + norm(*d, rank), DimSymbols::kStatic);
      return s;
    }
    if (s.size() != rank || !in_range(norm(*d, rank), rank)) return std::nullopt;
    const auto at = static_cast<size_t>(norm(*d, rank));
    bool fixed = true;
    for (const auto& p : parts) fixed = fixed && p.size() == rank && is_static(p[at]);
    s[at] = fixed ? DimSymbols::kStatic : "";
    return s;
  }
  if (op == "aten::flatten") {
    const auto a = static_int(in(1)), b = static_int(in(2));
    if (!x || x->empty() || !a || !b) return std::nullopt;
    const int64_t s0 = norm(*a, x->size()), e0 = norm(*b, x->size());
    if (!in_range(s0, x->size()) || !in_range(e0, x->size()) || e0 < s0 ||
        x->size() - static_cast<size_t>(e0 - s0) != rank)
      return std::nullopt;
    Symbols all = tokens_of(*x), s(all.begin(), all.begin() + s0);
    if (s0 == e0) s.push_back(all[static_cast<size_t>(s0)]);
    else
      s.push_back(all_static(*x, static_cast<size_t>(s0), static_cast<size_t>(e0) + 1) ? DimSymbols::kStatic
                                                                                       : "");
    s.insert(s.end(), all.begin() + e0 + 1, all.end());
    return s;
  }
  if (op == "aten::mean" || op == "aten::sum" || op == "aten::amax" || op == "aten::amin") {
    const auto dims = static_ints(in(1));
    const VP keep = in(2);
    if (!x || !dims || !keep || !keep->is_static || !keep->iv.isBool()) return std::nullopt;
    std::vector<bool> reduced(x->size(), dims->empty());
    for (int64_t d : *dims) {
      if (!in_range(norm(d, x->size()), x->size())) return std::nullopt;
      reduced[static_cast<size_t>(norm(d, x->size()))] = true;
    }
    Symbols s;
    for (size_t j = 0; j < x->size(); ++j) {
      if (!reduced[j]) s.push_back((*x)[j].token);
      else if (keep->iv.toBool()) s.push_back(DimSymbols::kStatic);
    }
    if (s.size() != rank) return std::nullopt;
    return s;
  }
  if (op == "aten::index_select") {
    const auto d = static_int(in(1));
    const auto idx = tensor_dims(2);
    if (!x || !d || !idx || idx->size() != 1 || x->size() != rank || !in_range(norm(*d, rank), rank))
      return std::nullopt;
    Symbols s = tokens_of(*x);
    s[static_cast<size_t>(norm(*d, rank))] = (*idx)[0].token;
    return s;
  }
  if (op == "aten::arange" && rank == 1) {
    // arange(end, ...), arange(start, end, ...), arange(start, end, step, ...):
    // from 0 by 1, the length is `end`.
    VP end;
    if (n_in == 5) end = in(0);
    else if (n_in == 6 && static_int(in(0)) == int64_t{0}) end = in(1);
    else if (n_in == 7 && static_int(in(0)) == int64_t{0} && static_int(in(2)) == int64_t{1}) end = in(1);
    if (!end || !end->iv.isInt()) return std::nullopt;
    if (static_by_construction(*end)) return Symbols{DimSymbols::kStatic};
    if (end->value_symbols.size() != 1) return std::nullopt;
    return Symbols{end->value_symbols[0]};
  }
  return std::nullopt;
}

// The tokens of each element of a tensor-list output (split, chunk,
// unbind), or nothing.
std::optional<Symbols> list_item_rule(Ctx& cx, const tj::Node* n, const std::string& op, size_t item_rank) {
  const VP x = n->inputs().empty() ? VP() : cx.get(n->input(0));
  if (!is_tensor(x)) return std::nullopt;
  const auto dims = dims_of(x);
  const bool splits = op == "aten::split" || op == "aten::split_with_sizes" || op == "aten::unsafe_split" ||
                      op == "aten::chunk" || op == "aten::unsafe_chunk";
  if (splits && n->inputs().size() >= 3) {
    const auto d = static_int(cx.get(n->input(2)));
    const VP sizes = cx.get(n->input(1));
    if (!d || dims.size() != item_rank || !in_range(norm(*d, item_rank), item_rank)) return std::nullopt;
    Symbols s = tokens_of(dims);
    const auto at = static_cast<size_t>(norm(*d, item_rank));
    // pieces of a static dim cut at static sizes are static
    const bool fixed = is_static(dims[at]) && static_by_construction(*sizes);
    s[at] = fixed ? DimSymbols::kStatic : "";
    return s;
  }
  if (op == "aten::unbind" && n->inputs().size() >= 2) {
    const auto d = static_int(cx.get(n->input(1)));
    if (!d || dims.size() != item_rank + 1 || !in_range(norm(*d, dims.size()), dims.size()))
      return std::nullopt;
    Symbols s = tokens_of(dims);
    s.erase(s.begin() + norm(*d, dims.size()));
    return s;
  }
  return std::nullopt;
}

// The tokens of int output k of `n` (one for an int, n for an int list),
// or nothing.
std::optional<Symbols> value_rule(Ctx& cx, const tj::Node* n, const std::string& op, size_t k) {
  const size_t n_in = n->inputs().size();
  if (n_in == 0) return std::nullopt;
  const VP x = cx.get(n->input(0));
  if (op == "aten::size" && is_tensor(x)) {
    const auto dims = dims_of(x);
    if (n_in == 1) return tokens_of(dims);
    const auto d = static_int(cx.get(n->input(1)));
    if (!d || !in_range(norm(*d, dims.size()), dims.size())) return std::nullopt;
    return Symbols{dims[static_cast<size_t>(norm(*d, dims.size()))].token};
  }
  if (op == "prim::NumToTensor" || op == "aten::Int" || op == "aten::IntImplicit" ||
      op == "aten::ScalarImplicit") {
    if (x->value_symbols.size() != 1) return std::nullopt;
    return x->value_symbols;
  }
  // An element of an int list held as a 1-D tensor (aten::size(x)).
  if (!x->has_elems && !x->value_symbols.empty()) {
    std::optional<int64_t> at;
    if (op == "prim::ListUnpack" || op == "prim::TupleUnpack") at = static_cast<int64_t>(k);
    if ((op == "aten::__getitem__" || op == "prim::ListIndex") && n_in == 2)
      at = static_int(cx.get(n->input(1)));
    const auto size = static_cast<int64_t>(x->value_symbols.size());
    if (at && *at < 0) *at += size;
    if (at && *at >= 0 && *at < size) return Symbols{x->value_symbols[static_cast<size_t>(*at)]};
  }
  return std::nullopt;
}

// Per dim of a tensor value: its sizes at the example and shifted shapes.
std::vector<Sizes> dim_sizes(const Val& v) {
  const at::Tensor& t = v.iv.toTensor();
  const bool shifted =
      v.shift == Shift::known && v.shifted.isTensor() && v.shifted.toTensor().dim() == t.dim();
  std::vector<Sizes> s;
  for (int64_t k = 0; k < t.dim(); ++k)
    s.push_back({t.size(k), shifted ? std::optional<int64_t>(v.shifted.toTensor().size(k)) : std::nullopt});
  return s;
}

// Per element of an int value (one for an int or a 0-d tensor, n for an
// int list): its sizes, and whether it is dynamic.
void int_sizes(const Val& v, std::vector<Sizes>& sizes, std::vector<bool>& dynamic) {
  std::vector<std::optional<int64_t>> example, shifted;
  if (v.iv.isIntList()) {
    for (int64_t x : v.iv.toIntVector()) example.push_back(x);
    if (v.shift == Shift::known && v.shifted.isIntList())
      for (int64_t x : v.shifted.toIntVector()) shifted.push_back(x);
  } else {
    example.push_back(int_of(v.iv));
    if (v.shift == Shift::known) shifted.push_back(int_of(v.shifted));
  }
  const bool paired = shifted.size() == example.size();
  for (size_t k = 0; k < example.size(); ++k) {
    const auto sh = paired ? shifted[k] : std::nullopt;
    sizes.push_back({example[k].value_or(-1), sh});
    // an unknown value (a meta 0-d tensor) counts as dynamic
    dynamic.push_back(v.shift == Shift::unknown ||
                      (v.shift == Shift::known && (!sh || !example[k] || *sh != *example[k])));
  }
}

}  // namespace

std::string DimSymbols::fresh(const Sizes& s) {
  std::string name = "#" + std::to_string(next_++);
  sizes_[name] = s;
  return name;
}

bool DimSymbols::fits(const std::string& symbol, const Sizes& s) const {
  auto it = sizes_.find(symbol);
  if (it == sizes_.end() || it->second.example != s.example) return false;
  return !it->second.shifted || !s.shifted || *it->second.shifted == *s.shifted;
}

std::vector<std::string> DimSymbols::checked(const std::vector<std::string>& proposed,
                                             const std::vector<bool>& dynamic,
                                             const std::vector<Sizes>& sizes) {
  std::vector<std::string> out(sizes.size());
  for (size_t k = 0; k < sizes.size(); ++k) {
    const std::string p = k < proposed.size() ? proposed[k] : "";
    if (!dynamic[k]) out[k] = p == kStatic ? kStatic : "";  // static at both shapes, proven or not
    else out[k] = is_symbol(p) && fits(p, sizes[k]) ? p : fresh(sizes[k]);
  }
  return out;
}

void DimSymbols::bind_input(Val& v, const std::string& input) {
  if (!v.iv.isTensor()) return;
  const auto dynamic = dynamic_dims(v.iv.toTensor(), v.shift, v.shifted);
  const auto sizes = dim_sizes(v);
  v.dim_symbols.assign(sizes.size(), kStatic);
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (!dynamic[k]) continue;
    v.dim_symbols[k] = input + ":" + std::to_string(k);
    sizes_[v.dim_symbols[k]] = sizes[k];
  }
  record(v);
}

VP DimSymbols::with_symbols(Ctx& cx, const tj::Node* n, const std::string& op, size_t k, const VP& out) {
  auto c = std::make_shared<Val>(*out);
  if (is_int_value(out->iv) || (out->iv.isIntList() && !out->has_elems)) {
    std::vector<Sizes> sizes;
    std::vector<bool> dynamic;
    int_sizes(*out, sizes, dynamic);
    auto proposed = value_rule(cx, n, op, k);
    if (!proposed && (structural(op) || out->value_symbols.size() == sizes.size()))
      proposed = out->value_symbols;
    c->value_symbols = checked(proposed.value_or(Symbols{}), dynamic, sizes);
    if (std::all_of(c->value_symbols.begin(), c->value_symbols.end(),
                    [](const auto& s) { return s.empty(); }))
      c->value_symbols.clear();
    if (!is_tensor(out)) return c;
  }
  if (is_tensor(out)) {
    const auto rank = static_cast<size_t>(out->iv.toTensor().dim());
    auto proposed = structural(op) ? std::nullopt : tensor_rule(cx, n, op, k, rank);
    if (!proposed)
      proposed = out->dim_symbols;  // the value an input is (views of itself, casts to its dtype)
    c->dim_symbols =
        checked(*proposed, dynamic_dims(out->iv.toTensor(), out->shift, out->shifted), dim_sizes(*out));
    return c;
  }
  if (out->has_elems && out->iv.isTensorList() && !structural(op)) {
    for (auto& e : c->elems) {
      if (!is_tensor(e) || static_by_construction(*e)) continue;
      auto item = std::make_shared<Val>(*e);
      const auto rank = static_cast<size_t>(e->iv.toTensor().dim());
      const auto proposed = list_item_rule(cx, n, op, rank);
      item->dim_symbols = checked(proposed.value_or(Symbols{}),
                                  dynamic_dims(e->iv.toTensor(), e->shift, e->shifted), dim_sizes(*e));
      e = item;
    }
  }
  return c;
}

void DimSymbols::assign(Ctx& cx, const tj::Node* n) {
  const std::string op = base_op(n->kind().toQualString());
  std::vector<VP> done;
  for (size_t k = 0; k < n->outputs().size(); ++k) {
    const VP out = cx.get(n->output(k));
    done.push_back(out && !static_by_construction(*out) && !out->is_module ? with_symbols(cx, n, op, k, out)
                                                                           : out);
  }
  // Bound once every rule has read the inputs (an in-place op's output is its input).
  for (size_t k = 0; k < done.size(); ++k) {
    if (!done[k] || done[k]->is_module) continue;
    cx.bind(n->output(k), done[k]);
    record(*done[k]);
    for (const auto& e : done[k]->elems) record(*e);
  }
}

void DimSymbols::record(const Val& v) {
  if (v.is_static || v.name.empty() || !v.iv.isTensor() || !v.iv.toTensor().defined()) return;
  const at::Tensor& t = v.iv.toTensor();
  if (t.is_complex()) return;  // its ONNX tensor has the pair axis PyTorch's dims lack (complex_values.hpp)
  const auto rank = static_cast<size_t>(t.dim());
  std::vector<mx::aten_onnx::SymbolicDim> dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    const std::string token = static_by_construction(v)      ? kStatic
                              : v.dim_symbols.size() == rank ? v.dim_symbols[k]
                                                             : "";
    if (token == kStatic) dims[k].size = t.size(static_cast<int64_t>(k));
    else dims[k].symbol = token;
  }
  auto [it, fresh] = shapes_.emplace(v.name, dims);
  if (fresh) return;
  const auto& had = it->second;
  bool same = had.size() == dims.size();
  for (size_t k = 0; same && k < dims.size(); ++k)
    same = had[k].size == dims[k].size && had[k].symbol == dims[k].symbol;
  if (!same) ambiguous_.insert(v.name);
}

mx::aten_onnx::SymbolicShapes DimSymbols::shapes() const {
  auto out = shapes_;
  for (const auto& name : ambiguous_) out.erase(name);
  return out;
}

}  // namespace mx::torchscript
