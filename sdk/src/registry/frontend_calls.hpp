// Requests to frontend plugins (docs/plugin-protocol.md, "Frontends"):
// "export" (source model → ONNX bytes + hierarchy) and "module_tree".
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "progress/progress.hpp"
#include "registry/registry.hpp"

namespace mx {

// MX_ERR_NOT_FOUND listing the available frontends when `name` is not one.
// The frontend plugin `name`; "auto" (or empty) asks every frontend
// whether it reads `model_path` ("probe", docs/plugin-protocol.md) and takes
// the first that does (in load order), or names the frontends none of
// which accepted it.
const Plugin& select_frontend(const Registry& registry, const std::string& name,
                              const std::string& model_path = "");

// Builds the "export" request from mx_registry_export's options (strict:
// inputs (required), opset 14..17, drop_builtin_tags).
nlohmann::json export_request(const std::string& model_path, const nlohmann::json& options);

// Runs "export" and returns a new model carrying the frontend's hierarchy.
// Reports "export", the frontend's own stages (through the host's progress
// function) and "load" to `progress`; MX_ERR_CANCELLED when it cancels.
// `lowering_plugins` (Registry::lowering_libraries) go to the request as
// "lowering_plugins" when there are any.
mx_model* export_model(const Plugin& frontend, const std::string& model_path, const nlohmann::json& options,
                       Progress& progress, const std::vector<std::string>& lowering_plugins = {});

// Runs "module_tree"; the answer must be a hierarchy document.
nlohmann::json frontend_module_tree(const Plugin& frontend, const std::string& model_path);

}  // namespace mx
