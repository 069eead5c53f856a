// The table of host functions handed to every plugin's create() (the SQLite
// sqlite3_api_routines idea): a plugin never links libmodelexport, so
// allocation and logging reach it only through this table.
#pragma once
#include "modelexport/plugin.h"

namespace mx {

// One process-wide table: its functions are stateless, so every plugin can
// share it and it outlives every plugin.
const mx_host_api* host_api() noexcept;

// Frees a buffer a plugin allocated with host_api()->alloc.
void host_free(void* buffer) noexcept;

}  // namespace mx
