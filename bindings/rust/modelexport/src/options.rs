//! Typed options: builders that serialise to the JSON objects the C API
//! takes (`options_json`), so callers never escape JSON by hand. Keys this
//! crate does not know yet go through `.extra(key, value)` (or the
//! `*_json` methods), which is how the ABI grows.
use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

/// Element type of an input spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Float32,
    Float16,
    Float64,
    Int64,
    Int32,
    Bool,
}

impl DType {
    /// The spelling input specs use: "float32", "int64", ...
    pub fn as_str(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Float16 => "float16",
            DType::Float64 => "float64",
            DType::Int64 => "int64",
            DType::Int32 => "int32",
            DType::Bool => "bool",
        }
    }
}

/// One dimension of an input: a fixed size, or a named (dynamic) one with
/// the size used to trace it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Fixed(u64),
    Dynamic { name: String, size: u64 },
}

impl Dim {
    /// A dynamic dimension: `Dim::dynamic("batch", 2)` is `batch=2`.
    pub fn dynamic(name: impl Into<String>, size: u64) -> Dim {
        Dim::Dynamic { name: name.into(), size }
    }
}

impl From<u64> for Dim {
    fn from(size: u64) -> Dim {
        Dim::Fixed(size)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Fixed(n) => write!(f, "{n}"),
            Dim::Dynamic { name, size } => write!(f, "{name}={size}"),
        }
    }
}

/// An input spec, `name:dtype[dim,...]`. Build it typed
/// (`InputSpec::new("x", DType::Float32, [Dim::dynamic("batch", 2), 4.into()])`)
/// or from the text (`InputSpec::from("x:float32[batch=2,4]")`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InputSpec(String);

impl InputSpec {
    pub fn new(name: &str, dtype: DType, dims: impl IntoIterator<Item = Dim>) -> InputSpec {
        let dims: Vec<String> = dims.into_iter().map(|d| d.to_string()).collect();
        InputSpec(format!("{name}:{}[{}]", dtype.as_str(), dims.join(",")))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for InputSpec {
    fn from(text: &str) -> InputSpec {
        InputSpec(text.to_owned())
    }
}

impl From<String> for InputSpec {
    fn from(text: String) -> InputSpec {
        InputSpec(text)
    }
}

impl fmt::Display for InputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which frontend plugin reads a source model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Frontend {
    /// Let the file's content choose.
    #[default]
    Auto,
    /// `torch.export` archives (`.pt2`); needs no LibTorch.
    TorchExport,
    /// TorchScript (`.pt`); the LibTorch plugin.
    TorchScript,
    /// Any other frontend plugin by name.
    Named(String),
}

impl Frontend {
    pub fn as_str(&self) -> &str {
        match self {
            Frontend::Auto => "auto",
            Frontend::TorchExport => "torch_export",
            Frontend::TorchScript => "torchscript",
            Frontend::Named(name) => name,
        }
    }
}

impl From<&str> for Frontend {
    fn from(name: &str) -> Frontend {
        match name {
            "auto" => Frontend::Auto,
            "torch_export" => Frontend::TorchExport,
            "torchscript" => Frontend::TorchScript,
            other => Frontend::Named(other.to_owned()),
        }
    }
}

/// Which strategy plugin tags a model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Every strategy that applies, best evidence first.
    #[default]
    Auto,
    /// PyTorch-scoped node names (`/encoder/layer.0/...`).
    Scope,
    /// Which module's weights a node consumes.
    Usage,
    /// Node metadata written by exporters (dynamo).
    Metadata,
    /// Any other strategy plugin by name.
    Named(String),
}

impl Strategy {
    pub fn as_str(&self) -> &str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Scope => "scope",
            Strategy::Usage => "usage",
            Strategy::Metadata => "metadata",
            Strategy::Named(name) => name,
        }
    }
}

impl From<&str> for Strategy {
    fn from(name: &str) -> Strategy {
        match name {
            "auto" => Strategy::Auto,
            "scope" => Strategy::Scope,
            "usage" => Strategy::Usage,
            "metadata" => Strategy::Metadata,
            other => Strategy::Named(other.to_owned()),
        }
    }
}

