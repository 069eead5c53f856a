//! Safe Rust API for modelexport.
//!
//! ```no_run
//! use modelexport::{Model, Registry, SaveOptions, Strategy, TagOptions};
//! let registry = Registry::new()?;                 // discovers plugins
//! let mut model = Model::load_file("bert.onnx")?;
//! registry.tag(&mut model, Strategy::Scope, &TagOptions::new())?;
//! let tree = model.module_tree()?;
//! for (m, depth) in tree.walk() {
//!     println!("{}{} [{}] {} nodes", "  ".repeat(depth), m.path, m.class, m.total_nodes);
//! }
//! model.save_file("bert.tagged.onnx", &SaveOptions::new())?; // + bert.tagged.hierarchy.json
//! # Ok::<(), modelexport::Error>(())
//! ```
//!
//! Options are typed builders ([`ExportOptions`], [`SaveOptions`],
//! [`TagOptions`], [`RegistryOptions`]) serialised to the JSON the C API
//! takes; every call also has a `*_json` twin taking that JSON directly.
//! `tag` takes (model, strategy, options) in every binding.
//!
//! Thread safety follows modelexport.h: a [`Model`] may be shared (`Sync`)
//! because every `&self` method calls a `const mx_model*` function, which
//! the header declares safe concurrently; mutation needs `&mut Model`.
//! A [`Registry`] is internally synchronised: `Send + Sync`, all `&self`.
use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_void};
use std::path::Path;
use std::ptr::{self, NonNull};

use modelexport_sys as sys;
pub use serde_json::Value;

mod options;
mod tree;
pub use options::{DType, Dim, ExportOptions, Frontend, InputSpec, RegistryOptions, SaveOptions, Strategy, TagOptions, TagStorage};
pub use tree::{ModuleTree, Node, TreeModule};

// ---------------------------------------------------------------- errors

/// Error category, mirroring `mx_code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    InvalidArgument,
    Io,
    Parse,
    Schema,
    NotFound,
    Unsupported,
    Plugin,
    Security,
    Internal,
    /// A progress callback asked to stop.
    Cancelled,
    /// A code this crate does not know (newer library).
    Other(i32),
}

impl Code {
    fn from_raw(c: sys::mx_code) -> Code {
        match c {
            sys::MX_ERR_INVALID_ARGUMENT => Code::InvalidArgument,
            sys::MX_ERR_IO => Code::Io,
            sys::MX_ERR_PARSE => Code::Parse,
            sys::MX_ERR_SCHEMA => Code::Schema,
            sys::MX_ERR_NOT_FOUND => Code::NotFound,
            sys::MX_ERR_UNSUPPORTED => Code::Unsupported,
            sys::MX_ERR_PLUGIN => Code::Plugin,
            sys::MX_ERR_SECURITY => Code::Security,
            sys::MX_ERR_INTERNAL => Code::Internal,
            sys::MX_ERR_CANCELLED => Code::Cancelled,
            other => Code::Other(other),
        }
    }
    /// The raw `mx_code` value.
    pub fn raw(self) -> i32 {
        match self {
            Code::InvalidArgument => sys::MX_ERR_INVALID_ARGUMENT,
            Code::Io => sys::MX_ERR_IO,
            Code::Parse => sys::MX_ERR_PARSE,
            Code::Schema => sys::MX_ERR_SCHEMA,
            Code::NotFound => sys::MX_ERR_NOT_FOUND,
            Code::Unsupported => sys::MX_ERR_UNSUPPORTED,
            Code::Plugin => sys::MX_ERR_PLUGIN,
            Code::Security => sys::MX_ERR_SECURITY,
            Code::Internal => sys::MX_ERR_INTERNAL,
            Code::Cancelled => sys::MX_ERR_CANCELLED,
            Code::Other(c) => c,
        }
    }
    /// The SDK's stable name: "invalid_argument", "io", ...
    pub fn name(self) -> &'static str {
        // SAFETY: mx_code_name returns static storage for every value.
        unsafe { static_str(sys::mx_code_name(self.raw())) }
    }
}

/// An error reported by the SDK (or by this crate before calling it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    /// The SDK's message, unchanged.
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} error: {}", self.code.name(), self.message)
    }
}
impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    fn local(code: Code, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }
}

