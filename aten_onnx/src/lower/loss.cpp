// Losses as torch.export keeps them at the training level (core ATen
// decomposes them): mse_loss, l1_loss, soft_margin_loss, huber_loss, smooth_l1_loss, kl_div,
// binary_cross_entropy(_with_logits), nll_loss / nll_loss2d / nll_loss_nd,
// cross_entropy_loss (class indices or probabilities, label smoothing),
// margin_ranking, hinge_embedding, poisson_nll, cosine_embedding,
// triplet_margin, multi_margin and multilabel_margin losses.
// `reduction` is ATen's enum: 0 none, 1 mean, 2 sum.
#include "mx/onnx_proto.hpp"

#include <algorithm>
#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

int64_t reduction_of(OpContext& cx) {
  const int64_t r = cx.int_arg("reduction", kMean);
  if (r != kNone && r != kMean && r != kSum) cx.unsupported("reduction " + std::to_string(r));
  return r;
}

// The element-wise loss `l` reduced as `reduction` says, over every dim.
std::string reduced(OpContext& cx, const std::string& l, int64_t reduction) {
  if (reduction == kNone) return l;
  return emit_reduce(cx, reduction == kMean ? "ReduceMean" : "ReduceSum", l, {}, false);
}

// mse_loss(self, target, reduction=1): (x - y)^2.
void lower_mse_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string d = cx.emit1("Sub", {cx.operand("self", dt), cx.operand("target", dt)});
  cx.out(0, reduced(cx, cx.emit1("Mul", {d, d}), reduction_of(cx)));
}
MX_ATEN_LOWER(lower_mse_loss, "aten.mse_loss");

// l1_loss(self, target, reduction=1): |x - y|.
void lower_l1_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string d = cx.emit1("Sub", {cx.operand("self", dt), cx.operand("target", dt)});
  cx.out(0, reduced(cx, cx.emit1("Abs", {d}), reduction_of(cx)));
}
MX_ATEN_LOWER(lower_l1_loss, "aten.l1_loss");

// soft_margin_loss(self, target, reduction=1): log(1 + exp(-y x)).
void lower_soft_margin_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string m =
      cx.emit1("Neg", {cx.emit1("Mul", {cx.operand("self", dt), cx.operand("target", dt)})});
  cx.out(0, reduced(cx, cx.emit1("Softplus", {m}), reduction_of(cx)));
}
MX_ATEN_LOWER(lower_soft_margin_loss, "aten.soft_margin_loss");

// huber_loss(self, target, reduction=1, delta=1.0): 0.5 d^2 where
// d = |x - y| < delta, else delta (d - 0.5 delta); smooth_l1_loss(self,
// target, reduction=1, beta=1.0): 0.5 d^2 / beta where d < beta, else
// d - 0.5 beta (plain |x - y| when beta is 0).
void lower_huber_smooth_l1(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const bool huber = cx.op() == "huber_loss";
  const double t = huber ? cx.float_arg("delta", 1.0) : cx.float_arg("beta", 1.0);
  const std::string d =
      cx.emit1("Abs", {cx.emit1("Sub", {cx.operand("self", dt), cx.operand("target", dt)})});
  std::string l = d;
  if (t > 0) {
    const std::string square =
        cx.emit1("Mul", {cx.emit1("Mul", {d, d}), cx.cscalar(huber ? 0.5 : 0.5 / t, dt)});
    std::string linear = cx.emit1("Sub", {d, cx.cscalar(0.5 * t, dt)});
    if (huber) linear = cx.emit1("Mul", {linear, cx.cscalar(t, dt)});
    l = cx.emit1("Where", {cx.emit1("Less", {d, cx.cscalar(t, dt)}), square, linear});
  }
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_huber_smooth_l1, "aten.huber_loss", "aten.smooth_l1_loss");

