// torchvision's detection ops, which torch.export keeps as custom ops of
// their library (torchvision registers no decomposition):
// nms -> NonMaxSuppression, roi_align -> RoiAlign.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

// nms(dets [N, 4] x1y1x2y2, scores [N], iou_threshold) -> the kept indices
// by decreasing score. NonMaxSuppression takes one batch and one class
// ([1, N, 4], [1, 1, N]), boxes as any diagonal corner pair (IoU is the
// same with x and y swapped), suppresses above the threshold as torchvision
// does, keeps at most N; its [K, 3] rows end with the box index.
void lower_nms(OpContext& cx) {
  const int32_t dt = cx.dtype_of("dets");
  if (dt != TensorProto::FLOAT) cx.unsupported("torchvision nms of boxes that are not float32");
  const std::string boxes = cx.unsqueeze(cx.tensor("dets"), {0});
  const std::string scores = cx.unsqueeze(cx.operand("scores", dt), {0, 1});
  const std::string n = cx.dim_size(cx.tensor("dets"), 0);  // 0-d int64
  const std::string iou = cx.cscalar(cx.float_arg("iou_threshold"), TensorProto::FLOAT);
  const std::string kept = cx.emit1("NonMaxSuppression", {boxes, scores, n, iou});
  cx.out(0, cx.squeeze(cx.emit1("Slice", {kept, cx.ci64({2}), cx.ci64({3}), cx.ci64({1})}), {1}));
}
MX_ATEN_LOWER(lower_nms, "torchvision.nms.default");

// roi_align(input, rois [K, 5] (batch index, x1, y1, x2, y2), spatial_scale,
// pooled_height, pooled_width, sampling_ratio, aligned): RoiAlign in avg
// mode; aligned=True is the half_pixel transform (opset 16), False
// output_half_pixel; an adaptive sampling ratio is -1 in torchvision, 0 in ONNX.
void lower_roi_align(OpContext& cx) {
  const int32_t dt = cx.dtype_of("input");
  if (dt != TensorProto::FLOAT) cx.unsupported("torchvision roi_align of a tensor that is not float32");
  if (cx.rank_of("input") != 4) cx.unsupported("torchvision roi_align of a tensor that is not 4-D");
  if (cx.opset < 16) cx.unsupported("torchvision roi_align needs ONNX opset 16 (RoiAlign's half_pixel)");
  const std::string rois = cx.operand("rois", dt);
  const std::string boxes = cx.emit1("Slice", {rois, cx.ci64({1}), cx.ci64({5}), cx.ci64({1})});
  const std::string batch =
      cx.cast(cx.squeeze(cx.emit1("Slice", {rois, cx.ci64({0}), cx.ci64({1}), cx.ci64({1})}), {1}), dt,
              TensorProto::INT64);
  const int64_t ratio = cx.int_arg("sampling_ratio");
  const bool aligned = cx.bool_arg("aligned", false);
  cx.out(0, cx.emit1("RoiAlign", {cx.tensor("input"), boxes, batch},
                     {attr("mode", std::string("avg")), attr("output_height", cx.int_arg("pooled_height")),
                      attr("output_width", cx.int_arg("pooled_width")),
                      attr("sampling_ratio", ratio < 0 ? 0 : ratio),
                      attr("spatial_scale", static_cast<float>(cx.float_arg("spatial_scale"))),
                      attr("coordinate_transformation_mode",
                           std::string(aligned ? "half_pixel" : "output_half_pixel"))}));
}
MX_ATEN_LOWER(lower_roi_align, "torchvision.roi_align.default");

}  // namespace
}  // namespace mx::aten_onnx
