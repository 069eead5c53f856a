// The Bessel functions of torch.special, written out with the rational and
// Chebyshev approximations of ATen's own kernels (ATen/native/Math.h, from
// Cephes), in the same order of operations, so a float32 result rounds as
// ATen's float kernel does and a double one as its double kernel:
//
//   special_bessel_j0, _j1   |x| <= 5: a rational function of x^2 times the
//                  factors (x^2 - r1)(x^2 - r2) of the first two zeros (and x
//                  for J1; 1 - x^2 / 4 below 1e-5 for J0); beyond, Hankel's
//                  asymptotic form (P cos(x - phase) - 5 / x Q sin(x - phase))
//                  sqrt(2 / pi) / sqrt(x), P and Q rational in 25 / x^2.
//                  J0 is even, J1 odd.
//   special_bessel_y0, _y1   x <= 5: a rational function of x^2 plus
//                  2 / pi log(x) J(x) (minus 2 / (pi x) for Y1); beyond, the
//                  Hankel form with sin and cos exchanged. -inf at 0, NaN
//                  below.
//   special_modified_bessel_i0, _i1  Chebyshev series in |x| / 2 - 2 on
//                  |x| <= 8 and in 32 / |x| - 2 beyond (Cephes' tables,
//                  Clenshaw's recurrence), times exp(|x|) (over sqrt(|x|)
//                  beyond); I1 odd. Also i0, special_i0/i1 and the
//                  scaled special_i0e/i1e (the same series without exp).
//   special_modified_bessel_k0, _k1  x <= 2: a series in x^2 - 2 with
//                  -log(x / 2) I0(x) (K0), plus log(x / 2) I1(x) and over x
//                  (K1); beyond, exp(-x) times a series in 8 / x - 2 over
//                  sqrt(x). inf at 0, NaN below.
//   special_scaled_modified_bessel_k0, _k1  the same times exp(x).
//   special_spherical_bessel_j0  sin(x) / x; its Taylor polynomial below
//                  |x| = 1/2; 0 at +-inf.
#include <cmath>
#include <limits>
#include <string>