// kl_div(self, target, reduction=1, log_target=False): target * (log
// target - self), 0 where target is 0 (xlogy); exp(target) * (target -
// self) with log_target. ("batchmean" is a sum divided in the program.)
void lower_kl_div(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), t = cx.operand("target", dt);
  std::string l;
  if (cx.bool_arg("log_target", false)) {
    l = cx.emit1("Mul", {cx.emit1("Exp", {t}), cx.emit1("Sub", {t, x})});
  } else {
    const std::string zero = cx.cscalar(0, dt);
    const std::string xlogy =
        cx.emit1("Where", {cx.emit1("Equal", {t, zero}), zero, cx.emit1("Mul", {t, cx.emit1("Log", {t})})});
    l = cx.emit1("Sub", {xlogy, cx.emit1("Mul", {t, x})});
  }
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_kl_div, "aten.kl_div");

// binary_cross_entropy_with_logits(self, target, weight=None,
// pos_weight=None, reduction=1), in ATen's stable form:
// (1 - t) x + (1 + (pw - 1) t) (log1p(exp(-|x|)) + max(-x, 0)), times weight.
void lower_bce_with_logits(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), t = cx.operand("target", dt), one = cx.cscalar(1, dt);
  const std::string soft = cx.emit1(
      "Add",
      {cx.emit1("Log", {cx.emit1("Add", {one, cx.emit1("Exp", {cx.emit1("Neg", {cx.emit1("Abs", {x})})})})}),
       cx.emit1("Relu", {cx.emit1("Neg", {x})})});
  std::string weighted = soft;
  if (cx.has("pos_weight")) {
    const std::string pw = cx.operand("pos_weight", dt);
    weighted =
        cx.emit1("Mul", {cx.emit1("Add", {one, cx.emit1("Mul", {cx.emit1("Sub", {pw, one}), t})}), soft});
  }
  std::string l = cx.emit1("Add", {cx.emit1("Mul", {cx.emit1("Sub", {one, t}), x}), weighted});
  if (cx.has("weight")) l = cx.emit1("Mul", {l, cx.operand("weight", dt)});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_bce_with_logits, "aten.binary_cross_entropy_with_logits");

// binary_cross_entropy(self, target, weight=None, reduction=1):
// -(t log x + (1 - t) log(1 - x)), each log clamped at -100 as ATen does.
void lower_bce(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), t = cx.operand("target", dt), one = cx.cscalar(1, dt);
  const std::string floor = cx.cscalar(-100, dt);
  auto clamped_log = [&](const std::string& v) { return cx.emit1("Max", {cx.emit1("Log", {v}), floor}); };
  const std::string pos = cx.emit1("Mul", {t, clamped_log(x)});
  const std::string neg =
      cx.emit1("Mul", {cx.emit1("Sub", {one, t}), clamped_log(cx.emit1("Sub", {one, x}))});
  std::string l = cx.emit1("Neg", {cx.emit1("Add", {pos, neg})});
  if (cx.has("weight")) l = cx.emit1("Mul", {l, cx.operand("weight", dt)});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_bce, "aten.binary_cross_entropy");

// The class dim is 1, or 0 for an unbatched input ([C] with a 0-d target):
// ONNX's NegativeLogLikelihoodLoss wants [N, C, ...], so an unbatched
// input gets a batch of one.
struct Batched {
  std::string input, target;
  bool unbatched = false;
};

Batched batched(OpContext& cx, const std::string& input, int64_t rank, const std::string& target) {
  if (rank != 1) return {input, target, false};
  return {cx.unsqueeze(input, {0}), cx.unsqueeze(target, {0}), true};
}

std::string class_target(OpContext& cx) {
  const Value& t = cx.value_of("target");
  return cx.cast(t.onnx, t.dtype, onnx::TensorProto::INT64);
}

// NegativeLogLikelihoodLoss of log-probabilities `logp` (rank `rank`):
// weight, ignore_index and reduction as ATen's nll_loss.
std::string nll(OpContext& cx, const std::string& logp, int64_t rank, int32_t dt, int64_t reduction) {
  const Batched b = batched(cx, logp, rank, class_target(cx));
  std::vector<std::string> in{b.input, b.target};
  if (cx.has("weight")) in.push_back(cx.operand("weight", dt));
  static const char* names[] = {"none", "mean", "sum"};
  std::string l = cx.emit1("NegativeLogLikelihoodLoss", in,
                           {attr("reduction", std::string(names[reduction])),
                            attr("ignore_index", cx.int_arg("ignore_index", -100))});
  if (b.unbatched && reduction == kNone) l = cx.squeeze(l, {0});
  return l;
}

