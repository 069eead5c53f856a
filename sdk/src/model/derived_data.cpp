#include "model/derived_data.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>

#include "model/external_data.hpp"
#include "mx/common/derivation_text.hpp"
#include "mx/common/onnx_element_size.hpp"
#include "util/error.hpp"

namespace mx::model {
namespace {

const std::string* entry(const onnx::TensorProto& t, const char* key) {
  for (const auto& e : t.external_data())
    if (e.key() == key) return &e.value();
  return nullptr;
}

[[noreturn]] void bad(const std::string& label, const std::string& what) {
  fail(MX_ERR_SCHEMA, label + ": " + what);
}

mx::common::Permutation permutation_of(const onnx::TensorProto& t, const std::string& text,
                                       const std::string& label) {
  auto perm = mx::common::parse_permutation(text);
  if (!perm) bad(label, std::string(mx::common::kPermutationKey) + " '" + text + "' is not a list of dims");
  if (perm->size() != static_cast<size_t>(t.dims_size()))
    bad(label, std::string(mx::common::kPermutationKey) + " '" + text + "' has " +
                   std::to_string(perm->size()) + " dims; the tensor has " + std::to_string(t.dims_size()));
  mx::common::Permutation p;
  p.perm = *perm;
  p.element_size = mx::common::onnx_element_size(t.data_type());
  if (p.element_size == 0)
    bad(label,
        "a derived tensor must have a fixed-size type (ONNX type " + std::to_string(t.data_type()) + ")");
  // Output dim i is source dim perm[i]: the source dims are the tensor's,
  // put back (a perm out of range is left for derivation_problem).
  p.source_dims.assign(perm->size(), 0);
  for (size_t i = 0; i < perm->size(); ++i) {
    const int64_t d = (*perm)[i];
    if (d >= 0 && static_cast<size_t>(d) < perm->size())
      p.source_dims[static_cast<size_t>(d)] = t.dims(static_cast<int>(i));
  }
  return p;
}

mx::common::ChannelScale channel_scale_of(const onnx::TensorProto& t, const std::string& text,
                                          const std::string& label) {
  auto scale = mx::common::parse_channel_scale(text);
  if (!scale) bad(label, std::string(mx::common::kChannelScaleKey) + " is not a list of hexadecimal floats");
  if (t.data_type() != onnx::TensorProto::FLOAT) bad(label, "a channel-scaled tensor must be float32");
  if (t.dims_size() == 0 || static_cast<uint64_t>(t.dims(0)) != scale->size())
    bad(label, std::string(mx::common::kChannelScaleKey) + " has " + std::to_string(scale->size()) +
                   " values; the tensor's dim 0 is " +
                   (t.dims_size() ? std::to_string(t.dims(0)) : "absent"));
  return {std::move(*scale)};
}

// A read-only mapping of a file range, unmapped when it goes.
class MappedRange {
 public:
  MappedRange(int fd, uint64_t offset, uint64_t length, const std::string& path) {
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    skip_ = offset % page;
    size_ = skip_ + length;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(offset - skip_));
    if (p == MAP_FAILED)
      fail(MX_ERR_IO,
           path + ": cannot map " + std::to_string(length) + " bytes at " + std::to_string(offset));
    base_ = static_cast<char*>(p);
  }
  ~MappedRange() { ::munmap(base_, size_); }
  MappedRange(const MappedRange&) = delete;
  MappedRange& operator=(const MappedRange&) = delete;
  const char* data() const { return base_ + skip_; }
  // Pages of [offset, offset + length) of the range are not needed again.
  void drop(uint64_t offset, uint64_t length) const {
    const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t begin = (skip_ + offset) / page * page, end = skip_ + offset + length;
    ::madvise(base_ + begin, end - begin, MADV_DONTNEED);
  }

 private:
  char* base_ = nullptr;
  uint64_t skip_ = 0, size_ = 0;
};

}  // namespace

bool names_derivation(const onnx::TensorProto& t) {
  return entry(t, mx::common::kPermutationKey) || entry(t, mx::common::kChannelScaleKey);
}

mx::common::Derivation derivation_of(const onnx::TensorProto& t, uint64_t length, const std::string& label) {
  mx::common::Derivation d;
  if (const auto* text = entry(t, mx::common::kPermutationKey)) d.permuted = permutation_of(t, *text, label);
  if (const auto* text = entry(t, mx::common::kChannelScaleKey)) d.scaled = channel_scale_of(t, *text, label);
  if (auto problem = mx::common::derivation_problem(d, length))
    bad(label, std::string("its derivation is inconsistent with its ") + std::to_string(length) +
                   " source bytes: " + *problem);
  return d;
}

void derive(const DataFile& file, const ExternalRef& ref, const mx::common::BytePiece& put) {
  if (ref.length == 0) return;
  const MappedRange source(file.fd(), ref.offset, ref.length, file.path());
  try {
    mx::common::for_each_derived_piece(source.data(), ref.length, ref.derivation, put,
                                       [&source](uint64_t at, uint64_t n) { source.drop(at, n); });
  } catch (const std::invalid_argument& e) {
    fail(MX_ERR_INTERNAL, file.path() + ": " + e.what());
  }
}

}  // namespace mx::model
