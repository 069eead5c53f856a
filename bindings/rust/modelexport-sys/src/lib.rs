//! Raw declarations of the modelexport C API (`modelexport/modelexport.h`).
//!
//! Hand-written, not generated: `tests/header_match.rs` compiles a C file
//! that includes the real header and assigns every function declared here to
//! a function pointer of the C signature derived from the Rust one (and
//! static-asserts every constant), and compares the set of `mx_*` functions
//! in the header with this file. Any mismatch fails `cargo test`.
//!
//! Everything here is `unsafe`; use the `modelexport` crate instead.
#![allow(non_camel_case_types)]
#![no_std]

use core::ffi::{c_char, c_int, c_void};

/// Header version this crate was written against.
pub const MX_VERSION_MAJOR: u32 = 0;
pub const MX_VERSION_MINOR: u32 = 1;
pub const MX_VERSION_PATCH: u32 = 0;

/// `enum mx_code` (a C enum: `int`-sized).
pub type mx_code = c_int;
pub const MX_OK: mx_code = 0;
pub const MX_ERR_INVALID_ARGUMENT: mx_code = 1;
pub const MX_ERR_IO: mx_code = 2;
pub const MX_ERR_PARSE: mx_code = 3;
pub const MX_ERR_SCHEMA: mx_code = 4;
pub const MX_ERR_NOT_FOUND: mx_code = 5;
pub const MX_ERR_UNSUPPORTED: mx_code = 6;
pub const MX_ERR_PLUGIN: mx_code = 7;
pub const MX_ERR_SECURITY: mx_code = 8;
pub const MX_ERR_INTERNAL: mx_code = 9;
pub const MX_ERR_CANCELLED: mx_code = 10;

/// Plugin ABI (`modelexport/plugin.h`), for hosts that inspect listings.
pub const MX_PLUGIN_ABI_MAJOR: u32 = 1;
pub const MX_PLUGIN_ABI_MINOR: u32 = 2;

/// Opaque status object (NULL means success).
#[repr(C)]
pub struct mx_status {
    _private: [u8; 0],
    _pin: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}
/// Opaque ONNX model plus hierarchy.
#[repr(C)]
pub struct mx_model {
    _private: [u8; 0],
    _pin: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}
