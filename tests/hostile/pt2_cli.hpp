// A crafted .pt2 through the CLI in a child process (a stack overflow is
// an exit by signal there, not the end of the test run): `export` and
// `hierarchy` must refuse it cleanly, naming the problem, writing nothing.
#pragma once
#include <string>

#include "cli_run.hpp"
#include "pt2_craft.hpp"

namespace mx::hostile {

inline fs::path pt2_fixture(const std::string& name) {
  return fs::path(MX_TEST_PT2_FIXTURES) / (name + ".pt2");
}

inline CliRun export_pt2(const Scratch& s, const fs::path& in, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"export", in.string(), "-o", (s.out() / "m.onnx").string(), "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args, MX_TEST_PLUGIN_DIR, s.root());
}

inline CliRun hierarchy_of_pt2(const Scratch& s, const fs::path& in) {
  return run_cli({"hierarchy", in.string(), "-o", (s.out() / "h.json").string()}, MX_TEST_PLUGIN_DIR,
                 s.root());
}

// Exit 1 (not a signal), `why` in the message, nothing in out/.
inline void check_refused(const CliRun& r, const Scratch& s, const std::string& why) {
  CHECK_MESSAGE(r.exit_code == 1, "exit " << r.exit_code << ": " << r.err.substr(0, 400));
  CHECK_MESSAGE(contains(r.err, why), r.err.substr(0, 400));
  CHECK(s.outputs().empty());
}

}  // namespace mx::hostile
