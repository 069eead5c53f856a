// Which ONNX opsets an export may target, and the IR version each needs.
//
// The range is 14 .. the newest opset of the ONNX library the SDK is built
// with (1.23.2: 28). The default, 18, is the lowest opset where every
// reduction takes its axes as an input and where Col2Im, BitwiseXor and
// ScatterElements max/min exist; ONNX Runtime,
// TensorRT 10, OpenVINO and DirectML all accept it (docs/opsets.md).
#pragma once

namespace mx::aten_onnx {

constexpr int kMinOpset = 14;
constexpr int kDefaultOpset = 18;

// The newest default-domain opset the linked ONNX library defines.
int max_opset();

// The oldest IR version whose release defined `opset` (ONNX's
// helper.VERSION_TABLE), and never below 8: files of opsets 14-17 keep the
// IR 8 they have always had.
int ir_version_for(int opset);

// Throws mx::aten_onnx::Error (MX_ERR_INVALID_ARGUMENT) naming the range
// when `opset` is outside [kMinOpset, max_opset()].
void require_supported_opset(int opset);

}  // namespace mx::aten_onnx
