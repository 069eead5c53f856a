// The op lists are PyTorch's CPU autocast lists (aten/src/ATen/
// autocast_mode.cpp: lower_precision_fp and fp32). Which ops a region
// retargeted is also in the program: the body's tensor metadata records
// each output's dtype as autocast made it, so a node is only rewritten
// when its output has the dtype the list says (a CUDA region in a CPU
// program, or a list that moved between PyTorch versions, is left as
// torch recorded it).
#include "autocast.hpp"

#include <set>

#include "json_integers.hpp"

namespace mx::torch_export {
namespace {

const std::set<std::string>& lower_precision_ops() {
  static const std::set<std::string> ops = {"conv1d",
                                            "conv2d",
                                            "conv3d",
                                            "bmm",
                                            "mm",
                                            "linalg_vecdot",
                                            "baddbmm",
                                            "addmm",
                                            "addbmm",
                                            "linear",
                                            "_convolution",
                                            "matmul",
                                            "conv_tbc",
                                            "mkldnn_rnn_layer",
                                            "conv_transpose1d",
                                            "conv_transpose2d",
                                            "conv_transpose3d",
                                            "prelu",
                                            "scaled_dot_product_attention",
                                            "_native_multi_head_attention",
                                            "_addmm_activation"};
  return ops;
}

const std::set<std::string>& float32_ops() {
  static const std::set<std::string> ops = {"avg_pool3d",
                                            "binary_cross_entropy",
                                            "grid_sampler",
                                            "polar",
                                            "prod",
                                            "quantile",
                                            "nanquantile",
                                            "stft",
                                            "cdist",
                                            "trace",
                                            "view_as_complex",
                                            "cholesky",
                                            "cholesky_inverse",
                                            "cholesky_solve",
                                            "inverse",
                                            "lu_solve",
                                            "orgqr",
                                            "ormqr",
                                            "pinverse",
                                            "max_pool3d",
                                            "max_unpool2d",
                                            "max_unpool3d",
                                            "adaptive_avg_pool3d",
                                            "reflection_pad1d",
                                            "reflection_pad2d",
                                            "replication_pad1d",
                                            "replication_pad2d",
                                            "replication_pad3d",
                                            "mse_loss",
                                            "cosine_embedding_loss",
                                            "nll_loss",
                                            "nll_loss2d",
                                            "hinge_embedding_loss",
                                            "poisson_nll_loss",
                                            "smooth_l1_loss",
                                            "cross_entropy_loss",
                                            "l1_loss",
                                            "huber_loss",
                                            "margin_ranking_loss",
                                            "soft_margin_loss",
                                            "triplet_margin_loss",
                                            "multi_margin_loss",
                                            "ctc_loss",
                                            "kl_div",
                                            "multilabel_margin_loss",
                                            "binary_cross_entropy_with_logits",
                                            "fft_fft",
                                            "fft_ifft",
                                            "fft_fft2",
                                            "fft_ifft2",
                                            "fft_fftn",
                                            "fft_ifftn",
                                            "fft_rfft",
                                            "fft_irfft",
                                            "fft_rfft2",
                                            "fft_irfft2",
                                            "fft_rfftn",
                                            "fft_irfftn",
                                            "fft_hfft",
                                            "fft_ihfft",
                                            "linalg_cond",
                                            "linalg_matrix_rank",
                                            "linalg_solve",
                                            "linalg_cholesky",
                                            "linalg_svdvals",
                                            "linalg_eigvals",
                                            "linalg_eigvalsh",
                                            "linalg_inv",
                                            "linalg_householder_product",
                                            "linalg_tensorinv",
                                            "linalg_tensorsolve",
                                            "geqrf",
                                            "_lu_with_info",
                                            "qr",
                                            "svd",
                                            "triangular_solve",
                                            "fractional_max_pool2d",
                                            "fractional_max_pool3d",
                                            "adaptive_max_pool3d",
                                            "linalg_qr",
                                            "linalg_cholesky_ex",
                                            "linalg_svd",
                                            "linalg_eig",
                                            "linalg_eigh",
                                            "linalg_lstsq",
                                            "linalg_inv_ex"};
  return ops;
}

// Autocast casts float32 / float16 / bfloat16 tensors, never float64.
bool castable(int32_t dtype) {
  return dtype == onnx::TensorProto::FLOAT || dtype == onnx::TensorProto::FLOAT16 ||
         dtype == onnx::TensorProto::BFLOAT16;
}

// "aten.linear.default" -> "linear"; "" for other namespaces.
std::string aten_op(const std::string& target) {
  std::string t = target.rfind("torch.ops.", 0) == 0 ? target.substr(10) : target;
  if (t.rfind("aten.", 0) != 0) return "";
  t = t.substr(5);
  return t.substr(0, t.find('.'));
}

// The dtype autocast runs `node` in, 0 = not retargeted.
int32_t retargeted_dtype(const LowerCtx& cx, const json& node) {
  const std::string op = aten_op(node.at("target").get<std::string>());
  int32_t want = 0;
  if (lower_precision_ops().count(op)) want = cx.autocast_dtype;
  if (float32_ops().count(op)) want = onnx::TensorProto::FLOAT;
  if (want == 0) return 0;
  const json& outs = node.at("outputs");
  if (outs.empty() || !outs[0].contains("as_tensor")) return 0;
  const auto it = cx.tensors->find(outs[0].at("as_tensor").at("name").get<std::string>());
  return it != cx.tensors->end() && it->second.dtype == want ? want : 0;
}

}  // namespace

int32_t autocast_region_dtype(const json& node, int32_t outer) {
  const json& in = node.at("inputs");  // (device_type, dtype, enabled, cache_enabled, body, ...)
  if (in.size() < 3) return outer;
  const json& enabled = in[2].at("arg");
  if (enabled.contains("as_bool") && !enabled.at("as_bool").get<bool>()) return 0;
  const json& dtype = in[1].at("arg");
  if (!dtype.contains("as_scalar_type")) return outer;
  return onnx_dtype_of_torch(as_int64(dtype.at("as_scalar_type")));
}

AutocastInputs::AutocastInputs(LowerCtx& cx, const json& node) : cx_(cx) {
  if (cx.autocast_dtype == 0) return;
  const int32_t want = retargeted_dtype(cx, node);
  if (want == 0) return;
  for (const auto& in : node.at("inputs")) {
    const json& a = in.at("arg");
    if (!a.contains("as_tensor")) continue;
    const std::string name = a.at("as_tensor").at("name").get<std::string>();
    auto it = cx.values.find(name);
    if (it == cx.values.end() || !castable(it->second.dtype) || it->second.dtype == want) continue;
    saved_.emplace_back(name, it->second);
    Value cast = it->second;
    cast.onnx = cx.cast(cast.onnx, cast.dtype, want);
    cast.dtype = want;
    casts_.push_back(cast.onnx);
    it->second = cast;
  }
}

AutocastInputs::~AutocastInputs() {
  // An in-place op may have rebound its input: that binding stays.
  for (size_t k = 0; k < saved_.size(); ++k) {
    auto it = cx_.values.find(saved_[k].first);
    if (it != cx_.values.end() && it->second.onnx == casts_[k]) it->second = saved_[k].second;
  }
}

}  // namespace mx::torch_export
