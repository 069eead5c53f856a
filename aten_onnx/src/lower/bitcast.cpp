// view(self, dtype) / view_copy(self, dtype): the same bytes read as
// another dtype (x.view(torch.int32) of a float32 tensor). Between dtypes
// of one size it is ONNX BitCast (opset 26; no earlier opset reinterprets
// bits, so below it the op is refused). Between sizes PyTorch changes the
// last dim: a float32 [.., n] viewed as uint8 is [.., 4n], each element's
// bytes in memory order (little endian) - the wide elements are read as
// unsigned integers and their pieces cut out with shifts and masks, or
// assembled from the narrow ones with shifts and ors. A complex tensor
// (pair layout, complex_pairs.hpp) is its parts' dtype with the pair axis
// merged into the last dim: complex64 [.., n] is float32 [.., 2n].
#include "mx/onnx_proto.hpp"

#include <algorithm>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"

namespace mx::aten_onnx {
namespace {

using T = onnx::TensorProto;

int64_t byte_size(int32_t dt) {
  switch (dt) {
    case T::BOOL:
    case T::INT8:
    case T::UINT8:
      return 1;
    case T::INT16:
    case T::UINT16:
    case T::FLOAT16:
    case T::BFLOAT16:
      return 2;
    case T::INT32:
    case T::UINT32:
    case T::FLOAT:
      return 4;
    case T::INT64:
    case T::UINT64:
    case T::DOUBLE:
      return 8;
    default:
      return 0;
  }
}

int32_t unsigned_of(int64_t bytes) {
  return bytes == 1 ? T::UINT8 : bytes == 2 ? T::UINT16 : bytes == 4 ? T::UINT32 : T::UINT64;
}

// The ONNX BitShift kernels of ONNX Runtime take uint8/32/64: 16-bit
// pieces are shifted as uint32.
int32_t shift_type(int64_t bytes) {
  return bytes == 2 ? T::UINT32 : unsigned_of(bytes);
}

std::string bitcast(OnnxEmitter& e, const std::string& x, int32_t from, int32_t to) {
  return from == to ? x : e.emit1("BitCast", {x}, {attr("to", static_cast<int64_t>(to))});
}

// x's first r - 1 dims followed by `tail` (r >= 1).
std::string shape_with_tail(OnnxEmitter& e, const std::string& x, int64_t r,
                            const std::vector<int64_t>& tail) {
  const std::string lead = e.emit1("Slice", {e.shape_of(x), e.ci64({0}), e.ci64({r - 1})});
  return e.emit1("Concat", {lead, e.ci64(tail)}, {attr("axis", int64_t{0})});
}

// x [.., n] of `from` as `to`, both real and not bool: [.., n * size(from) / size(to)].
std::string reinterpret(OnnxEmitter& e, const std::string& x, int64_t r, int32_t from, int32_t to) {
  const int64_t sb = byte_size(from), db = byte_size(to);
  if (sb == db) return e.emit1("BitCast", {x}, {attr("to", static_cast<int64_t>(to))});
  std::vector<int64_t> shifts;
  const int64_t piece = std::min(sb, db), k = std::max(sb, db) / piece;
  for (int64_t j = 0; j < k; ++j) shifts.push_back(8 * piece * j);
  if (sb > db) {  // each element cut into k pieces, the least significant first
    const int32_t st = shift_type(sb);
    const std::string u = e.cast(bitcast(e, x, from, unsigned_of(sb)), unsigned_of(sb), st);
    const std::string cut = e.emit1("BitShift", {e.unsqueeze(u, {r}), e.cast(e.ci64(shifts), T::INT64, st)},
                                    {attr("direction", "RIGHT")});
    const int64_t mask = (int64_t{1} << (8 * db)) - 1;
    const std::string pieces = e.emit1("BitwiseAnd", {cut, e.cast(e.ci64({mask}), T::INT64, st)});
    const std::string narrow = bitcast(e, e.cast(pieces, st, unsigned_of(db)), unsigned_of(db), to);
    return e.emit1("Reshape", {narrow, shape_with_tail(e, x, r, {-1})});  // [.., n, k] -> [.., n k]
  }
  // k consecutive elements make one, the first the least significant
  const int32_t st = shift_type(db);
  const std::string grouped = e.emit1("Reshape", {x, shape_with_tail(e, x, r, {-1, k})});
  const std::string u = e.cast(bitcast(e, grouped, from, unsigned_of(sb)), unsigned_of(sb), st);
  const std::string placed =
      e.emit1("BitShift", {u, e.cast(e.ci64(shifts), T::INT64, st)}, {attr("direction", "LEFT")});
  const auto parts = e.emit("Split", {placed, e.ci64(std::vector<int64_t>(k, 1))}, {attr("axis", r)}, k);
  std::string whole = parts[0];
  for (int64_t j = 1; j < k; ++j) whole = e.emit1("BitwiseOr", {whole, parts[j]});
  whole = e.squeeze(whole, {r});
  return bitcast(e, e.cast(whole, st, unsigned_of(db)), unsigned_of(db), to);
}

void lower_view_dtype(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t from = v.dtype, to = cx.out_dtype();
  if (from == to) return cx.out(0, cx.emit1("Identity", {v.onnx}));
  const std::string what = "view(dtype) from " + dtype_name(from) + " to " + dtype_name(to) + " (a bitcast)";
  int64_t r = static_cast<int64_t>(v.shape.size());
  std::string x = v.onnx;
  int32_t src = from;
  if (pairs::is_complex(from)) {  // [.., n, 2] -> [.., 2n]
    src = pairs::component(from);
    if (r == 0) cx.unsupported(what + " of a 0-d tensor");
    x = cx.emit1("Reshape", {x, shape_with_tail(cx, x, r, {-1})});
  }
  const int32_t dst = pairs::is_complex(to) ? pairs::component(to) : to;
  if (src == T::BOOL || dst == T::BOOL) cx.unsupported(what + " as or from bool");
  if (!byte_size(src) || !byte_size(dst)) cx.unsupported(what);
  if (src != dst) {
    if (cx.opset < 26) cx.unsupported(what + " needs ONNX opset 26 (BitCast)");
    if (byte_size(src) != byte_size(dst) && r == 0) cx.unsupported(what + " of a 0-d tensor");
    x = reinterpret(cx, x, r, src, dst);
  }
  if (pairs::is_complex(to))
    x = cx.emit1("Reshape", {x, shape_with_tail(cx, x, r, {-1, 2})});  // [.., 2m] -> [.., m, 2]
  cx.out(0, x == v.onnx ? cx.emit1("Identity", {x}) : x);
}
MX_ATEN_LOWER(lower_view_dtype, "aten.view.dtype", "aten.view_copy.dtype", "complex.aten.view.dtype",
              "complex.aten.view_copy.dtype");

}  // namespace
}  // namespace mx::aten_onnx