/// Converts (and releases) a status returned by the C API.
fn check(status: *mut sys::mx_status) -> Result<()> {
    if status.is_null() {
        return Ok(());
    }
    // SAFETY: non-NULL status owned by us; message lives until release.
    unsafe {
        let code = Code::from_raw(sys::mx_status_code(status));
        let message = CStr::from_ptr(sys::mx_status_message(status)).to_string_lossy().into_owned();
        sys::mx_status_release(status);
        Err(Error { code, message })
    }
}

unsafe fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        ""
    } else {
        CStr::from_ptr(p).to_str().unwrap_or("")
    }
}

fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::local(Code::InvalidArgument, format!("{what} contains a NUL byte")))
}

fn cpath(p: &Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| Error::local(Code::InvalidArgument, "path contains a NUL byte"))
}

fn opt_cstring(s: Option<&str>) -> Result<Option<CString>> {
    s.map(|s| cstring(s, "options")).transpose()
}

fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

/// Takes ownership of an SDK buffer, copies it out and frees it.
unsafe fn take_bytes(p: *mut c_void, size: usize) -> Vec<u8> {
    if p.is_null() {
        return Vec::new();
    }
    let v = std::slice::from_raw_parts(p as *const u8, size).to_vec();
    sys::mx_free(p);
    v
}

/// Runs a C call that returns text through (char**, size_t*).
fn out_text(f: impl FnOnce(*mut *mut c_char, *mut usize) -> *mut sys::mx_status) -> Result<String> {
    let mut p: *mut c_char = ptr::null_mut();
    let mut n: usize = 0;
    let status = f(&mut p, &mut n);
    // SAFETY: on success p/n describe an SDK buffer we now own; on failure
    // the SDK leaves them untouched (or sets a buffer we still must free).
    let bytes = unsafe { take_bytes(p as *mut c_void, n) };
    check(status)?;
    String::from_utf8(bytes).map_err(|_| Error::local(Code::Internal, "SDK returned invalid UTF-8"))
}

fn parse_json(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| Error::local(Code::Parse, format!("invalid JSON from SDK: {e}")))
}

// ---------------------------------------------------------------- version

/// (major, minor, patch) of the library actually loaded.
pub fn version() -> (u32, u32, u32) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: three valid out pointers.
    unsafe { sys::mx_version(&mut a, &mut b, &mut c) };
    (a, b, c)
}

/// "0.1.0" — the loaded library's version.
pub fn version_string() -> &'static str {
    // SAFETY: static storage per the header.
    unsafe { static_str(sys::mx_version_string()) }
}

// ---------------------------------------------------------------- hierarchy types

/// A module of the tree (`modules[]` of the hierarchy document).
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `named_modules()` path; "" is the root.
    pub path: String,
    pub class: String,
    pub parent: Option<String>,
    pub children: Vec<String>,
    pub tag: Option<String>,
    /// The module object as the SDK wrote it (all fields).
    pub raw: Value,
}

/// A node's hierarchy record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRecord {
    pub name: String,
    pub module: String,
    pub tag: Option<String>,
    pub evidence: String,
}

/// The hierarchy document (`modelexport.hierarchy/1`).
#[derive(Clone, Debug, PartialEq)]
pub struct Hierarchy {
    pub modules: Vec<Module>,
    pub nodes: Vec<NodeRecord>,
    /// The whole document.
    pub raw: Value,
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl Module {
    fn from_value(v: &Value) -> Module {
        Module {
            path: str_field(v, "path").unwrap_or_default(),
            class: str_field(v, "class").unwrap_or_default(),
            parent: str_field(v, "parent"),
            children: v
                .get("children")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_owned)).collect())
                .unwrap_or_default(),
            tag: str_field(v, "tag"),
            raw: v.clone(),
        }
    }
}

impl NodeRecord {
    fn from_value(v: &Value, name: Option<&str>) -> NodeRecord {
        NodeRecord {
            name: str_field(v, "name").or_else(|| name.map(str::to_owned)).unwrap_or_default(),
            module: str_field(v, "module").unwrap_or_default(),
            tag: str_field(v, "tag"),
            evidence: str_field(v, "evidence").unwrap_or_default(),
        }
    }
}

impl Hierarchy {
    /// Parses a hierarchy document.
    pub fn from_json(text: &str) -> Result<Hierarchy> {
        let raw = parse_json(text)?;
        let list = |k: &str| raw.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
        Ok(Hierarchy {
            modules: list("modules").iter().map(Module::from_value).collect(),
            nodes: list("nodes").iter().map(|n| NodeRecord::from_value(n, None)).collect(),
            raw,
        })
    }
}

