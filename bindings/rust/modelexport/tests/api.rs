//! End-to-end tests of the safe API against the real library and plugins.
//! Fixtures: examples/tag_and_print_tree/testdata (see make_fixtures.py).
//! Plugins come from MODELEXPORT_PLUGIN_PATH (test.sh points it at the
//! build tree's plugins-out).
use std::path::PathBuf;

use modelexport::{Code, DType, Dim, ExportOptions, Frontend, InputSpec, Model, Registry, RegistryOptions, SaveOptions, TagOptions, TagStorage};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../examples/tag_and_print_tree/testdata").join(name)
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mx-rust-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A strategy that handles PyTorch-scoped names, if one is loaded.
fn strategy(reg: &Registry) -> String {
    let plugins = reg.plugins().unwrap();
    for want in ["scope", "names", "scoped_names"] {
        if plugins.iter().any(|p| p.is_loaded() && p.name.as_deref() == Some(want)) {
            return want.into();
        }
    }
    "auto".into()
}

#[test]
fn handles_are_send_and_sync_as_the_header_promises() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Model>();
    send_sync::<Registry>();
}

#[test]
fn version_is_reported() {
    let (major, minor, _) = modelexport::version();
    assert_eq!((major, minor), (modelexport_sys::MX_VERSION_MAJOR, modelexport_sys::MX_VERSION_MINOR));
    assert!(modelexport::version_string().starts_with(&format!("{major}.{minor}.")));
}

#[test]
fn load_from_path_and_bytes() {
    let a = Model::load_file(fixture("tiny.onnx")).unwrap();
    assert_eq!(a.node_count(), 9);
    let bytes = std::fs::read(fixture("tiny.onnx")).unwrap();
    let b = Model::load_bytes(&bytes).unwrap();
    assert_eq!(b.node_count(), 9);
    let graph = b.graph().unwrap();
    let names: Vec<_> = graph["nodes"].as_array().unwrap().iter().map(|n| n["name"].as_str().unwrap().to_owned()).collect();
    assert!(names.contains(&"/layers.0/fc/Gemm".to_owned()), "{names:?}");
    assert_eq!(b.node(0).unwrap()["op_type"], "Gemm");
    a.check().unwrap();
}

#[test]
fn errors_carry_code_and_sdk_message() {
    let e = Model::load_file("/nonexistent/dir/model.onnx").unwrap_err();
    assert_eq!(e.code, Code::Io, "{e}");
    assert!(e.message.contains("/nonexistent/dir/model.onnx"), "message: {}", e.message);
    assert!(e.to_string().starts_with("io error: "));

    let e = Model::load_bytes(b"definitely not a protobuf \xff\xff\xff").unwrap_err();
    assert_eq!(e.code, Code::Parse, "{e}");
    assert!(!e.message.is_empty());

    let m = Model::load_file(fixture("tiny.onnx")).unwrap();
    let dir = tmpdir("err");
    let e = m.save_file(dir.join("x.onnx"), &SaveOptions::new().extra("no_such_option", 1)).unwrap_err();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("no_such_option"), "{}", e.message);
}

#[test]
fn tag_then_read_tree_and_records() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    reg.tag(&mut m, &strategy(&reg), &TagOptions::new()).unwrap();
    assert!(m.has_hierarchy());
    let h = m.hierarchy().unwrap();
    assert_eq!(h.raw["schema"], "modelexport.hierarchy/1");
    let paths: Vec<_> = h.modules.iter().map(|m| m.path.as_str()).collect();
    for p in ["", "embed", "layers.0", "layers.0.fc", "layers.1.act", "head"] {
        assert!(paths.contains(&p), "module {p:?} missing from {paths:?}");
    }
    assert_eq!(h.nodes.len(), 9);
    let r = m.node_record("/layers.0/fc/Gemm").unwrap();
    assert_eq!(r.module, "layers.0.fc");
    assert!(!r.evidence.is_empty());

    let e = m.node_record("no/such/node").unwrap_err();
    assert_eq!(e.code, Code::NotFound, "{e}");
}

#[test]
fn unknown_strategy_is_an_error_with_message() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    let e = reg.tag(&mut m, "no-such-strategy", &TagOptions::new()).unwrap_err();
    assert!(matches!(e.code, Code::NotFound | Code::Plugin | Code::InvalidArgument), "{e}");
    assert!(e.message.contains("no-such-strategy"), "{}", e.message);
}

#[test]
fn save_and_reload_keep_the_hierarchy() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    reg.tag(&mut m, &strategy(&reg), &TagOptions::new()).unwrap();
    let dir = tmpdir("save");
    let out = dir.join("tiny.tagged.onnx");
    m.save_file(&out, &SaveOptions::new()).unwrap();
    assert!(dir.join("tiny.tagged.hierarchy.json").is_file(), "sidecar is <stem>.hierarchy.json");
    let back = Model::load_file(&out).unwrap();
    assert_eq!(back.node_record("/layers.1/act/Relu").unwrap().module, "layers.1.act");

    let bytes = m.save_bytes(&SaveOptions::new().tag_storage(TagStorage::DocString)).unwrap();
    let back = Model::load_bytes(&bytes).unwrap();
    assert_eq!(back.node_record("/head/Gemm").unwrap().module, "head");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn set_node_record_is_visible() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    reg.tag(&mut m, &strategy(&reg), &TagOptions::new()).unwrap();
    m.set_node_record("/Softmax", r#"{"module":"head","evidence":"propagated"}"#).unwrap();
    let r = m.node_record("/Softmax").unwrap();
    assert_eq!((r.module.as_str(), r.evidence.as_str()), ("head", "propagated"));
}

