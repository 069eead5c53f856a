#include "constant_data.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"

namespace mx::aten_onnx::passes {
namespace {

using Dims = std::vector<int64_t>;
using TP = onnx::TensorProto;

std::optional<int64_t> count(const Dims& dims) {
  int64_t n = 1;
  for (auto d : dims) {
    if (d < 0) return std::nullopt;
    n *= d;
  }
  return n;
}

Dims strides_of(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

template <typename T>
void append(std::string& bytes, T v) {
  bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// The 32-bit typed field holds one element of each narrow type.
void append_narrow(std::string& bytes, int32_t dtype, int32_t v) {
  switch (element_size(dtype)) {
    case 1:
      append(bytes, static_cast<uint8_t>(v));
      break;
    case 2:
      append(bytes, static_cast<uint16_t>(v));
      break;
    default:
      append(bytes, v);
      break;
  }
}

template <typename T>
int64_t read_as_int64(const std::string& bytes, size_t off) {
  T x;
  std::memcpy(&x, bytes.data() + off, sizeof(T));
  return static_cast<int64_t>(x);
}

// Copies, for every element of `out_dims` (row-major), the source element
// whose flat index `source` gives; nothing past `max` elements (checked
// before any byte is copied: an Expand to a large shape is not built).
std::optional<ConstantData> copy_elements(const ConstantData& x, const Dims& out_dims, int64_t max,
                                          const std::function<int64_t(const Dims&)>& source) {
  const auto total = count(out_dims);
  if (!total || *total > max) return std::nullopt;
  ConstantData r;
  r.dtype = x.dtype;
  r.dims = out_dims;
  const size_t es = element_size(x.dtype);
  const int64_t n = *total;
  r.bytes.reserve(static_cast<size_t>(n) * es);
  Dims idx(out_dims.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    r.bytes.append(x.bytes, static_cast<size_t>(source(idx)) * es, es);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < out_dims[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

}  // namespace

std::map<std::string, ConstantData> small_constants(const onnx::GraphProto& g, int64_t max_elements) {
  std::map<std::string, ConstantData> c;
  for (const auto& t : g.initializer())
    if (auto d = constant_data(t, max_elements)) c[t.name()] = std::move(*d);
  for (const auto& n : g.node())
    if (is_op(&n, "Constant"))
      if (auto d = constant_node_data(n, max_elements)) c[n.output(0)] = std::move(*d);
  return c;
}

std::optional<Dims> broadcast_shape(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = x == 1 ? y : x;
  }
  return out;
}

std::optional<ConstantData> expand(const ConstantData& x, const Dims& shape, int64_t max) {
  const size_t rank = std::max(x.dims.size(), shape.size());
  Dims xd(rank - x.dims.size(), 1), out(rank);
  xd.insert(xd.end(), x.dims.begin(), x.dims.end());
  Dims sd(rank - shape.size(), 1);
  sd.insert(sd.end(), shape.begin(), shape.end());
  for (size_t d = 0; d < rank; ++d) {
    if (xd[d] == sd[d] || sd[d] == 1) out[d] = xd[d];
    else if (xd[d] == 1) out[d] = sd[d];
    else return std::nullopt;
  }
  const Dims st = strides_of(xd);
  return copy_elements(x, out, max, [&](const Dims& i) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off += (xd[d] == 1 ? 0 : i[d]) * st[d];
    return off;
  });
}

std::optional<Dims> ints_of(const ConstantData* c) {
  if (!c || !is_signed_integer(c->dtype)) return std::nullopt;
  Dims v;
  const size_t es = element_size(c->dtype);
  for (size_t off = 0; off + es <= c->bytes.size(); off += es) {
    switch (es) {
      case 1:
        v.push_back(read_as_int64<int8_t>(c->bytes, off));
        break;
      case 2:
        v.push_back(read_as_int64<int16_t>(c->bytes, off));
        break;
      case 4:
        v.push_back(read_as_int64<int32_t>(c->bytes, off));
        break;
      default:
        v.push_back(read_as_int64<int64_t>(c->bytes, off));
        break;
    }
  }
  return v;
}

namespace {

std::optional<ConstantData> slice(const ConstantData& x, const std::vector<const ConstantData*>& in,
                                  int64_t max) {
  const auto starts = ints_of(in[1]), ends = ints_of(in[2]);
  if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
  const auto rank = static_cast<int64_t>(x.dims.size());
  Dims axes(starts->size()), steps(starts->size(), 1);
  for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
  if (in.size() > 3 && in[3]) {
    auto a = ints_of(in[3]);
    if (!a || a->size() != starts->size()) return std::nullopt;
    axes = *a;
  }
  if (in.size() > 4 && in[4]) {
    auto s = ints_of(in[4]);
    if (!s || s->size() != starts->size()) return std::nullopt;
    steps = *s;
  }
  Dims first(x.dims.size(), 0), step(x.dims.size(), 1), out = x.dims;
  std::vector<bool> seen(x.dims.size(), false);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k];
    if (!normalize_axis(a, rank) || seen[static_cast<size_t>(a)] || steps[k] == 0) return std::nullopt;
    seen[static_cast<size_t>(a)] = true;
    const int64_t dim = x.dims[static_cast<size_t>(a)];
    int64_t s = (*starts)[k], e = (*ends)[k];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    int64_t len;
    if (steps[k] > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > s ? (e - s + steps[k] - 1) / steps[k] : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = s > e ? (s - e - steps[k] - 1) / -steps[k] : 0;
    }
    first[static_cast<size_t>(a)] = s;
    step[static_cast<size_t>(a)] = steps[k];
    out[static_cast<size_t>(a)] = len;
  }
  const Dims st = strides_of(x.dims);
  return copy_elements(x, out, max, [&](const Dims& i) {
    int64_t off = 0;
    for (size_t d = 0; d < i.size(); ++d) off += (first[d] + i[d] * step[d]) * st[d];
    return off;
  });
}

std::optional<ConstantData> concat(const onnx::NodeProto& n, const std::vector<const ConstantData*>& in) {
  const auto* axis_attr = find_attr(n, "axis");
  if (!axis_attr || in.empty()) return std::nullopt;
  const ConstantData& x = *in[0];
  int64_t axis = axis_attr->i();
  if (!normalize_axis(axis, static_cast<int64_t>(x.dims.size()))) return std::nullopt;
  ConstantData r;
  r.dtype = x.dtype;
  r.dims = x.dims;
  r.dims[static_cast<size_t>(axis)] = 0;
  for (const auto* t : in) {
    if (!t || t->dtype != x.dtype || t->dims.size() != x.dims.size()) return std::nullopt;
    for (size_t d = 0; d < x.dims.size(); ++d)
      if (d != static_cast<size_t>(axis) && t->dims[d] != x.dims[d]) return std::nullopt;
    r.dims[static_cast<size_t>(axis)] += t->dims[static_cast<size_t>(axis)];
  }
  const int64_t outer = *count(Dims(x.dims.begin(), x.dims.begin() + axis));
  for (int64_t o = 0; o < outer; ++o)
    for (const auto* t : in) {
      const size_t chunk = t->bytes.size() / static_cast<size_t>(std::max<int64_t>(outer, 1));
      r.bytes.append(t->bytes, static_cast<size_t>(o) * chunk, chunk);
    }
  return r;
}

std::optional<ConstantData> gather(const onnx::NodeProto& n, const ConstantData& x,
                                   const ConstantData* indices, int64_t max) {
  auto idx = ints_of(indices);
  if (!idx) return std::nullopt;
  const auto* axis_attr = find_attr(n, "axis");
  int64_t axis = axis_attr ? axis_attr->i() : 0;
  if (!normalize_axis(axis, static_cast<int64_t>(x.dims.size()))) return std::nullopt;
  const int64_t dim = x.dims[static_cast<size_t>(axis)];
  for (auto& i : *idx)
    if (!normalize_axis(i, dim)) return std::nullopt;
  Dims out(x.dims.begin(), x.dims.begin() + axis);
  out.insert(out.end(), indices->dims.begin(), indices->dims.end());
  out.insert(out.end(), x.dims.begin() + axis + 1, x.dims.end());
  const Dims st = strides_of(x.dims), ist = strides_of(indices->dims);
  const size_t a = static_cast<size_t>(axis), ir = indices->dims.size();
  return copy_elements(x, out, max, [&](const Dims& i) {
    int64_t off = 0, flat = 0;
    for (size_t d = 0; d < a; ++d) off += i[d] * st[d];
    for (size_t d = 0; d < ir; ++d) flat += i[a + d] * ist[d];
    off += (*idx)[static_cast<size_t>(flat)] * st[a];
    for (size_t d = a + 1; d < x.dims.size(); ++d) off += i[d - 1 + ir] * st[d];
    return off;
  });
}

std::optional<ConstantData> transpose(const onnx::NodeProto& n, const ConstantData& x, int64_t max) {
  const size_t rank = x.dims.size();
  Dims perm(rank);
  for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(rank - 1 - d);
  if (const auto* p = find_attr(n, "perm")) perm.assign(p->ints().begin(), p->ints().end());
  if (perm.size() != rank) return std::nullopt;
  std::vector<bool> used(rank, false);
  Dims out(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= static_cast<int64_t>(rank) || used[static_cast<size_t>(perm[d])])
      return std::nullopt;
    used[static_cast<size_t>(perm[d])] = true;
    out[d] = x.dims[static_cast<size_t>(perm[d])];
  }
  const Dims st = strides_of(x.dims);
  return copy_elements(x, out, max, [&](const Dims& i) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off += i[d] * st[static_cast<size_t>(perm[d])];
    return off;
  });
}

// Reshape, Unsqueeze and Squeeze keep the bytes and change the dims.
std::optional<Dims> reshaped(const onnx::NodeProto& n, const ConstantData& x, const Dims& shape) {
  const auto* az = find_attr(n, "allowzero");
  if (az && az->i() != 0) return std::nullopt;
  return reshape_dims(x.dims, x.numel(), shape);
}

std::optional<Dims> unsqueezed(const ConstantData& x, const Dims& axes) {
  const auto rank = static_cast<int64_t>(x.dims.size() + axes.size());
  std::vector<bool> is_new(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (!normalize_axis(a, rank) || is_new[static_cast<size_t>(a)]) return std::nullopt;
    is_new[static_cast<size_t>(a)] = true;
  }
  Dims out;
  size_t k = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(is_new[static_cast<size_t>(d)] ? 1 : x.dims[k++]);
  return out;
}

std::optional<Dims> squeezed(const ConstantData& x, const std::optional<Dims>& axes) {
  std::vector<bool> drop(x.dims.size(), false);
  if (axes) {
    for (int64_t a : *axes) {
      if (!normalize_axis(a, static_cast<int64_t>(x.dims.size())) || x.dims[static_cast<size_t>(a)] != 1)
        return std::nullopt;
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (size_t d = 0; d < x.dims.size(); ++d) drop[d] = x.dims[d] == 1;
  }
  Dims out;
  for (size_t d = 0; d < x.dims.size(); ++d)
    if (!drop[d]) out.push_back(x.dims[d]);
  return out;
}

// Where(c, a, b): each element of `a` or `b`, as `c` selects, all three
// broadcast together.
std::optional<ConstantData> where(const ConstantData& c, const ConstantData& a, const ConstantData& b,
                                  int64_t max) {
  if (c.dtype != TP::BOOL || a.dtype != b.dtype) return std::nullopt;
  auto dims = broadcast_shape(c.dims, a.dims);
  if (dims) dims = broadcast_shape(*dims, b.dims);
  if (!dims) return std::nullopt;
  auto cond = expand(c, *dims, max), r = expand(a, *dims, max), other = expand(b, *dims, max);
  if (!cond || !r || !other) return std::nullopt;
  const size_t es = element_size(a.dtype);
  for (size_t k = 0; k < cond->bytes.size(); ++k)
    if (!cond->bytes[k]) r->bytes.replace(k * es, es, other->bytes, k * es, es);
  return r;
}

ConstantData with_dims(const ConstantData& x, Dims dims) {
  ConstantData r = x;
  r.dims = std::move(dims);
  return r;
}

ConstantData shape_of(const onnx::NodeProto& n, const ConstantData& x) {
  const auto rank = static_cast<int64_t>(x.dims.size());
  const auto* sa = find_attr(n, "start");
  const auto* ea = find_attr(n, "end");
  int64_t start = sa ? sa->i() : 0, end = ea ? ea->i() : rank;
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  ConstantData r;
  r.dtype = TP::INT64;
  r.dims = {end - start};
  for (int64_t d = start; d < end; ++d) append(r.bytes, x.dims[static_cast<size_t>(d)]);
  return r;
}

std::optional<ConstantData> eval(const onnx::NodeProto& n, const std::vector<const ConstantData*>& in,
                                 int64_t max) {
  const std::string& op = n.op_type();
  if (in.empty() || !in[0]) return std::nullopt;
  const ConstantData& x = *in[0];
  if (op == "Identity" && in.size() == 1) return x;
  if (op == "Shape" && in.size() == 1) return shape_of(n, x);
  if (op == "Expand" && in.size() == 2) {
    auto shape = ints_of(in[1]);
    return shape ? expand(x, *shape, max) : std::nullopt;
  }
  if (op == "Slice" && in.size() >= 3 && in.size() <= 5) return slice(x, in, max);
  if (op == "Concat") return concat(n, in);
  if (op == "Gather" && in.size() == 2) return gather(n, x, in[1], max);
  if (op == "Transpose" && in.size() == 1) return transpose(n, x, max);
  if (op == "Where" && in.size() == 3 && in[1] && in[2]) return where(x, *in[1], *in[2], max);
  std::optional<Dims> dims;
  if (op == "Reshape" && in.size() == 2) {
    if (auto shape = ints_of(in[1])) dims = reshaped(n, x, *shape);
  } else if (op == "Flatten" && in.size() == 1) {  // [d0 * .. * d(axis-1), the rest]
    const auto rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = int_attr(n, "axis", 1);
    if (axis < 0) axis += rank;
    if (axis >= 0 && axis <= rank) {
      Dims two = {1, 1};
      for (size_t d = 0; d < x.dims.size(); ++d) two[static_cast<int64_t>(d) < axis ? 0 : 1] *= x.dims[d];
      dims = two;
    }
  } else if (op == "Unsqueeze" && in.size() == 2) {
    if (auto axes = ints_of(in[1])) dims = unsqueezed(x, *axes);
  } else if (op == "Squeeze" && in.size() <= 2 && !find_attr(n, "axes")) {  // axes as an input (13+)
    std::optional<Dims> axes;
    if (in.size() == 2) {
      axes = ints_of(in[1]);
      if (!axes) return std::nullopt;
    }
    dims = squeezed(x, axes);
  }
  if (!dims) return std::nullopt;
  return with_dims(x, *dims);
}

}  // namespace

int64_t ConstantData::numel() const {
  return count(dims).value_or(0);
}

std::optional<ConstantData> constant_data(const onnx::TensorProto& t, int64_t max_elements) {
  const size_t es = element_size(t.data_type());
  // The evaluators know real types only.
  const bool complex = t.data_type() == TP::COMPLEX64 || t.data_type() == TP::COMPLEX128;
  if (es == 0 || complex || t.data_location() == TP::EXTERNAL || t.segment().begin() || t.segment().end())
    return std::nullopt;
  ConstantData c;
  c.dtype = t.data_type();
  c.dims.assign(t.dims().begin(), t.dims().end());
  const auto n = count(c.dims);
  if (!n || *n > max_elements) return std::nullopt;
  if (t.has_raw_data()) {
    c.bytes = t.raw_data();
  } else {
    switch (c.dtype) {
      case TP::FLOAT:
        for (float v : t.float_data()) append(c.bytes, v);
        break;
      case TP::DOUBLE:
        for (double v : t.double_data()) append(c.bytes, v);
        break;
      case TP::INT64:
        for (int64_t v : t.int64_data()) append(c.bytes, v);
        break;
      case TP::UINT32:
        for (uint64_t v : t.uint64_data()) append(c.bytes, static_cast<uint32_t>(v));
        break;
      case TP::UINT64:
        for (uint64_t v : t.uint64_data()) append(c.bytes, v);
        break;
      default:
        for (int32_t v : t.int32_data()) append_narrow(c.bytes, c.dtype, v);
        break;
    }
  }
  if (c.bytes.size() != static_cast<size_t>(*n) * es) return std::nullopt;
  return c;
}

std::optional<ConstantData> constant_node_data(const onnx::NodeProto& n, int64_t max_elements) {
  if (n.input_size() != 0 || n.attribute_size() != 1) return std::nullopt;
  const auto& a = n.attribute(0);
  ConstantData c;
  if (a.name() == "value") return constant_data(a.t(), max_elements);
  if (a.name() == "value_float") {
    c.dtype = TP::FLOAT;
    append(c.bytes, a.f());
  } else if (a.name() == "value_int") {
    c.dtype = TP::INT64;
    append(c.bytes, a.i());
  } else if (a.name() == "value_floats") {
    c.dtype = TP::FLOAT;
    for (float v : a.floats()) append(c.bytes, v);
    c.dims = {a.floats_size()};
  } else if (a.name() == "value_ints") {
    c.dtype = TP::INT64;
    for (int64_t v : a.ints()) append(c.bytes, v);
    c.dims = {a.ints_size()};
  } else {
    return std::nullopt;
  }
  if (c.numel() > max_elements) return std::nullopt;
  return c;
}

onnx::TensorProto to_tensor(const ConstantData& c) {
  onnx::TensorProto t;
  t.set_data_type(c.dtype);
  for (auto d : c.dims) t.add_dims(d);
  t.set_raw_data(c.bytes);
  return t;
}

std::optional<ConstantData> eval_data_movement(const onnx::NodeProto& n,
                                               const std::vector<const ConstantData*>& in,
                                               int64_t max_elements) {
  if (!n.domain().empty() || n.output_size() != 1) return std::nullopt;
  auto r = eval(n, in, max_elements);
  if (!r || r->numel() > max_elements) return std::nullopt;
  return r;
}

std::optional<std::vector<int64_t>> reshape_dims(const std::vector<int64_t>& from, int64_t numel,
                                                 const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  int64_t infer = -1, known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t s = shape[d];
    if (s == 0) {
      if (d >= from.size()) return std::nullopt;
      s = from[d];
    }
    if (s == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int64_t>(d);
    } else if (s < 0) {
      return std::nullopt;
    } else {
      known *= s;
    }
    out.push_back(s);
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return std::nullopt;
    out[static_cast<size_t>(infer)] = numel / known;
  }
  if (count(out) != numel) return std::nullopt;
  return out;
}

}  // namespace mx::aten_onnx::passes
