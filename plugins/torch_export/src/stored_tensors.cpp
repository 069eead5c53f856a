#include "stored_tensors.hpp"
#include "json_integers.hpp"

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/error.hpp"
#include "program.hpp"

namespace mxte {
using mx::aten_onnx::Error;
using json = nlohmann::json;
namespace {

bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) { return __builtin_mul_overflow(a, b, &out); }

int64_t as_int(const json& d, const std::string& what) {
  if (!d.contains("as_int")) throw std::runtime_error(what + " is symbolic");
  return as_int64(d.at("as_int"));
}

// Copies the elements of a strided view into a contiguous buffer.
void gather(const char* base, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, size_t esize,
            std::string& out) {
  const size_t rank = dims.size();
  std::vector<int64_t> idx(rank, 0);
  uint64_t n = 1;
  for (auto d : dims) n *= static_cast<uint64_t>(d);
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

}  // namespace

StoredTensors::StoredTensors(const Archive& archive) {
  read_config(archive, "data/weights/", "model_weights_config.json");
  read_config(archive, "data/constants/", "model_constants_config.json");
}

const StoredTensor* StoredTensors::find(const std::string& fqn) const {
  auto it = tensors_.find(fqn);
  return it == tensors_.end() ? nullptr : &it->second;
}

void StoredTensors::read_config(const Archive& archive, const std::string& folder, const std::string& config) {
  if (!archive.has(folder + config)) return;
  const auto text = archive.entry(folder + config);
  const std::string where = "'" + archive.path() + "': " + folder + config;
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const std::exception& e) {
    throw Error(MX_ERR_PARSE, where + " is not JSON: " + e.what());
  }
  if (!doc.contains("config") || !doc.at("config").is_object()) throw Error(MX_ERR_PARSE, where + " has no \"config\"");
  for (const auto& [fqn, entry] : doc.at("config").items()) {
    const std::string what = where + ", tensor '" + fqn + "'";
    try {
      if (entry.value("use_pickle", false))
        throw Error(MX_ERR_UNSUPPORTED, what + " is pickled (a tensor subclass?); only plain tensors are supported");
      const json& meta = entry.at("tensor_meta");
      StoredTensor t;
      t.dtype = onnx_dtype_of_torch(as_int64(meta.at("dtype")));
      const size_t esize = mx::aten_onnx::element_size(t.dtype);
      if (t.dtype == 0 || esize == 0)
        throw Error(MX_ERR_UNSUPPORTED, what + " has torch dtype code " + meta.at("dtype").dump() +
                                            ", which ONNX export does not support");
      std::vector<int64_t> strides;
      for (const auto& d : meta.at("sizes")) t.dims.push_back(as_int(d, "a size"));
      for (const auto& d : meta.at("strides")) strides.push_back(as_int(d, "a stride"));
      const int64_t offset = meta.contains("storage_offset") ? as_int(meta.at("storage_offset"), "the offset") : 0;
      if (strides.size() != t.dims.size()) throw Error(MX_ERR_PARSE, what + ": sizes and strides differ in rank");
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
      int64_t expect = 1;
      for (size_t r = t.dims.size(); r-- > 0;) {
        if (t.dims[r] != 1 && strides[r] != expect) contiguous = false;
        expect *= t.dims[r];
      }
      const char* base = file.data() + offset * static_cast<int64_t>(esize);
      if (numel == 0) {
        t.bytes = {file.data(), 0};
      } else if (contiguous) {
        t.bytes = {base, numel * esize, archive.offset_of(base)};
      } else {
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

}  // namespace mxte
