//! Finds libmodelexport, as -sys crates conventionally do:
//!   1. MODELEXPORT_LIB_DIR — a directory holding libmodelexport.so (for a
//!      CMake build tree: <build>/sdk); no pkg-config then.
//!   2. pkg-config `modelexport` (the `pkg-config` crate), which the SDK's
//!      install ships as <prefix>/lib/pkgconfig/modelexport.pc; a build tree
//!      has <build>/pkgconfig/modelexport-uninstalled.pc, which pkg-config
//!      prefers when PKG_CONFIG_PATH names that directory.
//! `links = "modelexport"` exposes the directory to dependents as
//! DEP_MODELEXPORT_LIB_DIR and the header directory as DEP_MODELEXPORT_INCLUDE.
use std::env;

fn main() {
    println!("cargo:rerun-if-env-changed=MODELEXPORT_LIB_DIR");
    if let Ok(dir) = env::var("MODELEXPORT_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-lib=dylib=modelexport");
        println!("cargo:lib_dir={dir}");
        return;
    }
    match pkg_config::Config::new().atleast_version("0.1").probe("modelexport") {
        Ok(lib) => {
            if let Some(dir) = lib.link_paths.first() {
                println!("cargo:lib_dir={}", dir.display());
            }
            if let Some(dir) = lib.include_paths.first() {
                println!("cargo:include={}", dir.display());
            }
        }
        Err(e) => panic!(
            "modelexport-sys: libmodelexport not found.\n\
             Install the SDK (scripts/setup.sh installs modelexport.pc to <prefix>/lib/pkgconfig) \
             and, for a prefix pkg-config does not search, set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig; \
             for a build tree set PKG_CONFIG_PATH=<build>/pkgconfig or MODELEXPORT_LIB_DIR=<build>/sdk.\n\
             pkg-config said: {e}"
        ),
    }
}
