// Runs the modelexport CLI in a child process with a chosen plugin path and
// returns its exit code (-1 if it did not exit normally) with what it
// printed on stdout and stderr.
#pragma once
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "hostile_support.hpp"

namespace mx::hostile {

struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

inline CliRun run_cli(const std::vector<std::string>& args, const std::string& plugin_path,
                      const fs::path& scratch) {
  const fs::path out_file = scratch / "cli.stdout", err_file = scratch / "cli.stderr";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::setenv("MODELEXPORT_PLUGIN_PATH", plugin_path.c_str(), 1);
    ::unsetenv("MODELEXPORT_LOG_LEVEL");  // warnings are part of what is checked
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0) ::_exit(126);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv{const_cast<char*>(MX_TEST_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(MX_TEST_CLI, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read(out_file);
  r.err = read(err_file);
  return r;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace mx::hostile
