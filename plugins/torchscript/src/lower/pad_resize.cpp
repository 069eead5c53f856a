// Padding (constant_pad_nd, pad, reflection/replication pads) and
// resizing (upsample_nearest*/bilinear*/linear/bicubic, i.e. interpolate).
#include <climits>

#include "ctx.h"

namespace mxts {
namespace {

// torch pad list (last dim first: l, r, l, r, ...) -> ONNX pads for rank r
std::string onnx_pads(Ctx& cx, size_t idx, int64_t r) {
  VP p = cx.in(idx);
  if (p->is_static) {
    auto v = cx.arg_int_list(idx);
    int64_t n = static_cast<int64_t>(v.size()) / 2;
    std::vector<int64_t> b(r, 0), e(r, 0);
    for (int64_t k = 0; k < n; ++k) {
      b[r - 1 - k] = v[2 * k];
      e[r - 1 - k] = v[2 * k + 1];
    }
    b.insert(b.end(), e.begin(), e.end());
    return cx.ci64(b);
  }
  int64_t n = static_cast<int64_t>(p->iv.toListRef().size()) / 2;
  std::string pl = cx.shape_list(p);
  std::vector<int64_t> bi, ei;
  for (int64_t k = n - 1; k >= 0; --k) { bi.push_back(2 * k); ei.push_back(2 * k + 1); }
  std::vector<std::string> parts;
  std::vector<int64_t> zeros(r - n, 0);
  if (r > n) parts.push_back(cx.ci64(zeros));
  parts.push_back(cx.emit1("Gather", {pl, cx.ci64(bi)}, {attr("axis", int64_t{0})}));
  if (r > n) parts.push_back(cx.ci64(zeros));
  parts.push_back(cx.emit1("Gather", {pl, cx.ci64(ei)}, {attr("axis", int64_t{0})}));
  return cx.emit1("Concat", parts, {attr("axis", int64_t{0})});
}

void emit_pad(Ctx& cx, const std::string& mode, size_t pad_idx, int64_t value_idx) {
  auto dt = cx.out_st();
  int64_t r = cx.rank(0);
  std::vector<std::string> ins = {cx.tensor(0), onnx_pads(cx, pad_idx, r)};
  if (mode == "constant" && value_idx >= 0 && static_cast<size_t>(value_idx) < cx.n_in() && !cx.is_none(value_idx))
    ins.push_back(cx.tensor_as(value_idx, dt));
  std::string m = mode == "replicate" ? "edge" : mode;
  if (m != "constant" && m != "reflect" && m != "edge") cx.unsupported("pad mode '" + mode + "'");
  cx.out(0, cx.emit1("Pad", ins, {attr("mode", m)}));
}

void lower_constant_pad(Ctx& cx, const tj::Node*) { emit_pad(cx, "constant", 1, 2); }
MXTS_LOWER(lower_constant_pad, "aten::constant_pad_nd");

void lower_pad(Ctx& cx, const tj::Node*) {  // pad(self, pad, mode="constant", value=None)
  std::string mode = cx.n_in() > 2 ? cx.arg_string(2) : "constant";
  emit_pad(cx, mode.empty() ? "constant" : mode, 1, 3);
}
MXTS_LOWER(lower_pad, "aten::pad");

void lower_reflection_pad(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toQualString();
  emit_pad(cx, k.find("reflection") != std::string::npos ? "reflect" : "replicate", 1, -1);
}
MXTS_LOWER(lower_reflection_pad, "aten::reflection_pad1d", "aten::reflection_pad2d", "aten::reflection_pad3d",
           "aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d");

// upsample_<mode>(input, output_size?, [align_corners,] scale_factors?) and the
// per-rank overloads with explicit output_size and scales. The ONNX form
// is the shared pattern (aten_onnx/src/patterns/resize.cpp).
void lower_upsample(Ctx& cx, const tj::Node* n) {
  const std::string k = n->kind().toUnqualString();
  const bool has_align = k.find("linear") != std::string::npos || k.find("bicubic") != std::string::npos;
  const bool corners = has_align && cx.arg_bool(2);
  const std::string x = cx.tensor(0);
  VP os = cx.in(1);
  if (!os->iv.isNone()) {  // output sizes: static, or a dynamic size list
    const std::string sizes = os->is_static ? cx.ci64(cx.arg_int_list(1)) : cx.shape_list(os);
    return cx.out(0, mx::aten_onnx::emit_resize_to(cx, k, corners, x, sizes));
  }
  // scale factors: output = floor(input * scale); the scales keep torch's coordinate mapping
  const size_t si = has_align ? 3 : 2;
  if (si >= cx.n_in() || cx.is_none(si)) cx.unsupported("upsample without output size or scales");
  std::vector<float> scales;
  for (const auto& e : cx.in(si)->iv.toListRef()) scales.push_back(static_cast<float>(e.toDouble()));
  cx.out(0, mx::aten_onnx::emit_resize_by(cx, k, corners, x, scales));
}
MXTS_LOWER(lower_upsample, "aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d",
           "aten::upsample_linear1d", "aten::upsample_bilinear2d", "aten::upsample_trilinear3d",
           "aten::upsample_bicubic2d", "aten::_upsample_nearest_exact2d");

}  // namespace
}  // namespace mxts