// ---------------------------------------------------------------- model

/// An ONNX model in memory plus its hierarchy. Released on drop.
pub struct Model {
    raw: NonNull<sys::mx_model>,
}

// SAFETY: per modelexport.h, different models may be used from different
// threads, and concurrent calls on `const mx_model*` are safe. Every `&self`
// method below calls only const functions; mutating ones take `&mut self`.
unsafe impl Send for Model {}
unsafe impl Sync for Model {}

impl Model {
    fn from_out(status: *mut sys::mx_status, out: *mut sys::mx_model) -> Result<Model> {
        check(status)?;
        NonNull::new(out)
            .map(|raw| Model { raw })
            .ok_or_else(|| Error::local(Code::Internal, "SDK returned success without a model"))
    }

    /// Loads an ONNX file (and any hierarchy it or its sidecar carries).
    pub fn load_file(path: impl AsRef<Path>) -> Result<Model> {
        let p = cpath(path.as_ref())?;
        let mut out = ptr::null_mut();
        // SAFETY: valid C string and out pointer.
        let st = unsafe { sys::mx_model_load_file(p.as_ptr(), &mut out) };
        Model::from_out(st, out)
    }

    /// Loads a serialized ONNX `ModelProto`.
    pub fn load_bytes(data: &[u8]) -> Result<Model> {
        let mut out = ptr::null_mut();
        // SAFETY: slice pointer and length are valid for the call.
        let st = unsafe { sys::mx_model_load_bytes(data.as_ptr() as *const c_void, data.len(), &mut out) };
        Model::from_out(st, out)
    }

    /// The raw handle (still owned by `self`).
    pub fn as_ptr(&self) -> *const sys::mx_model {
        self.raw.as_ptr()
    }

    /// Saves to a file (atomically); the sidecar of `out.onnx` is
    /// `out.hierarchy.json`.
    pub fn save_file(&self, path: impl AsRef<Path>, options: &SaveOptions) -> Result<()> {
        self.save_file_json(path, options.to_json().as_deref())
    }

    /// [`Model::save_file`] with the JSON of `mx_model_save_file`.
    pub fn save_file_json(&self, path: impl AsRef<Path>, options: Option<&str>) -> Result<()> {
        let p = cpath(path.as_ref())?;
        let o = opt_cstring(options)?;
        // SAFETY: valid handle and strings.
        check(unsafe { sys::mx_model_save_file(self.raw.as_ptr(), p.as_ptr(), opt_ptr(&o)) })
    }

    /// Serializes the model (with its hierarchy as `options` say).
    pub fn save_bytes(&self, options: &SaveOptions) -> Result<Vec<u8>> {
        self.save_bytes_json(options.to_json().as_deref())
    }

    /// [`Model::save_bytes`] with the JSON of `mx_model_save_bytes`.
    pub fn save_bytes_json(&self, options: Option<&str>) -> Result<Vec<u8>> {
        let o = opt_cstring(options)?;
        let mut p: *mut c_void = ptr::null_mut();
        let mut n = 0usize;
        // SAFETY: valid handle and out pointers; the buffer is ours after.
        let st = unsafe { sys::mx_model_save_bytes(self.raw.as_ptr(), opt_ptr(&o), &mut p, &mut n) };
        let bytes = unsafe { take_bytes(p, n) };
        check(st)?;
        Ok(bytes)
    }

    /// Graph view as JSON text.
    pub fn graph_json(&self) -> Result<String> {
        out_text(|p, n| unsafe { sys::mx_model_graph_json(self.raw.as_ptr(), p, n) })
    }

    /// Graph view, parsed.
    pub fn graph(&self) -> Result<Value> {
        parse_json(&self.graph_json()?)
    }

    pub fn node_count(&self) -> usize {
        // SAFETY: valid handle.
        unsafe { sys::mx_model_node_count(self.raw.as_ptr()) }
    }

    /// One node of the graph view, parsed.
    pub fn node(&self, index: usize) -> Result<Value> {
        parse_json(&out_text(|p, n| unsafe { sys::mx_model_node_json(self.raw.as_ptr(), index, p, n) })?)
    }

    /// Runs the ONNX checker.
    pub fn check(&self) -> Result<()> {
        check(unsafe { sys::mx_model_check(self.raw.as_ptr()) })
    }

