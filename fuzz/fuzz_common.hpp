// Shared by the fuzz targets. The oracle is stricter than "no crash": a
// hostile input must come back as a *clear* error. MX_ERR_INTERNAL ("a bug
// in modelexport") or an unexpected C++ exception is a finding, and so is a
// model that saves but cannot be loaded back (data loss).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "modelexport/modelexport.h"

namespace mxfuzz {

[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "FUZZ FINDING: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

// Releases the status; aborts on MX_ERR_INTERNAL. Returns true on success.
inline bool ok(mx_status* s, const char* call) {
  if (!s) return true;
  if (mx_status_code(s) == MX_ERR_INTERNAL) {
    std::string msg = mx_status_message(s);
    mx_status_release(s);
    finding(call, "MX_ERR_INTERNAL on outside input: " + msg);
  }
  mx_status_release(s);
  return false;
}

// Inputs longer than this are cut: the parsers are not linear-time-free
// (JSON of 1 MB is plenty to reach every branch) and libFuzzer's default
// -max_len is already 4096 for a seeded corpus.
inline constexpr size_t kMaxInput = 1 << 20;

}  // namespace mxfuzz
