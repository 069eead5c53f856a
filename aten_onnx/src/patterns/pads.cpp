// PyTorch's pad list (pairs from the last dim backwards) as ONNX Pad's pads
// (the begin of every dim, then the end of every dim), static or, when the
// list holds SymInts, a tensor at run time.
#include "mx/aten_onnx/patterns.hpp"

#include "mx/aten_onnx/attributes.hpp"

namespace mx::aten_onnx {

std::vector<int64_t> static_onnx_pads(const std::vector<int64_t>& torch_pads, int64_t rank,
                                      int64_t unpadded_after) {
  const int64_t counted = rank - unpadded_after;
  std::vector<int64_t> begin(rank, 0), end(rank, 0);
  for (size_t k = 0; k + 1 < torch_pads.size(); k += 2) {
    begin[counted - 1 - k / 2] = torch_pads[k];
    end[counted - 1 - k / 2] = torch_pads[k + 1];
  }
  begin.insert(begin.end(), end.begin(), end.end());
  return begin;
}

// The list plus a trailing 0, gathered into ONNX's order, the 0 standing in
// for every dim the list leaves alone and for the `unpadded_after` trailing
// dims the list does not count (the pair axis of a complex value).
std::string onnx_pads_of_list(OnnxEmitter& e, const std::string& torch_pads, int64_t pairs, int64_t rank,
                              int64_t unpadded_after) {
  const std::string list = e.emit1("Concat", {torch_pads, e.ci64({0})}, {attr("axis", int64_t{0})});
  const int64_t counted = rank - unpadded_after;
  std::vector<int64_t> begin, end;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t j = counted - 1 - d;  // the pair of dim d counts from the last counted dim
    const bool padded = d < counted && j < pairs;
    begin.push_back(padded ? 2 * j : 2 * pairs);
    end.push_back(padded ? 2 * j + 1 : 2 * pairs);
  }
  begin.insert(begin.end(), end.begin(), end.end());
  return e.emit1("Gather", {list, e.ci64(begin)}, {attr("axis", int64_t{0})});
}

}  // namespace mx::aten_onnx