#include "cephes_series.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx {
namespace {

using cephes::chbevl;
using cephes::horner;

// ATen's tables (Math.h: bessel_j0_forward ... modified_bessel_k1_forward;
// Y0 and Y1 share J0's and J1's P and Q, the scaled K their K's).
constexpr double kJ0PP[] = {
    7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
    5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
    9.99999999999999997821e-01,
};
constexpr double kJ0PQ[] = {
    9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
    5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
    1.00000000000000000218e+00,
};
constexpr double kJ0QP[] = {
    -1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
    -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
    -5.14105326766599330220e+01, -6.05014350600728481186e+00,
};
constexpr double kJ0QQ[] = {
    6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
    7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
    2.42005740240291393179e+02,
};
constexpr double kJ0RP[] = {
    -4.79443220978201773821e+09,
    1.95617491946556577543e+12,
    -2.49248344360967716204e+14,
    9.70862251047306323952e+15,
};
constexpr double kJ0RQ[] = {
    4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
    1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
    3.18121955943204943306e+16, 1.71086294081043136091e+18,
};
constexpr double kJ1PP[] = {
    7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
    5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
    1.00000000000000000254e+00,
};
constexpr double kJ1PQ[] = {
    5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
    5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
    9.99999999999999997461e-01,
};
constexpr double kJ1QP[] = {
    5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
    3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
    2.11688757100572135698e+02, 2.52070205858023719784e+01,
};
constexpr double kJ1QQ[] = {
    7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
    9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
    3.36093607810698293419e+02,
};
constexpr double kJ1RP[] = {
    -8.99971225705559398224e+08,
    4.52228297998194034323e+11,
    -7.27494245221818276015e+13,
    3.68295732863852883286e+15,
};
constexpr double kJ1RQ[] = {
    6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
    2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
    8.95222336184627338078e+16, 5.32278620332680085395e+18,
};
constexpr double kY0YP[] = {
    1.55924367855235737965e+04,  -1.46639295903971606143e+07, 5.43526477051876500413e+09,
    -9.82136065717911466409e+11, 8.75906394395366999549e+13,  -3.46628303384729719441e+15,
    4.42733268572569800351e+16,  -1.84950800436986690637e+16,
};
constexpr double kY0YQ[] = {
    1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
    8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
    2.50596256172653059228e+17,
};
constexpr double kY1YP[] = {
    1.26320474790178026440e+09,  -6.47355876379160291031e+11, 1.14509511541823727583e+14,
    -8.12770255501325109621e+15, 2.02439475713594898196e+17,  -7.78877196265950026825e+17,
};
constexpr double kY1YQ[] = {
    5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
    1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
    6.87141087355300489866e+16, 3.97270608116560655612e+18,
};
constexpr double kI0A[] = {
    -4.41534164647933937950e-18, 3.33079451882223809783e-17,  -2.43127984654795469359e-16,
    1.71539128555513303061e-15,  -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12,  -1.72682629144155570723e-11,
    9.67580903537323691224e-11,  -5.18979560163526290666e-10, 2.65982372468238665035e-09,
    -1.30002500998624804212e-08, 6.04699502254191894932e-08,  -2.67079385394061173391e-07,
    1.11738753912010371815e-06,  -4.41673835845875056359e-06, 1.64484480707288970893e-05,
    -5.75419501008210370398e-05, 1.88502885095841655729e-04,  -5.76375574538582365885e-04,
    1.63947561694133579842e-03,  -4.32430999505057594430e-03, 1.05464603945949983183e-02,
    -2.37374148058994688156e-02, 4.93052842396707084878e-02,  -9.49010970480476444210e-02,
    1.71620901522208775349e-01,  -3.04682672343198398683e-01, 6.76795274409476084995e-01,
};
constexpr double kI0B[] = {
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17,  -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15,  3.81168066935262242075e-15,  -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14,  3.85277838274214270114e-13,
    7.18012445138366623367e-13,  -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11,  4.94060238822496958910e-10,
    3.39623202570838634515e-09,  2.26666899049817806459e-08,  2.04891858946906374183e-07,
    2.89137052083475648297e-06,  6.88975834691682398426e-05,  3.36911647825569408990e-03,
    8.04490411014108831608e-01,
};
constexpr double kI1A[] = {
    2.77791411276104639959e-18,  -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15,  -5.04218550472791168711e-14,
    3.22379336594557470981e-13,  -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10,  -1.88724975172282928790e-09,
    9.38153738649577178388e-09,  -4.44505912879632808065e-08, 2.00329475355213526229e-07,
    -8.56872026469545474066e-07, 3.47025130813767847674e-06,  -1.32731636560394358279e-05,
    4.78156510755005422638e-05,  -1.61760815825896745588e-04, 5.12285956168575772895e-04,
    -1.51357245063125314899e-03, 4.15642294431288815669e-03,  -1.05640848946261981558e-02,
    2.47264490306265168283e-02,  -5.29459812080949914269e-02, 1.02643658689847095384e-01,
    -1.76416518357834055153e-01, 2.52587186443633654823e-01,
};
constexpr double kI1B[] = {
    7.51729631084210481353e-18,  4.41434832307170791151e-18,  -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16,  3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14,  -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12,  1.41258074366137813316e-11,
    3.25260358301548823856e-11,  -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
    -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
    7.78576235018280120474e-01,
};
constexpr double kK0A[] = {
    1.37446543561352307156e-16,  4.25981614279661018399e-14, 1.03496952576338420167e-11,
    1.90451637722020886025e-09,  2.53479107902614945675e-07, 2.28621210311945178607e-05,
    1.26461541144692592338e-03,  3.59799365153615016266e-02, 3.44289899924628486886e-01,
    -5.35327393233902768720e-01,
};
constexpr double kK0B[] = {
    5.30043377268626276149e-18,  -1.64758043015242134646e-17, 5.21039150503902756861e-17,
    -1.67823109680541210385e-16, 5.51205597852431940784e-16,  -1.84859337734377901440e-15,
    6.34007647740507060557e-15,  -2.22751332699166985548e-14, 8.03289077536357521100e-14,
    -2.98009692317273043925e-13, 1.14034058820847496303e-12,  -4.51459788337394416547e-12,
    1.85594911495471785253e-11,  -7.95748924447710747776e-11, 3.57739728140030116597e-10,
    -1.69753450938905987466e-09, 8.57403401741422608519e-09,  -4.66048989768794782956e-08,
    2.76681363944501510342e-07,  -1.83175552271911948767e-06, 1.39498137188764993662e-05,
    -1.28495495816278026384e-04, 1.56988388573005337491e-03,  -3.14481013119645005427e-02,
    2.44030308206595545468e+00,
};
constexpr double kK1A[] = {
    -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
    -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
    -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
    -3.53155960776544875667e-01, 1.52530022733894777053e+00,
};
constexpr double kK1B[] = {
    -5.75674448366501715755e-18, 1.79405087314755922667e-17,  -5.68946255844285935196e-17,
    1.83809354436663880070e-16,  -6.05704724837331885336e-16, 2.03870316562433424052e-15,
    -7.01983709041831346144e-15, 2.47715442448130437068e-14,  -8.97670518232499435011e-14,
    3.34841966607842919884e-13,  -1.28917396095102890680e-12, 5.13963967348173025100e-12,
    -2.12996783842756842877e-11, 9.21831518760500529508e-11,  -4.19035475934189648750e-10,
    2.01504975519703286596e-09,  -1.03457624656780970260e-08, 5.74108412545004946722e-08,
    -3.50196060308781257119e-07, 2.40648494783721712015e-06,  -1.93619797416608296024e-05,
    1.95215518471351631108e-04,  -2.85781685962277938680e-03, 1.03923736576817238437e-01,
    2.72062619048444266945e+00,
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSqrtTwoOverPi = 0.797884560802865355879892119868763737;
constexpr double kTwoOverPi = 0.636619772367581343075535053490057448;

// Hankel's asymptotic form of J (first kind) or Y of order 0 or 1 for x > 5.
// w = 25 / x^2 is computed as ATen does for each order (25 / (x x) for
// order 0, (5 / x)(5 / x) for order 1): the roundings differ.
std::string hankel(OpContext& cx, const std::string& x, int order, bool second_kind, int32_t dt) {
  const std::string five_over_x = cx.emit1("Div", {cx.cscalar(5, dt), x});
  const std::string w = order == 0 ? cx.emit1("Div", {cx.cscalar(25, dt), cx.emit1("Mul", {x, x})})
                                   : cx.emit1("Mul", {five_over_x, five_over_x});
  const std::string p = order == 0 ? cx.emit1("Div", {horner(cx, w, kJ0PP, dt), horner(cx, w, kJ0PQ, dt)})
                                   : cx.emit1("Div", {horner(cx, w, kJ1PP, dt), horner(cx, w, kJ1PQ, dt)});
  const std::string q = order == 0 ? cx.emit1("Div", {horner(cx, w, kJ0QP, dt), horner(cx, w, kJ0QQ, dt)})
                                   : cx.emit1("Div", {horner(cx, w, kJ1QP, dt), horner(cx, w, kJ1QQ, dt)});
  const double phase =
      order == 0 ? 0.785398163397448309615660845819875721 : 2.356194490192344928846982537459627163;
  const std::string t = cx.emit1("Sub", {x, cx.cscalar(phase, dt)});
  const std::string cos_t = cx.emit1("Cos", {t}), sin_t = cx.emit1("Sin", {t});
  const std::string fq = cx.emit1("Mul", {five_over_x, q});
  const std::string v = second_kind
                            ? cx.emit1("Add", {cx.emit1("Mul", {p, sin_t}), cx.emit1("Mul", {fq, cos_t})})
                            : cx.emit1("Sub", {cx.emit1("Mul", {p, cos_t}), cx.emit1("Mul", {fq, sin_t})});
  return cx.emit1("Div", {cx.emit1("Mul", {v, cx.cscalar(kSqrtTwoOverPi, dt)}), cx.emit1("Sqrt", {x})});
}

// J0 of a = |x| <= 5.
std::string j0_near(OpContext& cx, const std::string& a, int32_t dt) {
  const std::string a2 = cx.emit1("Mul", {a, a});
  const std::string tiny = cx.emit1("Sub", {cx.cscalar(1, dt), cx.emit1("Div", {a2, cx.cscalar(4, dt)})});
  const std::string zeros =
      cx.emit1("Mul", {cx.emit1("Sub", {a2, cx.cscalar(5.78318596294678452118e+00, dt)}),
                       cx.emit1("Sub", {a2, cx.cscalar(3.04712623436620863991e+01, dt)})});
  const std::string main =
      cx.emit1("Div", {cx.emit1("Mul", {zeros, horner(cx, a2, kJ0RP, dt)}), horner(cx, a2, kJ0RQ, dt)});
  return cx.emit1("Where", {cx.emit1("Less", {a, cx.cscalar(1e-5, dt)}), tiny, main});
}

// J1 of a = |x| <= 5.
std::string j1_near(OpContext& cx, const std::string& a, int32_t dt) {
  const std::string a2 = cx.emit1("Mul", {a, a});
  const std::string r = cx.emit1("Div", {horner(cx, a2, kJ1RP, dt), horner(cx, a2, kJ1RQ, dt)});
  const std::string y = cx.emit1(
      "Mul", {cx.emit1("Mul", {r, a}), cx.emit1("Sub", {a2, cx.cscalar(1.46819706421238932572e+01, dt)})});
  return cx.emit1("Mul", {y, cx.emit1("Sub", {a2, cx.cscalar(4.92184563216946036703e+01, dt)})});
}

// -inf at 0 and NaN below (the Y and K functions' domain), inf at 0 for K.
std::string positive_domain(OpContext& cx, const std::string& x, const std::string& y, double at_zero,
                            int32_t dt) {
  const std::string zero = cx.cscalar(0, dt);
  const std::string inside = cx.emit1("Where", {cx.emit1("Less", {x, zero}), cx.cscalar(kNaN, dt), y});
  return cx.emit1("Where", {cx.emit1("Equal", {x, zero}), cx.cscalar(at_zero, dt), inside});
}

void lower_bessel_jy(OpContext& cx) {
  const std::string op = cx.op();
  const int order = op.back() == '1' ? 1 : 0;
  const bool second_kind = op[op.size() - 2] == 'y';
  const int32_t out = cx.out_dtype(), dt = cephes::kernel_dtype(out);
  const std::string x = cx.operand(cephes::unary_input(cx), dt);
  const std::string five = cx.cscalar(5, dt);
  std::string y;
  if (!second_kind) {
    const std::string a = cx.emit1("Abs", {x});
    const std::string near = order == 0 ? j0_near(cx, a, dt) : j1_near(cx, a, dt);
    y = cx.emit1("Where", {cx.emit1("LessOrEqual", {a, five}), near, hankel(cx, a, order, false, dt)});
    if (order == 1)
      y = cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(0, dt)}), cx.emit1("Neg", {y}), y});
  } else {
    const std::string x2 = cx.emit1("Mul", {x, x});
    const std::string log_term = cx.emit1("Mul", {cx.cscalar(kTwoOverPi, dt), cx.emit1("Log", {x})});
    std::string near;
    if (order == 0) {
      near = cx.emit1("Add", {cx.emit1("Div", {horner(cx, x2, kY0YP, dt), horner(cx, x2, kY0YQ, dt)}),
                              cx.emit1("Mul", {log_term, j0_near(cx, x, dt)})});
    } else {
      const std::string inner = cx.emit1(
          "Sub", {cx.emit1("Mul", {j1_near(cx, x, dt), cx.emit1("Log", {x})}), cx.emit1("Reciprocal", {x})});
      near = cx.emit1(
          "Add",
          {cx.emit1("Mul", {x, cx.emit1("Div", {horner(cx, x2, kY1YP, dt), horner(cx, x2, kY1YQ, dt)})}),
           cx.emit1("Mul", {cx.cscalar(kTwoOverPi, dt), inner})});
    }
    y = cx.emit1("Where", {cx.emit1("LessOrEqual", {x, five}), positive_domain(cx, x, near, -kInf, dt),
                           hankel(cx, x, order, true, dt)});
  }
  cx.out(0, cx.cast(y, dt, out));
}
MX_ATEN_LOWER(lower_bessel_jy, "aten.special_bessel_j0", "aten.special_bessel_j1", "aten.special_bessel_y0",
              "aten.special_bessel_y1");

