#include "stored_tensors.hpp"
#include "json_integers.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/error.hpp"
#include "mx/common/json_limits.hpp"
#include "program.hpp"

namespace mx::torch_export {
using mx::aten_onnx::Error;
using json = nlohmann::json;
namespace {

bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

int64_t as_int(const json& d, const std::string& what) {
  if (!d.contains("as_int")) throw std::runtime_error(what + " is symbolic");
  return as_int64(d.at("as_int"));
}

// Copies the elements of a strided view into a contiguous buffer.
void gather(const char* base, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
            size_t esize, std::string& out) {
  const size_t rank = dims.size();
  std::vector<int64_t> idx(rank, 0);
  uint64_t n = 1;
  for (auto d : dims) n *= static_cast<uint64_t>(d);  // checked by the caller (gathered_bytes)
  out.reserve(n * esize);
  for (uint64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (size_t r = 0; r < rank; ++r) off += idx[r] * strides[r];
    out.append(base + off * static_cast<int64_t>(esize), esize);
    for (size_t r = rank; r-- > 0;) {
      if (++idx[r] < dims[r]) break;
      idx[r] = 0;
    }
  }
}

// A strided view is copied out whole; with zero strides it may be far
// larger than the bytes it reads ([2^31, 2^30] over one element). It may
// be as large as its data file, or kMaxExpandedBytes when that is more:
// past that a few stored bytes would claim gigabytes.
constexpr uint64_t kMaxExpandedBytes = uint64_t{256} << 20;

void check_gathered_size(const std::string& what, uint64_t numel, size_t esize, uint64_t file_bytes) {
  uint64_t bytes = 0;
  const uint64_t limit = std::max(file_bytes, kMaxExpandedBytes);
  if (__builtin_mul_overflow(numel, esize, &bytes) || bytes > limit)
    throw Error(MX_ERR_PARSE, what + ": a strided view of " + std::to_string(numel) + " elements of " +
                                  std::to_string(esize) + " bytes over a data file of " +
                                  std::to_string(file_bytes) +
                                  " bytes (copied out, a view may take its file's size or " +
                                  std::to_string(kMaxExpandedBytes) + " bytes, whichever is more)");
}

// Bytes per element as stored: a complex element is its two components.
size_t stored_element_size(int32_t dtype) {
  if (dtype == onnx::TensorProto::COMPLEX64) return 8;
  if (dtype == onnx::TensorProto::COMPLEX128) return 16;
  return mx::aten_onnx::element_size(dtype);
}

}  // namespace

StoredTensors::StoredTensors(const Archive& archive) {
  read_config(archive, "data/weights/", "model_weights_config.json");
  read_config(archive, "data/constants/", "model_constants_config.json");
}

const StoredTensor* StoredTensors::find(const std::string& fqn) const {
  auto it = tensors_.find(fqn);
  return it == tensors_.end() ? nullptr : &it->second;
}

void StoredTensors::check_against(const Program& program) const {
  for (const auto& in : program.inputs) {
    if (in.kind != InputSlot::parameter && in.kind != InputSlot::buffer && in.kind != InputSlot::constant)
      continue;
    const StoredTensor* t = find(in.target);
    auto meta = program.tensors.find(in.value);
    if (!t || meta == program.tensors.end()) continue;  // reported where they are bound
    const TensorMeta& m = meta->second;
    bool same = m.dtype == t->dtype && m.sizes.size() == t->dims.size();
    for (size_t k = 0; same && k < m.sizes.size(); ++k)
      same = !m.sizes[k].is_static || m.sizes[k].value == t->dims[k];
    if (same) continue;
    auto shape = [](const std::vector<int64_t>& dims) {
      std::string s = "[";
      for (size_t k = 0; k < dims.size(); ++k) s += (k ? "," : "") + std::to_string(dims[k]);
      return s + "]";
    };
    std::vector<int64_t> want;
    for (const Dim& d : m.sizes) want.push_back(d.value);
    throw Error(MX_ERR_PARSE, "'" + program.file + "': the stored data of " + in.target + " is " +
                                  mx::aten_onnx::dtype_name(t->dtype) + shape(t->dims) +
                                  " but the program's '" + in.value + "' is " +
                                  mx::aten_onnx::dtype_name(m.dtype) + shape(want));
  }
}

void StoredTensors::read_config(const Archive& archive, const std::string& folder,
                                const std::string& config) {
  if (!archive.has(folder + config)) return;
  const std::string text = archive.read(folder + config);
  const std::string where = "'" + archive.path() + "': " + folder + config;
  const std::string violation = mx::common::json_limit_violation(text);
  if (!violation.empty()) throw Error(MX_ERR_PARSE, where + ": " + violation);
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const std::exception& e) {
    throw Error(MX_ERR_PARSE, where + " is not JSON: " + e.what());
  }
  if (!doc.contains("config") || !doc.at("config").is_object())
    throw Error(MX_ERR_PARSE, where + " has no \"config\"");
  for (const auto& [fqn, entry] : doc.at("config").items()) {
    const std::string what = where + ", tensor '" + fqn + "'";
    try {
      if (entry.value("use_pickle", false))
        throw Error(MX_ERR_UNSUPPORTED,
                    what + " is pickled (a tensor subclass?); only plain tensors are supported");
      const json& meta = entry.at("tensor_meta");
      StoredTensor t;
      t.dtype = onnx_dtype_of_torch(as_int64(meta.at("dtype")));
      const size_t esize = stored_element_size(t.dtype);
      if (t.dtype == 0 || esize == 0)
        throw Error(MX_ERR_UNSUPPORTED, what + " has torch dtype code " + brief(meta.at("dtype")) +
                                            ", which ONNX export does not support");
      std::vector<int64_t> strides;
      for (const auto& d : meta.at("sizes")) t.dims.push_back(as_int(d, "a size"));
      for (const auto& d : meta.at("strides")) strides.push_back(as_int(d, "a stride"));
      const int64_t offset =
          meta.contains("storage_offset") ? as_int(meta.at("storage_offset"), "the offset") : 0;
      if (strides.size() != t.dims.size())
        throw Error(MX_ERR_PARSE, what + ": sizes and strides differ in rank");
      // Highest element index the view touches, checked for overflow.
      uint64_t last = static_cast<uint64_t>(offset), numel = 1;
      bool overflow = offset < 0;
      for (size_t r = 0; r < t.dims.size(); ++r) {
        if (t.dims[r] < 0 || strides[r] < 0) overflow = true;
        if (t.dims[r] == 0) numel = 0;
        uint64_t span = 0;
        overflow |= t.dims[r] > 0 && mul_overflows(static_cast<uint64_t>(t.dims[r] - 1), strides[r], span);
        overflow |= __builtin_add_overflow(last, span, &last);
        overflow |= mul_overflows(numel, static_cast<uint64_t>(t.dims[r]), numel);
      }
      uint64_t end_byte = 0;
      overflow |= __builtin_add_overflow(last, 1, &end_byte) || mul_overflows(end_byte, esize, end_byte);
      const auto file = archive.entry(folder + entry.at("path_name").get<std::string>());
      if (overflow || (numel > 0 && end_byte > file.size()))
        throw Error(MX_ERR_PARSE, what + ": sizes/strides/offset overrun its data file (" +
                                      std::to_string(file.size()) + " bytes)");
      bool contiguous = true;
      uint64_t expect = 1;  // wraps harmlessly: numel fits, so only the last product can
      for (size_t r = t.dims.size(); r-- > 0;) {
        if (t.dims[r] != 1 && static_cast<uint64_t>(strides[r]) != expect) contiguous = false;
        expect *= static_cast<uint64_t>(t.dims[r]);
      }
      const char* base = file.data() + offset * static_cast<int64_t>(esize);
      if (numel == 0) {
        t.bytes = {file.data(), 0};
      } else if (contiguous) {
        t.bytes = {base, numel * esize, archive.offset_of(base)};
      } else {
        check_gathered_size(what, numel, esize, file.size());
        gathered_.emplace_back();
        gather(base, t.dims, strides, esize, gathered_.back());
        t.bytes = {gathered_.back().data(), gathered_.back().size()};
      }
      tensors_.emplace(fqn, std::move(t));
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(MX_ERR_PARSE, what + ": " + e.what());
    }
  }
}

}  // namespace mx::torch_export