impl From<&String> for Strategy {
    fn from(name: &String) -> Strategy {
        Strategy::from(name.as_str())
    }
}

/// Where a saved model keeps its node records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagStorage {
    /// Node `metadata_props` (the default).
    Metadata,
    /// Node `doc_string`s.
    DocString,
    /// Not in the file (the sidecar still has them unless turned off).
    None,
}

impl TagStorage {
    pub fn as_str(self) -> &'static str {
        match self {
            TagStorage::Metadata => "metadata",
            TagStorage::DocString => "doc_string",
            TagStorage::None => "none",
        }
    }
}

/// The JSON object under construction; `None` fields are left out so the
/// SDK's defaults apply.
#[derive(Clone, Debug, Default, PartialEq)]
struct Object(Map<String, Value>);

impl Object {
    fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.0.insert(key.to_owned(), value.into());
    }
    fn json(&self) -> Option<String> {
        (!self.0.is_empty()).then(|| Value::Object(self.0.clone()).to_string())
    }
}

macro_rules! json_options {
    ($name:ident) => {
        impl $name {
            /// A key this crate has no method for (forward compatibility).
            pub fn extra(mut self, key: &str, value: impl Into<Value>) -> Self {
                self.object.set(key, value);
                self
            }
            /// The JSON object the C API receives (`None` for defaults).
            pub fn to_json(&self) -> Option<String> {
                self.object.json()
            }
        }
    };
}

/// Options of `Registry::export` (`mx_registry_export`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportOptions {
    frontend: Frontend,
    object: Object,
    inputs: Vec<InputSpec>,
}

impl ExportOptions {
    pub fn new() -> ExportOptions {
        ExportOptions::default()
    }
    /// Frontend plugin (default: chosen by the file's content).
    pub fn frontend(mut self, frontend: impl Into<Frontend>) -> Self {
        self.frontend = frontend.into();
        self
    }
    /// Adds an input spec (required for TorchScript; for `.pt2` a spec
    /// overrides sizes and names dims).
    pub fn input(mut self, spec: impl Into<InputSpec>) -> Self {
        self.inputs.push(spec.into());
        self.object.set("inputs", self.inputs.iter().map(|s| Value::from(s.as_str())).collect::<Vec<_>>());
        self
    }
    /// ONNX opset (14..28, default 18).
    pub fn opset(mut self, opset: u32) -> Self {
        self.object.set("opset", opset);
        self
    }
    /// Fused ONNX ops where the opset has them (Gelu 20+, GroupNormalization
    /// 21+, Attention and RMSNormalization 23+); default true.
    pub fn fused_ops(mut self, fused: bool) -> Self {
        self.object.set("fused_ops", fused);
        self
    }
    /// Fold an eval BatchNormalization after a Conv into the Conv's weight
    /// and bias (.pt2 frontend); default true.
    pub fn fold_batch_norms(mut self, fold: bool) -> Self {
        self.object.set("fold_batch_norms", fold);
        self
    }
    /// bf16 ops computed in float32 between Casts, for runtimes without
    /// bf16 kernels (ONNX Runtime's CPU provider); default false.
    pub fn upcast_bf16(mut self, upcast: bool) -> Self {
        self.object.set("upcast_bf16", upcast);
        self
    }
    /// Leave torch.nn built-ins out of tags.
    pub fn drop_builtin_tags(mut self, drop: bool) -> Self {
        self.object.set("drop_builtin_tags", drop);
        self
    }
    /// Stream weights to a data file instead of memory (unset: only past
    /// protobuf's 2 GB limit).
    pub fn external_data(mut self, external: bool) -> Self {
        self.object.set("external_data", external);
        self
    }
    pub fn frontend_name(&self) -> &str {
        self.frontend.as_str()
    }
}
json_options!(ExportOptions);

/// Options of `Model::save_file` / `save_bytes` (`mx_model_save_file`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SaveOptions {
    object: Object,
}