    /// A node's hierarchy record as JSON text.
    pub fn node_record_json(&self, node_name: &str) -> Result<String> {
        let name = cstring(node_name, "node name")?;
        out_text(|p, n| unsafe { sys::mx_model_node_record(self.raw.as_ptr(), name.as_ptr(), p, n) })
    }

    /// A node's hierarchy record (`Code::NotFound` if it has none).
    pub fn node_record(&self, node_name: &str) -> Result<NodeRecord> {
        let v = parse_json(&self.node_record_json(node_name)?)?;
        Ok(NodeRecord::from_value(&v, Some(node_name)))
    }

    /// Sets a node's record from JSON (`{"module":…,"evidence":…}`).
    pub fn set_node_record(&mut self, node_name: &str, record_json: &str) -> Result<()> {
        let name = cstring(node_name, "node name")?;
        // SAFETY: exclusive access through &mut self; pointer+length valid.
        check(unsafe {
            sys::mx_model_set_node_record(self.raw.as_ptr(), name.as_ptr(),
                                          record_json.as_ptr() as *const c_char, record_json.len())
        })
    }

    /// The hierarchy document as JSON text.
    pub fn hierarchy_json(&self) -> Result<String> {
        out_text(|p, n| unsafe { sys::mx_model_hierarchy_json(self.raw.as_ptr(), p, n) })
    }

    /// The hierarchy document: module tree, node records, statistics.
    pub fn hierarchy(&self) -> Result<Hierarchy> {
        Hierarchy::from_json(&self.hierarchy_json()?)
    }

    /// Replaces the hierarchy (validated by the SDK).
    pub fn set_hierarchy_json(&mut self, json: &str) -> Result<()> {
        // SAFETY: exclusive access; pointer+length valid.
        check(unsafe { sys::mx_model_set_hierarchy_json(self.raw.as_ptr(), json.as_ptr() as *const c_char, json.len()) })
    }

    pub fn has_hierarchy(&self) -> bool {
        unsafe { sys::mx_model_has_hierarchy(self.raw.as_ptr()) != 0 }
    }

    /// Per-module statistics as JSON text (`mx_model_modules_json`).
    pub fn modules_json(&self) -> Result<String> {
        out_text(|p, n| unsafe { sys::mx_model_modules_json(self.raw.as_ptr(), ptr::null(), p, n) })
    }

    /// The module tree with classes and node counts; empty for a model
    /// without a tree.
    pub fn module_tree(&self) -> Result<ModuleTree> {
        let hierarchy = parse_json(&self.hierarchy_json()?)?;
        let has_modules = hierarchy.get("modules").and_then(Value::as_array).is_some_and(|m| !m.is_empty());
        let statistics = if has_modules { parse_json(&self.modules_json()?)? } else { Value::Null };
        Ok(ModuleTree::build(&hierarchy, &statistics))
    }

    /// Every top-level node (index, name, op type, inputs, outputs) with its
    /// record, in graph order.
    pub fn nodes(&self) -> Result<Vec<Node>> {
        let graph = self.graph()?;
        let hierarchy = parse_json(&self.hierarchy_json()?)?;
        Ok(tree::build_nodes(&graph, &hierarchy))
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: we own the handle; released exactly once.
        unsafe { sys::mx_model_release(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model").field("nodes", &self.node_count()).finish()
    }
}

// ---------------------------------------------------------------- registry

/// One entry of the plugin listing (loaded or refused).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginInfo {
    pub name: Option<String>,
    pub kind: Option<String>,
    pub version: Option<String>,
    pub description: Option<String>,
    pub path: Option<String>,
    pub abi: Option<String>,
    /// "loaded" or "refused".
    pub status: String,
    /// Why a plugin was refused.
    pub reason: Option<String>,
}

impl PluginInfo {
    pub fn is_loaded(&self) -> bool {
        self.status == "loaded"
    }
}

/// The plugin registry: discovers and runs frontends and strategies.
pub struct Registry {
    raw: NonNull<sys::mx_registry>,
}

// SAFETY: modelexport.h: "safe to share between threads once created;
// loading a plugin and running plugins are internally synchronised".
unsafe impl Send for Registry {}
unsafe impl Sync for Registry {}

impl Registry {
    /// Default registry: the install's plugin directory and MODELEXPORT_PLUGIN_PATH.
    pub fn new() -> Result<Registry> {
        Registry::with_options_json(None)
    }

