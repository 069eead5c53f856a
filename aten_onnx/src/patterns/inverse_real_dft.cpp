// The inverse of a onesided DFT (irfft), shared by fft_irfft / _fft_c2r and
// istft. ONNX's DFT has no onesided inverse, so the n-point spectrum is
// rebuilt by Hermitian symmetry - X[0 .. n/2] ++ conj(X[n - n/2 - 1 .. 1]) -
// and inverted in full; the real part is the signal.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// (re, im) * (1, -1): the conjugate of values in the pair layout.
std::string conjugate(OnnxEmitter& e, const std::string& z, int32_t dt) {
  onnx::TensorProto conj;
  conj.set_data_type(dt);
  conj.add_dims(2);
  if (dt == onnx::TensorProto::FLOAT) {
    conj.add_float_data(1.f);
    conj.add_float_data(-1.f);
  } else {
    conj.add_double_data(1.0);
    conj.add_double_data(-1.0);
  }
  return e.emit1("Mul", {z, e.constant(conj)});
}

}  // namespace

std::string emit_inverse_real_dft(OnnxEmitter& e, const std::string& spectrum, int64_t rank, int64_t dim,
                                  int64_t n, int32_t dt) {
  const std::string head = e.emit1("Slice", {spectrum, e.ci64({0}), e.ci64({n / 2 + 1}), e.ci64({dim})});
  std::string full = head;
  const int64_t tail_n = n - (n / 2 + 1);  // conj(X[k]) for k = tail_n .. 1
  if (tail_n > 0) {
    const std::string tail =
        e.emit1("Slice", {spectrum, e.ci64({tail_n}), e.ci64({0}), e.ci64({dim}), e.ci64({-1})});
    full = e.emit1("Concat", {head, conjugate(e, tail, dt)}, {attr("axis", dim)});
  }
  const std::string time = e.emit1("DFT", {full}, {attr("axis", dim), attr("inverse", int64_t{1})});
  return e.squeeze(e.emit1("Slice", {time, e.ci64({0}), e.ci64({1}), e.ci64({rank})}), {rank});
}

// The same to a length known at run time (`n1d`: 1-D int64 of one
// element); the spectrum is zero-padded first, so one shorter than the
// n / 2 + 1 points the inverse reads is read as ATen pads it. (Declared
// where it is used, lower/fft.cpp.)
std::string emit_inverse_real_dft(OnnxEmitter& e, const std::string& spectrum, int64_t rank, int64_t dim,
                                  const std::string& n1d, int32_t dt) {
  const std::string need = e.emit1("Add", {e.emit1("Div", {n1d, e.ci64({2})}), e.ci64({1})});  // n / 2 + 1
  const int64_t onnx_rank = rank + 1;  // + the pair axis
  std::vector<std::string> pads;
  if (onnx_rank + dim > 0)
    pads.push_back(e.ci64(std::vector<int64_t>(static_cast<size_t>(onnx_rank + dim), 0)));
  pads.push_back(need);
  if (onnx_rank - dim - 1 > 0)
    pads.push_back(e.ci64(std::vector<int64_t>(static_cast<size_t>(onnx_rank - dim - 1), 0)));
  onnx::TensorProto zero;
  zero.set_data_type(dt);
  if (dt == onnx::TensorProto::FLOAT) zero.add_float_data(0.f);
  else zero.add_double_data(0.0);
  const std::string padded =
      e.emit1("Pad", {spectrum, e.emit1("Concat", pads, {attr("axis", int64_t{0})}), e.constant(zero)});
  const std::string head = e.emit1("Slice", {padded, e.ci64({0}), need, e.ci64({dim})});
  const std::string tail_n = e.emit1("Sub", {n1d, need});  // conj(X[k]) for k = tail_n .. 1 (none when 0)
  const std::string tail = e.emit1("Slice", {padded, tail_n, e.ci64({0}), e.ci64({dim}), e.ci64({-1})});
  const std::string full = e.emit1("Concat", {head, conjugate(e, tail, dt)}, {attr("axis", dim)});
  const std::string time = e.emit1("DFT", {full}, {attr("axis", dim), attr("inverse", int64_t{1})});
  return e.squeeze(e.emit1("Slice", {time, e.ci64({0}), e.ci64({1}), e.ci64({rank})}), {rank});
}

}  // namespace mx::aten_onnx
