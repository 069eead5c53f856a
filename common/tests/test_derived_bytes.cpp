#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "mx/common/derived_bytes.hpp"

using mx::common::ChannelScale;
using mx::common::Derivation;
using mx::common::Permutation;

namespace {

// The derived bytes, checking that the pieces come in order and cover all.
std::string derived(const std::string& src, const Derivation& d) {
  std::string out;
  mx::common::for_each_derived_piece(src.data(), src.size(), d, [&](uint64_t at, const char* p, uint64_t n) {
    CHECK(at == out.size());
    out.append(p, n);
  });
  CHECK(out.size() == src.size());
  return out;
}

// Bytes 0, 1, 2, ... (mod 251) of `n` elements of `es` bytes.
std::string counting(size_t n, size_t es) {
  std::string s(n * es, '\0');
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i % 251);
  return s;
}

// The permutation element by element, as ONNX Transpose defines it.
std::string naive_permute(const std::string& src, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& perm, size_t es) {
  const size_t rank = dims.size();
  std::vector<size_t> stride(rank, 1), out_dims(rank), idx(rank, 0);
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * static_cast<size_t>(dims[d]);
  for (size_t d = 0; d < rank; ++d) out_dims[d] = static_cast<size_t>(dims[static_cast<size_t>(perm[d])]);
  std::string out;
  for (size_t e = 0; e < src.size() / es; ++e) {
    size_t s = 0;
    for (size_t d = 0; d < rank; ++d) s += idx[d] * stride[static_cast<size_t>(perm[d])];
    out.append(src, s * es, es);
    for (size_t d = rank; d-- > 0;)
      if (++idx[d] < out_dims[d]) break;
      else idx[d] = 0;
  }
  return out;
}

}  // namespace

TEST_CASE("derived bytes: transposes of every element size and awkward shapes match Transpose") {
  for (size_t es : {1, 2, 4, 8, 16, 3}) {
    for (auto dims : std::vector<std::vector<int64_t>>{{1, 1}, {5, 7}, {33, 65}, {64, 4}, {3, 1030}}) {
      CAPTURE(es);
      CAPTURE(dims[0]);
      CAPTURE(dims[1]);
      const std::string src = counting(static_cast<size_t>(dims[0] * dims[1]), es);
      Derivation d;
      d.permuted = Permutation{{1, 0}, dims, es};
      CHECK(derived(src, d) == naive_permute(src, dims, {1, 0}, es));
    }
  }
}

TEST_CASE("derived bytes: rank-3 and rank-4 permutations match Transpose") {
  const std::vector<int64_t> dims3{3, 4, 5}, dims4{2, 3, 4, 5};
  for (auto perm : std::vector<std::vector<int64_t>>{{2, 0, 1}, {1, 2, 0}, {0, 2, 1}, {0, 1, 2}}) {
    const std::string src = counting(60, 4);
    Derivation d;
    d.permuted = Permutation{perm, dims3, 4};
    CHECK(derived(src, d) == naive_permute(src, dims3, perm, 4));
  }
  const std::string src = counting(120, 2);
  Derivation d;
  d.permuted = Permutation{{3, 1, 0, 2}, dims4, 2};
  CHECK(derived(src, d) == naive_permute(src, dims4, {3, 1, 0, 2}, 2));
}

TEST_CASE("derived bytes: a channel scale multiplies each slice of dim 0 in float32") {
  const std::vector<float> v{1, 2, 3, 4, 5, 6};
  const std::string src(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  Derivation d;
  d.scaled = ChannelScale{{0.5f, -3.0f}};
  const std::string out = derived(src, d);
  std::vector<float> got(6);
  std::memcpy(got.data(), out.data(), out.size());
  CHECK(got == std::vector<float>{0.5f, 1.0f, 1.5f, -12.0f, -15.0f, -18.0f});
}

TEST_CASE("derived bytes: no derivation hands the source on as it is, and says when it is read") {
  const std::string src = counting(10, 1);
  uint64_t released = 0;
  std::string out;
  mx::common::for_each_derived_piece(
      src.data(), src.size(), {}, [&](uint64_t, const char* p, uint64_t n) { out.append(p, n); },
      [&](uint64_t, uint64_t n) { released += n; });
  CHECK(out == src);
  CHECK(released == src.size());
}

TEST_CASE("derived bytes: inconsistent derivations are named, never applied") {
  auto problem = [](const Derivation& d, uint64_t size) {
    auto p = mx::common::derivation_problem(d, size);
    return p ? std::string(*p) : std::string();
  };
  Derivation d;
  d.permuted = Permutation{{0, 0}, {2, 2}, 4};
  CHECK(problem(d, 16) == "a perm that is not a permutation of the dims");
  d.permuted = Permutation{{1, 0}, {2, 3}, 4};
  CHECK(problem(d, 16) == "dims whose elements are not the bytes");
  d.permuted = Permutation{{1, 0, 2}, {2, 2}, 4};
  CHECK(problem(d, 16) == "a perm whose rank is not the source dims'");
  d.permuted = Permutation{{1, 0}, {2, 2}, 0};
  CHECK(problem(d, 16) == "an element size of 0");
  d.permuted.reset();
  d.scaled = ChannelScale{{1.0f, 2.0f, 3.0f}};
  CHECK(problem(d, 16) == "a channel scale whose count does not divide the float32 elements");
  d.permuted = Permutation{{1, 0}, {2, 2}, 4};
  d.scaled = ChannelScale{{1.0f, 2.0f}};
  CHECK(problem(d, 16) == "both a permutation and a channel scale");
  const std::string src(16, '\0');
  CHECK_THROWS_AS(
      mx::common::for_each_derived_piece(src.data(), src.size(), d, [](uint64_t, const char*, uint64_t) {}),
      std::invalid_argument);
}
