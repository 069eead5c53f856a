/* Symbol visibility for the modelexport C API.
 * The library is built with -fvisibility=hidden; only MX_API symbols are
 * exported. MODELEXPORT_BUILDING is defined while building libmodelexport. */
#ifndef MODELEXPORT_EXPORT_H
#define MODELEXPORT_EXPORT_H

#if defined(_WIN32)
#if defined(MODELEXPORT_BUILDING)
#define MX_API __declspec(dllexport)
#else
#define MX_API __declspec(dllimport)
#endif
#define MX_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MX_API __attribute__((visibility("default")))
#define MX_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#endif /* MODELEXPORT_EXPORT_H */
