// A .pt2 archive as outside bytes: the zip directory reader (stored
// entries, ZIP64, names, extents), the program checks, the weight configs
// and the whole export (lowering included) of whatever survives.
// Oracle: every refusal is an mx::torch_export::Error with a code other than
// MX_ERR_INTERNAL; any other exception or a crash is a finding. The
// archive is read through mmap, so the input goes to a private file first.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "exporter.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > mxfuzz::kMaxInput) return 0;
  char path[] = "/tmp/mx-fuzz-pt2-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return 0;
  const bool written = size == 0 || write(fd, data, size) == static_cast<ssize_t>(size);
  close(fd);
  if (written) {
    try {
      mx::torch_export::ExportOptions o;
      o.model_path = path;
      mx::torch_export::export_model(o);
    } catch (const mx::torch_export::Error& e) {
      if (e.code == MX_ERR_INTERNAL) {
        std::string what = e.what();
        // The checker refusing a graph built from a hostile program is a
        // refusal, not a crash; only other internal errors are findings.
        if (what.find("ONNX checker") == std::string::npos &&
            what.find("shape inference") == std::string::npos) {
          unlink(path);
          mxfuzz::finding("pt2 archive", what);
        }
      }
    } catch (const std::exception& e) {
      unlink(path);
      mxfuzz::finding("pt2 archive", std::string("unexpected exception: ") + e.what());
    }
  }
  unlink(path);
  return 0;
}