// nll_loss(self, target, weight=None, reduction=1, ignore_index=-100), and
// nll_loss2d / nll_loss_nd.
void lower_nll_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, nll(cx, cx.operand("self", dt), cx.rank_of("self"), dt, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_nll_loss, "aten.nll_loss", "aten.nll_loss2d", "aten.nll_loss_nd");

// cross_entropy_loss(self, target, weight=None, reduction=1,
// ignore_index=-100, label_smoothing=0.0): log_softmax over the class dim,
// then the NLL of class-index targets (smoothed as ATen's
// cross_entropy_loss_label_smoothing), or -sum(w t logp) over the classes
// for probability targets (smoothed: t (1 - e) + e / C).
void lower_cross_entropy(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self"), reduction = reduction_of(cx);
  const int64_t c_axis = r == 1 ? 0 : 1;
  const std::string logp = cx.emit1("LogSoftmax", {cx.operand("self", dt)}, {attr("axis", c_axis)});
  const double eps = cx.float_arg("label_smoothing", 0.0);
  const std::string n_classes = cx.cast(cx.dim_size(logp, c_axis), onnx::TensorProto::INT64, dt);
  // The class weights shaped to broadcast against logp ([C, 1, ...]).
  auto class_weights = [&]() {
    std::vector<int64_t> tail;
    for (int64_t d = c_axis + 1; d < r; ++d) tail.push_back(d - c_axis);
    const std::string w = cx.operand("weight", dt);
    return tail.empty() ? w : cx.unsqueeze(w, tail);
  };
  const Value& target = cx.value_of("target");
  if (target.dtype == onnx::TensorProto::FLOAT || target.dtype == onnx::TensorProto::DOUBLE ||
      target.dtype == onnx::TensorProto::FLOAT16 || target.dtype == onnx::TensorProto::BFLOAT16) {
    std::string t = cx.operand("target", dt);
    if (eps > 0)
      t = cx.emit1("Add", {cx.emit1("Mul", {t, cx.cscalar(1 - eps, dt)}),
                           cx.emit1("Div", {cx.cscalar(eps, dt), n_classes})});
    std::string prod = cx.emit1("Mul", {t, logp});
    if (cx.has("weight")) prod = cx.emit1("Mul", {prod, class_weights()});
    std::string l = cx.emit1("Neg", {emit_reduce(cx, "ReduceSum", prod, {c_axis}, false)});
    // mean divides by the batch elements (every dim but the classes)
    return cx.out(0, reduced(cx, l, reduction));
  }
  const std::string nll_l = nll(cx, logp, r, dt, reduction);
  if (eps <= 0) return cx.out(0, nll_l);
  // The smoothing term: -sum over classes of (w) logp, 0 at ignored targets.
  std::string wl = logp;
  if (cx.has("weight")) wl = cx.emit1("Mul", {wl, class_weights()});
  const std::string ti = class_target(cx);
  const std::string ignored = cx.emit1("Equal", {ti, cx.ci64s(cx.int_arg("ignore_index", -100))});
  const std::string zero = cx.cscalar(0, dt);
  std::string smooth = cx.emit1(
      "Where", {ignored, zero, cx.emit1("Neg", {emit_reduce(cx, "ReduceSum", wl, {c_axis}, false)})});
  if (reduction == kSum) {
    smooth = emit_reduce(cx, "ReduceSum", smooth, {}, false);
  } else if (reduction == kMean) {
    // normalised as nll_loss is: by the weights of the targets kept
    std::string kept;
    if (cx.has("weight")) {
      const std::string safe = cx.emit1("Where", {ignored, cx.ci64s(0), ti});
      kept = cx.emit1(
          "Where",
          {ignored, zero, cx.emit1("Gather", {cx.operand("weight", dt), safe}, {attr("axis", int64_t{0})})});
    } else {
      kept = cx.cast(cx.emit1("Not", {ignored}), onnx::TensorProto::BOOL, dt);
    }
    smooth = cx.emit1("Div", {emit_reduce(cx, "ReduceSum", smooth, {}, false),
                              emit_reduce(cx, "ReduceSum", kept, {}, false)});
  }
  const std::string scaled_smooth =
      cx.emit1("Mul", {smooth, cx.emit1("Div", {cx.cscalar(eps, dt), n_classes})});
  cx.out(0, cx.emit1("Add", {cx.emit1("Mul", {nll_l, cx.cscalar(1 - eps, dt)}), scaled_smooth}));
}
MX_ATEN_LOWER(lower_cross_entropy, "aten.cross_entropy_loss");

