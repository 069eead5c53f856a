//! The program test.sh builds in a fresh `cargo new` project (README's
//! install path): tag a model, walk its module tree, list node records,
//! save. Usage: tagger MODEL.onnx OUT.onnx
use modelexport::{Model, Registry, SaveOptions, Strategy, TagOptions};

fn main() -> modelexport::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let registry = Registry::new()?;
    let mut model = Model::load_file(&args[1])?;
    registry.tag(&mut model, Strategy::Scope, &TagOptions::new())?;
    let tree = model.module_tree()?;
    for (module, depth) in tree.walk() {
        let name = if module.path.is_empty() { "(root)" } else { &module.path };
        println!("{}{name} [{}] nodes={} total={}", "  ".repeat(depth), module.class, module.own_nodes, module.total_nodes);
    }
    let nodes = model.nodes()?;
    assert!(nodes.iter().all(|n| n.record.is_some()), "every node tagged");
    assert_eq!(tree.root().map(|r| r.total_nodes as usize), Some(nodes.len()));
    model.save_file(&args[2], &SaveOptions::new())?;
    println!("library {} via pkg-config: {} nodes tagged", modelexport::version_string(), nodes.len());
    Ok(())
}
