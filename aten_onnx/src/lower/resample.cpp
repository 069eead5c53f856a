// Resampling: the upsample_* (interpolate) family -> Resize (the shared
// pattern); pixel_shuffle
// / pixel_unshuffle; grid_sampler -> GridSample; affine_grid -> AffineGrid; im2col (nn.Unfold) as a
// grouped convolution with one-hot kernels; col2im (nn.Fold) -> Col2Im.
#include <optional>

#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// The scale factors of an upsample, if the call states one per spatial dim:
// .vec's scale_factors, or .default's scales / scales_h, scales_w /
// scales_d, scales_h, scales_w (None unless the caller gave scale_factor).
std::optional<std::vector<float>> stated_scales(OpContext& cx) {
  if (cx.has("scale_factors")) {
    if (cx.arg_kind("scale_factors") != ArgKind::floats)
      cx.unsupported("upsample with dynamic scale factors");
    std::vector<float> scales;
    for (double f : cx.floats("scale_factors")) scales.push_back(static_cast<float>(f));
    return scales;
  }
  const size_t spatial = static_cast<size_t>(cx.rank_of(cx.has("input") ? "input" : "self")) - 2;
  const std::vector<std::string> names = spatial == 1 ? std::vector<std::string>{"scales"}
                                         : spatial == 2
                                             ? std::vector<std::string>{"scales_h", "scales_w"}
                                             : std::vector<std::string>{"scales_d", "scales_h", "scales_w"};
  std::vector<float> scales;
  for (const auto& n : names) {
    if (!cx.has(n)) return std::nullopt;
    scales.push_back(static_cast<float>(cx.float_arg(n)));
  }
  return scales;
}

// upsample_<mode>.vec(input, output_size?, [align_corners,] scale_factors?)
// and .default(self, output_size, [align_corners,] scales_*?). Stated scale
// factors win over the output size: ATen maps coordinates with 1/scale when
// the caller gave one (and sizes its antialias filter by it), and Resize
// does the same given scales, with ATen's output size floor(in * scale).
// Otherwise Resize to [N, C, size...]. The ONNX form is the shared pattern
// (patterns/resize.cpp).
void lower_upsample(OpContext& cx) {
  const std::string op = cx.op();
  const bool corners = cx.bool_arg("align_corners", false);
  if (corners && op.find("_aa") != std::string::npos)
    cx.unsupported(
        "interpolate with antialias=True and align_corners=True: ONNX Resize's antialias filter does "
        "not reproduce ATen's with align_corners; use align_corners=False");
  const std::string x = cx.tensor(cx.has("input") ? "input" : "self");
  if (auto scales = stated_scales(cx))
    return cx.out(0, mx::aten_onnx::emit_resize_by(cx, op, corners, x, *scales));
  if (!cx.has("output_size")) cx.unsupported("upsample without an output size or scale factors");
  cx.out(0, mx::aten_onnx::emit_resize_to(cx, op, corners, x, cx.int_list("output_size")));
}
MX_ATEN_LOWER(lower_upsample, "aten.upsample_nearest1d", "aten.upsample_nearest2d", "aten.upsample_nearest3d",
              "aten.upsample_linear1d", "aten.upsample_bilinear2d", "aten.upsample_trilinear3d",
              "aten.upsample_bicubic2d", "aten._upsample_nearest_exact1d", "aten._upsample_nearest_exact2d",
              "aten._upsample_nearest_exact3d", "aten._upsample_bilinear2d_aa",
              "aten._upsample_bicubic2d_aa");

void lower_pixel_shuffle(OpContext& cx) {
  if (cx.rank_of("self") != 4) cx.unsupported("pixel_shuffle of a tensor that is not 4-D");
  cx.out(0, cx.emit1("DepthToSpace", {cx.tensor("self")},
                     {attr("blocksize", cx.int_arg("upscale_factor")), attr("mode", std::string("CRD"))}));
}
MX_ATEN_LOWER(lower_pixel_shuffle, "aten.pixel_shuffle");

// pixel_unshuffle: ONNX SpaceToDepth orders channels block-first, ATen
// channel-first (c * r * r + i * r + j), so it is written as
// [N, C, H/r, r, W/r, r] -> permute(0, 1, 3, 5, 2, 4) -> [N, C*r*r, H/r, W/r].
void lower_pixel_unshuffle(OpContext& cx) {
  if (cx.rank_of("self") != 4) cx.unsupported("pixel_unshuffle of a tensor that is not 4-D");
  const int64_t r = cx.int_arg("downscale_factor");
  const std::string x = cx.tensor("self");
  const std::string shape = cx.shape_of(x);
  auto at = [&](int64_t k) { return cx.emit1("Slice", {shape, cx.ci64({k}), cx.ci64({k + 1})}); };
  const std::string rr = cx.ci64({r});
  const std::string h = cx.emit1("Div", {at(2), rr}), w = cx.emit1("Div", {at(3), rr});
  const std::string six = cx.emit1("Concat", {at(0), at(1), h, rr, w, rr}, {attr("axis", int64_t{0})});
  std::string y = cx.transpose(cx.emit1("Reshape", {x, six}), {0, 1, 3, 5, 2, 4});
  const std::string c = cx.emit1("Mul", {at(1), cx.ci64({r * r})});
  const std::string four = cx.emit1("Concat", {at(0), c, h, w}, {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {y, four}));
}
MX_ATEN_LOWER(lower_pixel_unshuffle, "aten.pixel_unshuffle");

// grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
// ATen's mode codes 0/1/2 = bilinear/nearest/bicubic, padding 0/1/2 =
// zeros/border/reflection. GridSample is 4-D at opset 16; a 5-D input
// (grid_sampler_3d: trilinear or nearest, ATen has no 3-D bicubic) needs
// opset 20's N-D GridSample and its mode names.
void lower_grid_sampler(OpContext& cx) {
  static const char* modes[] = {"bilinear", "nearest", "bicubic"};
  static const char* modes20[] = {"linear", "nearest", "cubic"};
  static const char* pads[] = {"zeros", "border", "reflection"};
  const int64_t rank = cx.rank_of("input");
  if (rank != 4 && rank != 5) cx.unsupported("grid_sampler of a tensor that is neither 4-D nor 5-D");
  if (rank == 5 && cx.opset < 20)
    cx.unsupported("grid_sampler of a 5-D tensor needs ONNX opset 20 (N-D GridSample)");
  const int64_t mode = cx.int_arg("interpolation_mode"), pad = cx.int_arg("padding_mode");
  if (mode < 0 || mode > 2 || pad < 0 || pad > 2) cx.unsupported("grid_sampler mode codes outside ATen's");
  if (rank == 5 && mode == 2) cx.unsupported("grid_sampler_3d with bicubic interpolation");
  const char* const* names = rank == 5 ? modes20 : modes;
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("GridSample", {cx.operand("input", dt), cx.operand("grid", dt)},
                     {attr("mode", std::string(names[mode])), attr("padding_mode", std::string(pads[pad])),
                      attr("align_corners", int64_t{cx.bool_arg("align_corners", false)})}));
}
MX_ATEN_LOWER(lower_grid_sampler, "aten.grid_sampler", "aten.grid_sampler_2d", "aten.grid_sampler_3d");

// affine_grid_generator(theta, size, align_corners) (F.affine_grid at the
// TRAINING level; core ATen writes it out) -> AffineGrid (opset 20), 2-D
// and 3-D alike; the size may hold the program's symbolic dims.
void lower_affine_grid(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("AffineGrid", {cx.operand("theta", dt), cx.int_list("size")},
                     {attr("align_corners", int64_t{cx.bool_arg("align_corners", false)})}));
}
MX_ATEN_LOWER(lower_affine_grid, "aten.affine_grid_generator");

// im2col(self, kernel_size, dilation, padding, stride) -> [N, C*kh*kw, L]:
// a convolution with groups = C and one-hot kernels, whose output channel
// c*kh*kw + i*kw + j copies input channel c at kernel offset (i, j) - ATen's
// channel order. The channel count must be static (it sizes the kernel).
void lower_im2col(OpContext& cx) {
  const Value& v = cx.value_of("self");
  if (v.shape.size() != 4) cx.unsupported("im2col of a tensor that is not 4-D");
  if (!v.shape[1].is_static) cx.unsupported("im2col with a dynamic channel count");
  if (v.dtype != onnx::TensorProto::FLOAT) cx.unsupported("im2col of a tensor that is not float32");
  const int64_t c = v.shape[1].value;
  const auto k = cx.ints("kernel_size"), d = cx.ints("dilation"), p = cx.ints("padding"),
             s = cx.ints("stride");
  if (k.size() != 2 || d.size() != 2 || p.size() != 2 || s.size() != 2)
    cx.unsupported("im2col arguments that are not pairs");
  const int64_t kk = k[0] * k[1];
  onnx::TensorProto w;
  w.set_data_type(v.dtype);
  for (int64_t dim : {c * kk, int64_t{1}, k[0], k[1]}) w.add_dims(dim);
  std::vector<float> one_hot(static_cast<size_t>(c * kk * kk), 0.f);
  for (int64_t o = 0; o < c * kk; ++o) one_hot[static_cast<size_t>(o * kk + o % kk)] = 1.f;
  for (float f : one_hot) w.add_float_data(f);
  const std::string cols =
      cx.emit1("Conv", {v.onnx, cx.constant(w)},
               {attr("kernel_shape", k), attr("dilations", d), attr("strides", s),
                attr("pads", std::vector<int64_t>{p[0], p[1], p[0], p[1]}), attr("group", c)});
  cx.out(0, cx.emit1("Reshape", {cols, cx.ci64({0, c * kk, -1})}));
}
MX_ATEN_LOWER(lower_im2col, "aten.im2col");

// col2im(self, output_size, kernel_size, dilation, padding, stride), the
// inverse (nn.Fold): ONNX Col2Im from opset 18, the same [N, C*kh*kw, L]
// layout; an unbatched [C*kh*kw, L] input gets a batch of one. Below opset
// 18 the emitter refuses Col2Im, naming the opset (the core-IR form,
// index_put, converts at any opset).
void lower_col2im(OpContext& cx) {
  const auto d = cx.ints("dilation"), p = cx.ints("padding"), s = cx.ints("stride");
  if (d.size() != 2 || p.size() != 2 || s.size() != 2) cx.unsupported("col2im arguments that are not pairs");
  const bool unbatched = cx.rank_of("self") == 2;
  std::string x = cx.tensor("self");
  if (unbatched) x = cx.unsqueeze(x, {0});
  std::string y = cx.emit1(
      "Col2Im", {x, cx.int_list("output_size"), cx.ci64(cx.ints("kernel_size"))},
      {attr("dilations", d), attr("strides", s), attr("pads", std::vector<int64_t>{p[0], p[1], p[0], p[1]})});
  cx.out(0, unbatched ? cx.squeeze(y, {0}) : y);
}
MX_ATEN_LOWER(lower_col2im, "aten.col2im");

}  // namespace
}  // namespace mx::aten_onnx
