// The upsample_* family (F.interpolate) as ONNX Resize (opset 13+): ATen's
// nearest is floor(out_index * in / out) - Resize's asymmetric mapping with
// floor rounding; nearest-exact is half_pixel with round_prefer_ceil;
// linear/bilinear/trilinear/bicubic use pytorch_half_pixel, or
// align_corners, and bicubic ATen's a = -0.75.
// The antialiased forms (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa)
// are Resize-18's antialias filter: ATen's kernel drops the taps outside the
// image and renormalises (exclude_outside = 1) and its antialiased bicubic
// uses a = -0.5, not -0.75. With those two, ONNX Runtime agrees with eager
// PyTorch to 1e-5 when shrinking and when growing; with align_corners it
// does not (ATen's filter support ignores it), so that is refused.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

bool is_antialiased(const std::string& aten_op) {
  return aten_op.find("_aa") != std::string::npos;
}

std::vector<onnx::AttributeProto> resize_attributes(const std::string& aten_op, bool align_corners) {
  std::string mode = "linear", coords = align_corners ? "align_corners" : "pytorch_half_pixel";
  std::vector<onnx::AttributeProto> a;
  if (aten_op.find("nearest_exact") != std::string::npos) {
    mode = "nearest";
    coords = "half_pixel";
    a.push_back(attr("nearest_mode", std::string("round_prefer_ceil")));
  } else if (aten_op.find("nearest") != std::string::npos) {
    mode = "nearest";
    coords = "asymmetric";
    a.push_back(attr("nearest_mode", std::string("floor")));
  } else if (aten_op.find("bicubic") != std::string::npos) {
    mode = "cubic";
    a.push_back(attr("cubic_coeff_a", is_antialiased(aten_op) ? -0.5f : -0.75f));
  }
  if (is_antialiased(aten_op)) {
    a.push_back(attr("antialias", int64_t{1}));
    a.push_back(attr("exclude_outside", int64_t{1}));
  }
  a.push_back(attr("mode", mode));
  a.push_back(attr("coordinate_transformation_mode", coords));
  return a;
}

}  // namespace

std::string emit_resize_to(OnnxEmitter& e, const std::string& aten_op, bool align_corners,
                           const std::string& x, const std::string& spatial_sizes) {
  const std::string head = e.emit1("Slice", {e.shape_of(x), e.ci64({0}), e.ci64({2})});
  const std::string sizes = e.emit1("Concat", {head, spatial_sizes}, {attr("axis", int64_t{0})});
  return e.emit1("Resize", {x, "", "", sizes}, resize_attributes(aten_op, align_corners));
}

std::string emit_resize_by(OnnxEmitter& e, const std::string& aten_op, bool align_corners,
                           const std::string& x, const std::vector<float>& spatial_scales) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(static_cast<int64_t>(spatial_scales.size() + 2));
  t.add_float_data(1.f);
  t.add_float_data(1.f);
  for (float f : spatial_scales) t.add_float_data(f);
  return e.emit1("Resize", {x, "", e.constant(t)}, resize_attributes(aten_op, align_corners));
}

}  // namespace mx::aten_onnx
