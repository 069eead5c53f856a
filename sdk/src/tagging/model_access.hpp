// Tagging and the registry reach models only through the public C API
// (mx_model_*), so they depend on the model layer's contract, not on its
// internals. These wrappers turn an mx_status into a thrown Error.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"

namespace modelexport {

// Throws Error(code, message) and releases the status when it is non-NULL.
void throw_if_error(mx_status* status);

nlohmann::json model_graph(const mx_model* model);
void set_model_hierarchy(mx_model* model, const nlohmann::json& document);

}  // namespace modelexport