// I0 or I1 of a = |x| <= 8 without the sign: exp(a) (not when scaled)
// times the series in a / 2 - 2 (I1: times a as well).
std::string modified_i_near(OpContext& cx, const std::string& a, int order, int32_t dt, bool scaled = false) {
  const std::string y = cx.emit1("Sub", {cx.emit1("Div", {a, cx.cscalar(2, dt)}), cx.cscalar(2, dt)});
  const std::string series = order == 0 ? chbevl(cx, y, kI0A, dt) : cx.emit1("Mul", {chbevl(cx, y, kI1A, dt), a});
  if (scaled) return series;
  const std::string e = cx.emit1("Exp", {a});
  return order == 0 ? cx.emit1("Mul", {e, series}) : cx.emit1("Mul", {series, e});
}

// torch.special's modified_bessel_i0/i1 and the older i0, special_i0/i1
// and their exponentially scaled i0e/i1e: one Cephes kernel in ATen
// (calc_i0 ... calc_i1e compute what modified_bessel_i*_forward do).
void lower_modified_bessel_i(OpContext& cx) {
  const std::string op = cx.op();
  const int order = op.find("i1") != std::string::npos ? 1 : 0;
  const bool scaled = op.back() == 'e';
  const int32_t out = cx.out_dtype(), dt = cephes::kernel_dtype(out);
  const std::string x = cx.operand(cephes::unary_input(cx), dt);
  const std::string a = cx.emit1("Abs", {x});
  const std::string y_far = cx.emit1("Sub", {cx.emit1("Div", {cx.cscalar(32, dt), a}), cx.cscalar(2, dt)});
  const std::string series = order == 0 ? chbevl(cx, y_far, kI0B, dt) : chbevl(cx, y_far, kI1B, dt);
  const std::string far =
      cx.emit1("Div", {scaled ? series : cx.emit1("Mul", {cx.emit1("Exp", {a}), series}), cx.emit1("Sqrt", {a})});
  std::string y = cx.emit1("Where", {cx.emit1("LessOrEqual", {a, cx.cscalar(8, dt)}),
                                     modified_i_near(cx, a, order, dt, scaled), far});
  if (order == 1) y = cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(0, dt)}), cx.emit1("Neg", {y}), y});
  cx.out(0, cx.cast(y, dt, out));
}
MX_ATEN_LOWER(lower_modified_bessel_i, "aten.special_modified_bessel_i0", "aten.special_modified_bessel_i1",
              "aten.i0", "aten.i0_", "aten.special_i0", "aten.special_i0e", "aten.special_i1", "aten.special_i1e");

