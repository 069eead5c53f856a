//! Finds libmodelexport. In order:
//!   1. MODELEXPORT_LIB_DIR            — directory holding libmodelexport.so
//!   2. MODELEXPORT_BUILD_DIR          — a CMake build tree (library in <build>/sdk)
//!   3. pkg-config `modelexport`       — with MODELEXPORT_PREFIX/{lib,lib/<triplet>}/pkgconfig
//!                                       prepended to PKG_CONFIG_PATH
//!   4. MODELEXPORT_PREFIX (default /usr/local) /lib
//! No crates are needed: pkg-config is run as a command.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    for var in [
        "MODELEXPORT_LIB_DIR",
        "MODELEXPORT_BUILD_DIR",
        "MODELEXPORT_PREFIX",
        "PKG_CONFIG_PATH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rustc-link-lib=dylib=modelexport");

    if let Some(dir) = lib_dir() {
        println!("cargo:rustc-link-search=native={}", dir.display());
        // Exposed to dependents as DEP_MODELEXPORT_LIB_DIR (for rpaths in tests).
        println!("cargo:lib_dir={}", dir.display());
    }
}

fn has_lib(dir: &Path) -> bool {
    dir.join("libmodelexport.so").exists() || dir.join("libmodelexport.dylib").exists()
}

fn lib_dir() -> Option<PathBuf> {
    if let Ok(dir) = env::var("MODELEXPORT_LIB_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Ok(build) = env::var("MODELEXPORT_BUILD_DIR") {
        let dir = PathBuf::from(build).join("sdk");
        if has_lib(&dir) {
            return Some(dir);
        }
        println!("cargo:warning=MODELEXPORT_BUILD_DIR set but {} has no libmodelexport", dir.display());
    }
    let prefix = PathBuf::from(env::var("MODELEXPORT_PREFIX").unwrap_or_else(|_| "/usr/local".into()));
    let candidates = [
        prefix.join("lib"),
        prefix.join("lib64"),
        prefix.join("lib/x86_64-linux-gnu"),
        prefix.join("lib/aarch64-linux-gnu"),
    ];
    let mut pc_path: Vec<String> = candidates
        .iter()
        .map(|d| d.join("pkgconfig").display().to_string())
        .collect();
    if let Ok(existing) = env::var("PKG_CONFIG_PATH") {
        pc_path.push(existing);
    }
    if let Ok(out) = Command::new("pkg-config")
        .args(["--libs-only-L", "modelexport"])
        .env("PKG_CONFIG_PATH", pc_path.join(":"))
        .output()
    {
        if out.status.success() {
            let text = String::from_utf8_lossy(&out.stdout);
            if let Some(dir) = text.split_whitespace().find_map(|t| t.strip_prefix("-L")) {
                return Some(PathBuf::from(dir));
            }
        }
    }
    candidates.into_iter().find(|d| has_lib(d))
}
