#include <algorithm>

#include "cli.hpp"

namespace modelexport::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags,
           const std::vector<std::string>& valued) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (contains(flags, a)) {
      flags_.push_back(a);
    } else if (contains(valued, a)) {
      if (i + 1 >= argv.size()) throw UsageError("option " + a + " needs a value");
      options_[a].push_back(argv[++i]);
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError("unknown option '" + a + "'");
    } else {
      positionals_.push_back(a);
    }
  }
}

bool Args::flag(const std::string& name) const {
  return std::find(flags_.begin(), flags_.end(), name) != flags_.end();
}

std::string Args::value(const std::string& name, const std::string& fallback) const {
  auto it = options_.find(name);
  return it == options_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = options_.find(name);
  return it == options_.end() ? std::vector<std::string>{} : it->second;
}

void Args::expect_positionals(size_t n, const std::string& what) const {
  if (positionals_.size() < n) throw UsageError("missing " + what);
  if (positionals_.size() > n)
    throw UsageError("unexpected argument '" + positionals_[n] + "'");
}

}  // namespace modelexport::cli
