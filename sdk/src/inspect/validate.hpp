// `modelexport validate`: every node carries a record; records, sidecar and
// module tree agree; the file passes the ONNX checker. Inconsistencies are
// data (a report), not errors: only an unreadable file is an error.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace mx::inspect {

// {"file","ok":bool,"checked":{...},"issues":[{"kind","message",...}]}
nlohmann::ordered_json validate_file(const std::string& path);

}  // namespace mx::inspect