// K0 or K1 of x in (0, 2], times exp(x) when scaled. ATen's float K0 takes
// log(0.5 x) in double (a double literal) and rounds the difference once:
// computed here in double too.
std::string modified_k_near(OpContext& cx, const std::string& x, int order, bool scaled, int32_t dt) {
  const std::string y = cx.emit1("Sub", {cx.emit1("Mul", {x, x}), cx.cscalar(2, dt)});
  std::string k;
  if (order == 0 && !scaled) {
    const int32_t wide = onnx::TensorProto::DOUBLE;
    const std::string log_half =
        cx.emit1("Log", {cx.emit1("Mul", {cx.cscalar(0.5, wide), cx.cast(x, dt, wide)})});
    const std::string i0 = cx.cast(modified_i_near(cx, x, 0, dt), dt, wide);
    k = cx.cast(
        cx.emit1("Sub", {cx.cast(chbevl(cx, y, kK0A, dt), dt, wide), cx.emit1("Mul", {log_half, i0})}), wide,
        dt);
  } else if (order == 0) {  // the scaled K0 of ATen stays in T: log(T(0.5) x)
    const std::string log_half = cx.emit1("Log", {cx.emit1("Mul", {cx.cscalar(0.5, dt), x})});
    k = cx.emit1("Sub",
                 {chbevl(cx, y, kK0A, dt), cx.emit1("Mul", {log_half, modified_i_near(cx, x, 0, dt)})});
  } else {
    const std::string log_half = cx.emit1("Log", {cx.emit1("Mul", {cx.cscalar(0.5, dt), x})});
    k = cx.emit1("Add", {cx.emit1("Mul", {log_half, modified_i_near(cx, x, 1, dt)}),
                         cx.emit1("Div", {chbevl(cx, y, kK1A, dt), x})});
  }
  return scaled ? cx.emit1("Mul", {k, cx.emit1("Exp", {x})}) : k;
}