// margin_ranking_loss(input1, input2, target, margin=0, reduction=1):
// max(0, -y (x1 - x2) + margin).
void lower_margin_ranking_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string d = cx.emit1("Sub", {cx.operand("input1", dt), cx.operand("input2", dt)});
  const std::string m = cx.emit1(
      "Sub", {cx.cscalar(cx.float_arg("margin", 0.0), dt), cx.emit1("Mul", {cx.operand("target", dt), d})});
  cx.out(0, reduced(cx, cx.emit1("Relu", {m}), reduction_of(cx)));
}
MX_ATEN_LOWER(lower_margin_ranking_loss, "aten.margin_ranking_loss");

// hinge_embedding_loss(self, target, margin=1.0, reduction=1): x where the
// target is not -1, plus max(0, margin - x) where it is not 1 (ATen's
// form, which adds both for a target that is neither).
void lower_hinge_embedding_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("self", dt), t = cx.operand("target", dt), zero = cx.cscalar(0, dt);
  const std::string clamp =
      cx.emit1("Relu", {cx.emit1("Sub", {cx.cscalar(cx.float_arg("margin", 1.0), dt), x})});
  const std::string not_one = cx.emit1("Not", {cx.emit1("Equal", {t, cx.cscalar(1, dt)})});
  const std::string not_minus_one = cx.emit1("Not", {cx.emit1("Equal", {t, cx.cscalar(-1, dt)})});
  const std::string l = cx.emit1(
      "Add", {cx.emit1("Where", {not_one, clamp, zero}), cx.emit1("Where", {not_minus_one, x, zero})});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_hinge_embedding_loss, "aten.hinge_embedding_loss");

// poisson_nll_loss(input, target, log_input, full, eps, reduction):
// exp(x) - t x (log_input) or x - t log(x + eps); `full` adds Stirling's
// t log t - t + log(2 pi t) / 2 where t > 1.
void lower_poisson_nll_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.operand("input", dt), t = cx.operand("target", dt);
  std::string l =
      cx.bool_arg("log_input", true)
          ? cx.emit1("Sub", {cx.emit1("Exp", {x}), cx.emit1("Mul", {t, x})})
          : cx.emit1(
                "Sub",
                {x,
                 cx.emit1("Mul",
                          {t, cx.emit1("Log",
                                       {cx.emit1("Add", {x, cx.cscalar(cx.float_arg("eps", 1e-8), dt)})})})});
  if (cx.bool_arg("full", false)) {
    const std::string stirling = cx.emit1(
        "Add", {cx.emit1("Sub", {cx.emit1("Mul", {t, cx.emit1("Log", {t})}), t}),
                cx.emit1("Mul", {cx.cscalar(0.5, dt),
                                 cx.emit1("Log", {cx.emit1("Mul", {t, cx.cscalar(2 * M_PI, dt)})})})});
    l = cx.emit1(
        "Add",
        {l, cx.emit1("Where", {cx.emit1("Greater", {t, cx.cscalar(1, dt)}), stirling, cx.cscalar(0, dt)})});
  }
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_poisson_nll_loss, "aten.poisson_nll_loss");

