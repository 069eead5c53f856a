/* A minimal C program against the installed SDK: prints the library version
 * and checks that the library is compatible with the header it was compiled
 * with (same major, not older). */
#include <stdio.h>

#include <modelexport/modelexport.h>

/* (major, minor, patch) as one comparable number. */
static unsigned long long version_number(uint32_t major, uint32_t minor, uint32_t patch) {
  return ((unsigned long long)major << 40) | ((unsigned long long)minor << 20) | patch;
}

int main(void) {
  uint32_t major = 0, minor = 0, patch = 0;
  char header[32];
  mx_version(&major, &minor, &patch);
  snprintf(header, sizeof header, "%d.%d.%d", MX_VERSION_MAJOR, MX_VERSION_MINOR, MX_VERSION_PATCH);
  printf("modelexport %s (header %s)\n", mx_version_string(), header);
#ifdef CONSUMER_PLUGIN_DIR
  printf("plugin dir (CMake package): %s\n", CONSUMER_PLUGIN_DIR);
#endif
  if (major != MX_VERSION_MAJOR || version_number(major, minor, patch) <
                                       version_number(MX_VERSION_MAJOR, MX_VERSION_MINOR, MX_VERSION_PATCH)) {
    fprintf(stderr, "library %u.%u.%u is not compatible with header %s\n", (unsigned)major, (unsigned)minor,
            (unsigned)patch, header);
    return 1;
  }
  return 0;
}