void lower_modified_bessel_k(OpContext& cx) {
  const std::string op = cx.op();
  const int order = op.back() == '1' ? 1 : 0;
  const bool scaled = op.rfind("special_scaled", 0) == 0;
  const int32_t out = cx.out_dtype(), dt = cephes::kernel_dtype(out);
  const std::string x = cx.operand(cephes::unary_input(cx), dt);
  const std::string y_far = cx.emit1("Sub", {cx.emit1("Div", {cx.cscalar(8, dt), x}), cx.cscalar(2, dt)});
  std::string far = order == 0 ? chbevl(cx, y_far, kK0B, dt) : chbevl(cx, y_far, kK1B, dt);
  if (!scaled) far = cx.emit1("Mul", {cx.emit1("Exp", {cx.emit1("Neg", {x})}), far});
  far = cx.emit1("Div", {far, cx.emit1("Sqrt", {x})});
  const std::string y = cx.emit1("Where", {cx.emit1("LessOrEqual", {x, cx.cscalar(2, dt)}),
                                           modified_k_near(cx, x, order, scaled, dt), far});
  cx.out(0, cx.cast(positive_domain(cx, x, y, kInf, dt), dt, out));
}
MX_ATEN_LOWER(lower_modified_bessel_k, "aten.special_modified_bessel_k0", "aten.special_modified_bessel_k1",
              "aten.special_scaled_modified_bessel_k0", "aten.special_scaled_modified_bessel_k1");

