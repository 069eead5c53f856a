#include "source_offsets.hpp"

#include <caffe2/serialize/file_adapter.h>

#include "mx/aten_onnx/weights.hpp"

namespace mx::torchscript {
namespace {

// The file, read as LibTorch asks, remembering where each read went.
class RecordingReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  RecordingReader(const std::string& path, std::shared_ptr<SourceOffsets::Reads> reads)
      : file_(path), reads_(std::move(reads)) {}
  size_t size() const override { return file_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override {
    const size_t got = file_.read(pos, buf, n, what);
    if (got == n && n > 0) (*reads_)[buf] = {pos, n};
    return got;
  }

 private:
  caffe2::serialize::FileAdapter file_;
  std::shared_ptr<SourceOffsets::Reads> reads_;
};

}  // namespace

torch::jit::Module SourceOffsets::load(const std::string& path) {
  reads_->clear();
  return torch::jit::load(std::make_shared<RecordingReader>(path, reads_));
}

uint64_t SourceOffsets::offset_of(const at::Tensor& t) const {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (!t.defined() || !t.is_cpu() || !t.is_contiguous() || t.numel() == 0) return mx::aten_onnx::kNotInSource;
  const auto& st = t.storage();
  auto it = reads_->find(st.data());
  // The read must have been the whole storage: the record's bytes, not a
  // header or a temporary buffer that happens to share the address.
  if (it == reads_->end() || it->second.size != st.nbytes()) return mx::aten_onnx::kNotInSource;
  const uint64_t begin = static_cast<uint64_t>(t.storage_offset()) * t.element_size();
  if (begin + t.numel() * t.element_size() > st.nbytes()) return mx::aten_onnx::kNotInSource;
  return it->second.pos + begin;
#else
  (void)t;
  return mx::aten_onnx::kNotInSource;  // stored little-endian: not as they are in memory
#endif
}

}  // namespace mx::torchscript