// cosine_embedding_loss(input1, input2, target, margin=0, reduction=1),
// as ATen: cos = <x1, x2> / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12)) over the
// last dim; 1 - cos where y = 1, max(0, cos - margin) where y = -1.
void lower_cosine_embedding_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string a = cx.operand("input1", dt), b = cx.operand("input2", dt), t = cx.operand("target", dt);
  const int64_t last = std::max<int64_t>(cx.rank_of("input1"), 1) - 1;
  auto sum = [&](const std::string& v) { return emit_reduce(cx, "ReduceSum", v, {last}, false); };
  const std::string eps = cx.cscalar(1e-12, dt), zero = cx.cscalar(0, dt);
  const std::string denom =
      cx.emit1("Sqrt", {cx.emit1("Mul", {cx.emit1("Add", {sum(cx.emit1("Mul", {a, a})), eps}),
                                         cx.emit1("Add", {sum(cx.emit1("Mul", {b, b})), eps})})});
  const std::string cos = cx.emit1("Div", {sum(cx.emit1("Mul", {a, b})), denom});
  const std::string pos = cx.emit1("Sub", {cx.cscalar(1, dt), cos});
  const std::string neg =
      cx.emit1("Relu", {cx.emit1("Sub", {cos, cx.cscalar(cx.float_arg("margin", 0.0), dt)})});
  const std::string l =
      cx.emit1("Add", {cx.emit1("Where", {cx.emit1("Equal", {t, cx.cscalar(1, dt)}), pos, zero}),
                       cx.emit1("Where", {cx.emit1("Equal", {t, cx.cscalar(-1, dt)}), neg, zero})});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_cosine_embedding_loss, "aten.cosine_embedding_loss");

// || a - b + eps ||_p over the last dim (pairwise_distance's form).
std::string pairwise(OpContext& cx, const std::string& a, const std::string& b, double p, double eps,
                     int32_t dt) {
  const std::string d = cx.emit1("Abs", {cx.emit1("Add", {cx.emit1("Sub", {a, b}), cx.cscalar(eps, dt)})});
  const std::vector<int64_t> last{-1};
  if (p == 1) return emit_reduce(cx, "ReduceSum", d, last, false);
  if (p == 2) return cx.emit1("Sqrt", {emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {d, d}), last, false)});
  if (std::isinf(p)) return emit_reduce(cx, p > 0 ? "ReduceMax" : "ReduceMin", d, last, false);
  const std::string s = emit_reduce(cx, "ReduceSum", cx.emit1("Pow", {d, cx.cscalar(p, dt)}), last, false);
  return cx.emit1("Pow", {s, cx.cscalar(1.0 / p, dt)});
}

// triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2,
// eps=1e-6, swap=False, reduction=1): max(0, margin + d(a, p) - d(a, n)),
// d(a, n) the smaller of it and d(p, n) with swap.
void lower_triplet_margin_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string a = cx.operand("anchor", dt), pos = cx.operand("positive", dt),
                    neg = cx.operand("negative", dt);
  const double p = cx.float_arg("p", 2.0), eps = cx.float_arg("eps", 1e-6);
  const std::string d_pos = pairwise(cx, a, pos, p, eps, dt);
  std::string d_neg = pairwise(cx, a, neg, p, eps, dt);
  if (cx.bool_arg("swap", false)) d_neg = cx.emit1("Min", {d_neg, pairwise(cx, pos, neg, p, eps, dt)});
  const std::string l = cx.emit1(
      "Relu",
      {cx.emit1("Sub", {cx.emit1("Add", {cx.cscalar(cx.float_arg("margin", 1.0), dt), d_pos}), d_neg})});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_triplet_margin_loss, "aten.triplet_margin_loss");

// multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=1):
// per sample, the sum over classes j != y of max(0, margin - x_y + x_j)^p
// (times weight[y]), divided by the class count.
void lower_multi_margin_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self");
  const int64_t p = cx.int_arg("p", 1);
  if (p != 1 && p != 2) cx.unsupported("multi_margin_loss with p other than 1 or 2");
  std::string x = cx.operand("self", dt), t = class_target(cx);
  if (r == 1) x = cx.unsqueeze(x, {0}), t = cx.unsqueeze(t, {0});
  const std::string ty = cx.unsqueeze(t, {1});
  const std::string xy = cx.emit1("GatherElements", {x, ty}, {attr("axis", int64_t{1})});
  std::string z = cx.emit1(
      "Relu", {cx.emit1("Add", {cx.emit1("Sub", {cx.cscalar(cx.float_arg("margin", 1.0), dt), xy}), x})});
  if (p == 2) z = cx.emit1("Mul", {z, z});
  if (cx.has("weight"))
    z = cx.emit1(
        "Mul", {z, cx.unsqueeze(cx.emit1("Gather", {cx.operand("weight", dt), t}, {attr("axis", int64_t{0})}),
                                {1})});
  const std::string n_classes = cx.dim_size(x, 1);
  const std::string classes = cx.emit1("Range", {cx.ci64s(0), n_classes, cx.ci64s(1)});
  z = cx.emit1("Where", {cx.emit1("Equal", {classes, ty}), cx.cscalar(0, dt), z});
  std::string l = cx.emit1(
      "Div", {emit_reduce(cx, "ReduceSum", z, {1}, false), cx.cast(n_classes, onnx::TensorProto::INT64, dt)});
  if (r == 1) l = cx.squeeze(l, {0});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
}
MX_ATEN_LOWER(lower_multi_margin_loss, "aten.multi_margin_loss");

// multilabel_margin_loss(self, target, reduction=1) and core ATen's
// multilabel_margin_loss_forward (-> output, is_target): a sample's
// targets are target's entries up to its first -1; per sample, the sum over
// those entries j and the classes i that are not targets of
// max(0, 1 - x_j + x_i), divided by the class count.
void lower_multilabel_margin_loss(OpContext& cx) {
  const int32_t dt = cx.out_dtype(), i64 = onnx::TensorProto::INT64, b = onnx::TensorProto::BOOL;
  const int64_t r = cx.rank_of("self");
  std::string x = cx.operand("self", dt), t = cx.cast(cx.tensor("target"), cx.dtype_of("target"), i64);
  if (r == 1) x = cx.unsqueeze(x, {0}), t = cx.unsqueeze(t, {0});
  // valid[n, k]: no -1 at or before k
  const std::string ended =
      cx.emit1("CumSum", {cx.cast(cx.emit1("Less", {t, cx.ci64s(0)}), b, i64), cx.ci64s(1)});
  const std::string valid = cx.emit1("Equal", {ended, cx.ci64s(0)});
  const std::string tk = cx.emit1("Where", {valid, t, cx.ci64s(0)});
  const std::string n_classes = cx.dim_size(x, 1);
  const std::string classes = cx.emit1("Range", {cx.ci64s(0), n_classes, cx.ci64s(1)});
  // is_target[n, c]: some valid entry names c
  const std::string names = cx.emit1(
      "And", {cx.emit1("Equal", {cx.unsqueeze(tk, {2}), classes}), cx.unsqueeze(valid, {2})});  // [N, K, C]
  const std::string is_target =
      cx.cast(emit_reduce(cx, "ReduceMax", cx.cast(names, b, i64), {1}, false), i64, b);
  const std::string xj = cx.unsqueeze(cx.emit1("GatherElements", {x, tk}, {attr("axis", int64_t{1})}), {2});
  const std::string z = cx.emit1(
      "Relu",
      {cx.emit1("Add", {cx.emit1("Sub", {cx.cscalar(1, dt), xj}), cx.unsqueeze(x, {1})})});  // [N, K, C]
  const std::string counted =
      cx.emit1("And", {cx.unsqueeze(valid, {2}), cx.emit1("Not", {cx.unsqueeze(is_target, {1})})});
  const std::string kept = cx.emit1("Where", {counted, z, cx.cscalar(0, dt)});
  std::string l =
      cx.emit1("Div", {emit_reduce(cx, "ReduceSum", kept, {1, 2}, false), cx.cast(n_classes, i64, dt)});
  std::string marks = cx.cast(is_target, b, dt);
  if (r == 1) l = cx.squeeze(l, {0}), marks = cx.squeeze(marks, {0});
  cx.out(0, reduced(cx, l, reduction_of(cx)));
  if (cx.n_outputs() > 1 && cx.output_is_tensor(1)) cx.out(1, marks);
}
MX_ATEN_LOWER(lower_multilabel_margin_loss, "aten.multilabel_margin_loss",
              "aten.multilabel_margin_loss_forward");

}  // namespace
}  // namespace mx::aten_onnx