// sin(x) / x; below |x| = 1/2 ATen's Taylor polynomial in x^2 (sin(x) / x
// loses nothing there, but the polynomial is what ATen rounds); 0 at +-inf.
void lower_spherical_bessel_j0(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = cephes::kernel_dtype(out);
  const std::string x = cx.operand(cephes::unary_input(cx), dt);
  const std::string x2 = cx.emit1("Mul", {x, x});
  // 1 + x^2 (-1/3! + x^2 (1/5! + ... + x^2 (1/13!))), innermost first
  const double c[] = {1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0,
                      -1.0 / 5040.0,      1.0 / 120.0,       -1.0 / 6.0};
  std::string p = cx.emit1("Mul", {x2, cx.cscalar(c[0], dt)});
  for (size_t i = 1; i < 6; ++i) p = cx.emit1("Mul", {x2, cx.emit1("Add", {cx.cscalar(c[i], dt), p})});
  const std::string taylor = cx.emit1("Add", {cx.cscalar(1, dt), p});
  const std::string ratio = cx.emit1("Div", {cx.emit1("Sin", {x}), x});
  const std::string a = cx.emit1("Abs", {x});
  const std::string y = cx.emit1("Where", {cx.emit1("Less", {a, cx.cscalar(0.5, dt)}), taylor, ratio});
  const std::string inf = emit_is_inf(cx, x, dt, true, true);
  cx.out(0, cx.cast(cx.emit1("Where", {inf, cx.cscalar(0, dt), y}), dt, out));
}
MX_ATEN_LOWER(lower_spherical_bessel_j0, "aten.special_spherical_bessel_j0");

}  // namespace
}  // namespace mx::aten_onnx
