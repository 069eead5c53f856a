/* A shared library without modelexport_plugin_entry. */
#include "modelexport/export.h"
MX_PLUGIN_EXPORT int some_other_function(void) {
  return 42;
}