/// Opaque plugin registry.
#[repr(C)]
pub struct mx_registry {
    _private: [u8; 0],
    _pin: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// One progress report (`mx_progress_event`); strings valid during the callback.
#[repr(C)]
pub struct mx_progress_event {
    pub struct_size: u32,
    pub stage: *const c_char,
    pub unit: *const c_char,
    pub done: u64,
    pub total: u64,
}
/// `mx_progress_fn`: non-zero cancels the call (MX_ERR_CANCELLED).
pub type mx_progress_fn =
    Option<unsafe extern "C" fn(event: *const mx_progress_event, user_data: *mut c_void) -> i32>;
/// `mx_progress`: set `struct_size` to `size_of::<mx_progress>()`.
#[repr(C)]
pub struct mx_progress {
    pub struct_size: u32,
    pub callback: mx_progress_fn,
    pub user_data: *mut c_void,
    pub min_interval_ms: u32,
}

// One declaration per line, `pub fn name(args) -> ret;`: tests/header_match.rs
// reads this block.
extern "C" {
    // Version
    pub fn mx_version(major: *mut u32, minor: *mut u32, patch: *mut u32);
    pub fn mx_version_string() -> *const c_char;

    // Status / errors
    pub fn mx_status_code(status: *const mx_status) -> mx_code;
    pub fn mx_status_message(status: *const mx_status) -> *const c_char;
    pub fn mx_status_release(status: *mut mx_status);
    pub fn mx_code_name(code: mx_code) -> *const c_char;
    pub fn mx_free(buffer: *mut c_void);

    // Models
    pub fn mx_model_load_file(path: *const c_char, out: *mut *mut mx_model) -> *mut mx_status;
    pub fn mx_model_load_bytes(data: *const c_void, size: usize, out: *mut *mut mx_model) -> *mut mx_status;
    pub fn mx_model_release(model: *mut mx_model);
    pub fn mx_model_save_file(model: *const mx_model, path: *const c_char, options_json: *const c_char) -> *mut mx_status;
    pub fn mx_model_save_file_with_progress(model: *const mx_model, path: *const c_char, options_json: *const c_char, progress: *const mx_progress) -> *mut mx_status;
    pub fn mx_model_save_bytes(model: *const mx_model, options_json: *const c_char, out: *mut *mut c_void, out_size: *mut usize) -> *mut mx_status;
    /// Writes one file all-or-nothing (O_EXCL temporary, fsync, rename; never through a planted symlink).
    pub fn mx_write_file(path: *const c_char, data: *const c_void, size: usize, options_json: *const c_char) -> *mut mx_status;
    pub fn mx_model_graph_json(model: *const mx_model, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_node_count(model: *const mx_model) -> usize;
    pub fn mx_model_node_json(model: *const mx_model, index: usize, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_check(model: *const mx_model) -> *mut mx_status;

    // Hierarchy
    pub fn mx_model_node_record(model: *const mx_model, node_name: *const c_char, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_set_node_record(model: *mut mx_model, node_name: *const c_char, record_json: *const c_char, record_size: usize) -> *mut mx_status;
    pub fn mx_model_hierarchy_json(model: *const mx_model, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_set_hierarchy_json(model: *mut mx_model, json: *const c_char, size: usize) -> *mut mx_status;
    pub fn mx_model_has_hierarchy(model: *const mx_model) -> c_int;

    // Plugin registry
    pub fn mx_registry_create(options_json: *const c_char, out: *mut *mut mx_registry) -> *mut mx_status;
    pub fn mx_registry_release(registry: *mut mx_registry);
    pub fn mx_registry_load_plugin(registry: *mut mx_registry, path: *const c_char) -> *mut mx_status;
    pub fn mx_registry_plugins_json(registry: *const mx_registry, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_registry_tag(registry: *const mx_registry, strategy: *const c_char, model: *mut mx_model, options_json: *const c_char) -> *mut mx_status;
    pub fn mx_registry_tag_with_progress(registry: *const mx_registry, strategy: *const c_char, model: *mut mx_model, options_json: *const c_char, progress: *const mx_progress) -> *mut mx_status;
    pub fn mx_registry_export(registry: *const mx_registry, frontend: *const c_char, model_path: *const c_char, options_json: *const c_char, out: *mut *mut mx_model) -> *mut mx_status;
    pub fn mx_registry_export_with_progress(registry: *const mx_registry, frontend: *const c_char, model_path: *const c_char, options_json: *const c_char, progress: *const mx_progress, out: *mut *mut mx_model) -> *mut mx_status;
    pub fn mx_registry_module_tree(registry: *const mx_registry, frontend: *const c_char, model_path: *const c_char, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;

    // Modules as functions, extraction, inspection, validation
    pub fn mx_model_to_functions(model: *mut mx_model, options_json: *const c_char, out_report_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_to_functions_with_progress(model: *mut mx_model, options_json: *const c_char, progress: *const mx_progress, out_report_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_extract(model: *const mx_model, module_path: *const c_char, options_json: *const c_char, out: *mut *mut mx_model) -> *mut mx_status;
    pub fn mx_model_modules_json(model: *const mx_model, options_json: *const c_char, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_render(model: *const mx_model, format: *const c_char, options_json: *const c_char, out_text: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_model_compare(a: *const mx_model, b: *const mx_model, options_json: *const c_char, out_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
    pub fn mx_validate_file(path: *const c_char, options_json: *const c_char, out_report_json: *mut *mut c_char, out_size: *mut usize) -> *mut mx_status;
}
