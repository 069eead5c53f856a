// The schema defaults of ATen arguments, for the arguments a torch.export
// archive leaves out: its serializer drops an argument equal to its
// default, and the archive carries no schemas. The table is data
// (data/aten_defaults.tsv, made from torch by tools/schema_defaults.py),
// compiled into the plugin.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace mx::torch_export {

// The default of argument `arg` of `target` ("aten.max_pool2d.default") in
// the archive's argument form ({"as_ints": [1, 1]}), or nullptr when the
// schema gives it none other than None (or the op is not ATen's). The
// reference stays valid for the life of the process; thread-safe.
const nlohmann::json* schema_default(const std::string& target, const std::string& arg);

// How many (target, argument) defaults the table holds; for tests.
size_t schema_default_count();

}  // namespace mx::torch_export