    /// A registry with typed options (discovery, extra plugin directories).
    pub fn with_options(options: &RegistryOptions) -> Result<Registry> {
        Registry::with_options_json(options.to_json().as_deref())
    }

    /// `options`: JSON of `mx_registry_create` (`discover`, `plugin_dirs`).
    pub fn with_options_json(options: Option<&str>) -> Result<Registry> {
        let o = opt_cstring(options)?;
        let mut out = ptr::null_mut();
        check(unsafe { sys::mx_registry_create(opt_ptr(&o), &mut out) })?;
        NonNull::new(out)
            .map(|raw| Registry { raw })
            .ok_or_else(|| Error::local(Code::Internal, "SDK returned success without a registry"))
    }

    /// Loads one plugin library; a refusal is `Code::Plugin` with the reason.
    pub fn load_plugin(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = cpath(path.as_ref())?;
        // SAFETY: the header documents plugin loading as internally
        // synchronised, so a shared reference suffices.
        check(unsafe { sys::mx_registry_load_plugin(self.raw.as_ptr(), p.as_ptr()) })
    }

    /// The listing as JSON text.
    pub fn plugins_json(&self) -> Result<String> {
        out_text(|p, n| unsafe { sys::mx_registry_plugins_json(self.raw.as_ptr(), p, n) })
    }

    /// Loaded and refused plugins.
    pub fn plugins(&self) -> Result<Vec<PluginInfo>> {
        let v = parse_json(&self.plugins_json()?)?;
        let list = v.get("plugins").and_then(Value::as_array).cloned().unwrap_or_default();
        Ok(list
            .iter()
            .map(|p| PluginInfo {
                name: str_field(p, "name"),
                kind: str_field(p, "kind"),
                version: str_field(p, "version"),
                description: str_field(p, "description"),
                path: str_field(p, "path"),
                abi: str_field(p, "abi"),
                status: str_field(p, "status").unwrap_or_default(),
                reason: str_field(p, "reason"),
            })
            .collect())
    }

    /// Runs a strategy (or [`Strategy::Auto`]) and the core's propagation
    /// on `model`, replacing its hierarchy.
    pub fn tag(&self, model: &mut Model, strategy: impl Into<Strategy>, options: &TagOptions) -> Result<()> {
        self.tag_json(model, strategy, options.to_json().as_deref())
    }

    /// [`Registry::tag`] with the JSON of `mx_registry_tag`.
    pub fn tag_json(&self, model: &mut Model, strategy: impl Into<Strategy>, options: Option<&str>) -> Result<()> {
        let s = cstring(strategy.into().as_str(), "strategy")?;
        let o = opt_cstring(options)?;
        check(unsafe { sys::mx_registry_tag(self.raw.as_ptr(), s.as_ptr(), model.raw.as_ptr(), opt_ptr(&o)) })
    }

    /// Exports a source model (`.pt2` from `torch.export.save`, TorchScript
    /// `.pt`) through a frontend (`options.frontend`, default: the file's
    /// content chooses). TorchScript needs input specs.
    pub fn export(&self, model_path: impl AsRef<Path>, options: &ExportOptions) -> Result<Model> {
        self.export_json(options.frontend_name(), model_path, options.to_json().as_deref())
    }

    /// [`Registry::export`] with the JSON of `mx_registry_export`.
    pub fn export_json(&self, frontend: &str, model_path: impl AsRef<Path>, options: Option<&str>) -> Result<Model> {
        let f = cstring(frontend, "frontend")?;
        let p = cpath(model_path.as_ref())?;
        let o = opt_cstring(options)?;
        let mut out = ptr::null_mut();
        let st = unsafe { sys::mx_registry_export(self.raw.as_ptr(), f.as_ptr(), p.as_ptr(), opt_ptr(&o), &mut out) };
        Model::from_out(st, out)
    }

    /// Module tree of a source model (hierarchy document without node records).
    pub fn module_tree(&self, frontend: &str, model_path: impl AsRef<Path>) -> Result<Hierarchy> {
        let f = cstring(frontend, "frontend")?;
        let p = cpath(model_path.as_ref())?;
        let text = out_text(|o, n| unsafe { sys::mx_registry_module_tree(self.raw.as_ptr(), f.as_ptr(), p.as_ptr(), o, n) })?;
        Hierarchy::from_json(&text)
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        unsafe { sys::mx_registry_release(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}
