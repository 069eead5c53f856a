// Which ONNX opsets an export may target, and the IR version each needs.
//
// The range is 14 .. the newest opset of the ONNX library the SDK is built
// with (1.23.2: 28). The default, 20, is what torch.onnx.export (dynamo)
// writes: it has every op of 18 (axes as inputs, Col2Im, BitwiseXor,
// ScatterElements max/min) and Gelu as one op; ONNX Runtime (1.17+),
// TensorRT 10 and OpenVINO accept it (docs/opsets.md: who else does).
#pragma once

namespace mx::aten_onnx {

constexpr int kMinOpset = 14;
constexpr int kDefaultOpset = 20;

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
