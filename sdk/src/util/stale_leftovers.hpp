// What a killed run left behind, removed by a later one. Temporaries are
// named "<prefix><pid>-<random>" (the pid of the process writing them); a
// run about to write next to them removes those whose process is gone
// (kill(pid, 0) says ESRCH) and that nobody touched for kStaleAfter: the
// age guards against a writer in another pid namespace sharing the
// directory, whose pid means nothing here. Backups (".orig-") are never
// removed: after a kill mid-commit one may be the only copy of a file.
#pragma once
#include <string>

namespace modelexport {

inline constexpr int kStaleAfterSeconds = 10 * 60;

// "<prefix><our pid>-": the start of a temporary's name.
std::string pid_tagged(const std::string& prefix);

// Removes the stale entries of `directory` named "<prefix><pid>-...": files
// (not directories) when `directories` is false, else directories with
// their contents. Best effort: errors are ignored.
void remove_stale_leftovers(const std::string& directory, const std::string& prefix, bool directories);

}  // namespace modelexport