#[test]
fn model_is_readable_from_many_threads() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    reg.tag(&mut m, &strategy(&reg), &TagOptions::new()).unwrap();
    let expected = m.hierarchy_json().unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(m.hierarchy_json().unwrap(), expected);
                }
            });
        }
    });
}

#[test]
fn plugin_listing_shows_refusals_with_reasons() {
    let reg = Registry::with_options(&RegistryOptions::new().discover(false)).unwrap();
    // Not a shared library at all: refused, and the process goes on.
    let e = reg.load_plugin(fixture("tiny.onnx")).unwrap_err();
    assert_eq!(e.code, Code::Plugin, "{e}");
    assert!(!e.message.is_empty());
    let plugins = reg.plugins().unwrap();
    let refused = plugins.iter().find(|p| p.status == "refused").expect("refusal listed");
    assert!(refused.reason.as_deref().is_some_and(|r| !r.is_empty()), "{refused:?}");
    assert!(refused.path.as_deref().unwrap_or("").ends_with("tiny.onnx"));

    // Discovery lists what the build put in MODELEXPORT_PLUGIN_PATH.
    let reg = Registry::new().unwrap();
    let loaded: Vec<_> = reg.plugins().unwrap().into_iter().filter(|p| p.is_loaded()).collect();
    assert!(!loaded.is_empty(), "no plugin discovered; MODELEXPORT_PLUGIN_PATH={:?}",
            std::env::var("MODELEXPORT_PLUGIN_PATH"));
    for p in &loaded {
        assert!(p.name.is_some() && p.kind.is_some(), "{p:?}");
    }
}

fn ts_options() -> ExportOptions {
    ExportOptions::new()
        .frontend(Frontend::TorchScript)
        .input(InputSpec::new("x", DType::Float32, [Dim::dynamic("batch", 2), Dim::Fixed(4)]))
}

#[test]
fn export_torchscript_through_the_frontend() {
    let reg = Registry::new().unwrap();
    let has_frontend = reg.plugins().unwrap().iter().any(|p| p.is_loaded() && p.name.as_deref() == Some("torchscript"));
    if !has_frontend {
        // The build may have been configured without LibTorch; the error
        // path is still checked.
        let e = reg.export(fixture("tiny.pt"), &ts_options()).unwrap_err();
        assert!(e.message.contains("torchscript"), "{e}");
        eprintln!("SKIP export: torchscript plugin not loaded");
        return;
    }
    let m = reg.export(fixture("tiny.pt"), &ts_options()).unwrap();
    assert!(m.node_count() > 0);
    let h = m.hierarchy().unwrap();
    assert!(h.modules.iter().any(|m| m.path == "layers.0.fc"));
    let tree = reg.module_tree("torchscript", fixture("tiny.pt")).unwrap();
    assert!(tree.modules.iter().any(|m| m.path == "layers.1.act"));

    let e = reg.export_json("torchscript", fixture("tiny.pt"), Some(r#"{"inputs":["x:notatype[2,4]"]}"#)).unwrap_err();
    assert!(!e.message.is_empty());
}

#[test]
fn module_tree_walk_has_classes_and_counts() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    assert!(m.module_tree().unwrap().is_empty(), "untagged: no tree");
    reg.tag(&mut m, &strategy(&reg), &TagOptions::new()).unwrap();
    let tree = m.module_tree().unwrap();
    let root = tree.root().expect("a root");
    assert_eq!(root.path, "");
    assert_eq!(root.total_nodes as usize, m.node_count());
    let walked: Vec<(String, usize)> = tree.walk().into_iter().map(|(m, d)| (m.path.clone(), d)).collect();
    assert_eq!(walked.len(), tree.len());
    assert_eq!(walked[0], ("".to_owned(), 0));
    let fc = walked.iter().position(|(p, _)| p == "layers.0.fc").expect("layers.0.fc walked");
    let layer = walked.iter().position(|(p, _)| p == "layers.0").expect("layers.0 walked");
    assert!(layer < fc && walked[fc].1 == walked[layer].1 + 1, "{walked:?}");
    // Own counts add up to the node count; a parent's total is its own plus its children's.
    assert_eq!(tree.walk().iter().map(|(m, _)| m.own_nodes).sum::<u64>() as usize, m.node_count());
    for (module, _) in tree.walk() {
        let kids: u64 = tree.children(module).map(|c| c.total_nodes).sum();
        assert_eq!(module.total_nodes, module.own_nodes + kids, "{}", module.path);
    }
    let fc = tree.get("layers.0.fc").unwrap();
    assert_eq!((fc.own_nodes, fc.parent.as_deref()), (1, Some("layers.0")));
    assert_eq!(tree.walk_from(tree.get("layers.0").unwrap())[0].1, 0);
}

#[test]
fn nodes_carry_their_records() {
    let reg = Registry::new().unwrap();
    let mut m = Model::load_file(fixture("tiny.onnx")).unwrap();
    assert!(m.nodes().unwrap().iter().all(|n| n.record.is_none()));
    reg.tag(&mut m, &strategy(&reg), &TagOptions::new()).unwrap();
    let nodes = m.nodes().unwrap();
    assert_eq!(nodes.len(), m.node_count());
    let gemm = nodes.iter().find(|n| n.name == "/layers.0/fc/Gemm").unwrap();
    assert_eq!(gemm.op_type, "Gemm");
    let record = gemm.record.as_ref().expect("tagged node has a record");
    assert_eq!(record.module, "layers.0.fc");
    assert_eq!(record, &m.node_record("/layers.0/fc/Gemm").unwrap());
    assert!(nodes.iter().enumerate().all(|(i, n)| n.index == i && n.record.is_some()));
}