impl SaveOptions {
    pub fn new() -> SaveOptions {
        SaveOptions::default()
    }
    pub fn tag_storage(mut self, storage: TagStorage) -> Self {
        self.object.set("tag_storage", storage.as_str());
        self
    }
    /// Write `out.hierarchy.json` next to `out.onnx` (files; default true).
    pub fn sidecar(mut self, sidecar: bool) -> Self {
        self.object.set("sidecar", sidecar);
        self
    }
    /// Run the ONNX checker first (default true).
    pub fn check(mut self, check: bool) -> Self {
        self.object.set("check", check);
        self
    }
    /// Tensors of 1 KiB or more to `<file name>.data` (unset: automatic).
    pub fn external_data(mut self, external: bool) -> Self {
        self.object.set("external_data", external);
        self
    }
}
json_options!(SaveOptions);

/// Options of `Registry::tag` (`mx_registry_tag`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TagOptions {
    object: Object,
}

impl TagOptions {
    pub fn new() -> TagOptions {
        TagOptions::default()
    }
    /// A hierarchy document supplying class names.
    pub fn hierarchy(mut self, document: Value) -> Self {
        self.object.set("hierarchy", document);
        self
    }
    /// A hierarchy document's path (e.g. written by `modelexport hierarchy`).
    pub fn hierarchy_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.object.set("hierarchy", path.into().to_string_lossy().into_owned());
        self
    }
    /// Passed through to the strategy plugin.
    pub fn strategy_options(mut self, options: Value) -> Self {
        self.object.set("strategy_options", options);
        self
    }
}
json_options!(TagOptions);

/// Options of `Registry::with_options` (`mx_registry_create`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegistryOptions {
    object: Object,
    dirs: Vec<Value>,
}

impl RegistryOptions {
    pub fn new() -> RegistryOptions {
        RegistryOptions::default()
    }
    /// Scan the install's plugin directory and MODELEXPORT_PLUGIN_PATH (default true).
    pub fn discover(mut self, discover: bool) -> Self {
        self.object.set("discover", discover);
        self
    }
    /// One more directory to scan, after those.
    pub fn plugin_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dirs.push(dir.into().to_string_lossy().into_owned().into());
        self.object.set("plugin_dirs", self.dirs.clone());
        self
    }
    /// Whether strategies that can read the graph through the host do
    /// (plugin ABI 1.2, default true); false sends every strategy the
    /// graph as JSON text. Results are the same.
    pub fn graph_reader(mut self, graph_reader: bool) -> Self {
        self.object.set("graph_reader", graph_reader);
        self
    }
}
json_options!(RegistryOptions);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_render_as_the_sdk_parses_them() {
        let spec = InputSpec::new("input_ids", DType::Int64, [Dim::dynamic("batch", 2), Dim::dynamic("seq", 16)]);
        assert_eq!(spec.as_str(), "input_ids:int64[batch=2,seq=16]");
        assert_eq!(InputSpec::new("x", DType::Float32, [1.into(), 3.into()]).as_str(), "x:float32[1,3]");
    }

    #[test]
    fn options_serialise_only_what_was_set() {
        assert_eq!(ExportOptions::new().to_json(), None);
        let json = ExportOptions::new().input("x:float32[batch=2,4]").input("m:bool[2]").opset(17).to_json().unwrap();
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v, serde_json::json!({"inputs": ["x:float32[batch=2,4]", "m:bool[2]"], "opset": 17}));
        let v: Value = serde_json::from_str(&SaveOptions::new().tag_storage(TagStorage::DocString).sidecar(false)
            .extra("future_key", 1).to_json().unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"tag_storage": "doc_string", "sidecar": false, "future_key": 1}));
        let v: Value = serde_json::from_str(&RegistryOptions::new().discover(false).plugin_dir("/a \"b\"").to_json().unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"discover": false, "plugin_dirs": ["/a \"b\""]}));
        let v: Value = serde_json::from_str(&RegistryOptions::new().graph_reader(false).to_json().unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"graph_reader": false}));
    }

    #[test]
    fn names_round_trip() {
        for s in ["auto", "scope", "usage", "metadata", "my_plugin"] {
            assert_eq!(Strategy::from(s).as_str(), s);
        }
        for s in ["auto", "torch_export", "torchscript", "other"] {
            assert_eq!(Frontend::from(s).as_str(), s);
        }
    }
}
