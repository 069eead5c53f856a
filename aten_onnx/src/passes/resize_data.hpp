// ONNX Resize of a constant, evaluated at export: a weight interpolated to
// a static size (YOLOS's position embeddings, bicubic to the patch grid;
// BEiT's relative position bias table, bilinear to the window), which the
// anchor computes at export and fold_weight_data folds the same way.
// Modes nearest (every nearest_mode), linear and cubic (cubic_coeff_a,
// exclude_outside); coordinate transformations half_pixel,
// pytorch_half_pixel, align_corners, asymmetric, half_pixel_symmetric; the
// output given by `sizes` or `scales`, with the `axes` and
// keep_aspect_ratio_policy attributes; float32, float64, float16 and
// bfloat16 data. Computed in double and rounded once to the element type,
// which is within an ulp or so of ONNX Runtime's float kernel, not its
// bits (resize_data.cpp says why that is the right value to write).
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "constant_data.hpp"

namespace mx::aten_onnx::passes {

// The value of Resize node `n`'s output for the constant inputs `in` (X,
// roi, scales, sizes; nullptr for an omitted one), or nothing when the
// node is outside what is evaluated: antialias, tf_crop_and_resize (and
// the deprecated tf_half_pixel_for_nn), another element type, the opset-10
// form (no sizes input), a result with more than `max_elements` elements
// or a non-finite element, or a case where ONNX Runtime and the ONNX
// reference disagree or float32 and double pick another output size or
// nearest pixel (resize_data.cpp lists them).
std::optional<ConstantData> eval_resize(const onnx::NodeProto& n, const std::vector<const ConstantData*>& in,
                                        int64_t max_elements);

}  // namespace mx::aten_onnx::passes
