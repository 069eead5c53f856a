//! tag_and_print_tree in Rust: load an ONNX file, tag it with a strategy
//! plugin, print the module tree with node counts (format: ../README.md).
use std::collections::HashMap;
use std::process::ExitCode;

use modelexport::{Hierarchy, Model, Module, Registry};

struct Tree<'a> {
    own: HashMap<&'a str, usize>,
    children: HashMap<&'a str, Vec<&'a Module>>,
}

impl<'a> Tree<'a> {
    fn new(h: &'a Hierarchy) -> Self {
        let mut own = HashMap::new();
        for n in &h.nodes {
            *own.entry(n.module.as_str()).or_insert(0) += 1;
        }
        let mut children: HashMap<&str, Vec<&Module>> = HashMap::new();
        for m in h.modules.iter().filter(|m| !is_root(m)) {
            children.entry(m.parent.as_deref().unwrap_or("")).or_default().push(m);
        }
        Tree { own, children }
    }
    fn kids(&self, path: &str) -> &[&'a Module] {
        self.children.get(path).map_or(&[], |v| v.as_slice())
    }
    fn own(&self, path: &str) -> usize {
        self.own.get(path).copied().unwrap_or(0)
    }
    fn total(&self, path: &str) -> usize {
        self.own(path) + self.kids(path).iter().map(|k| self.total(&k.path)).sum::<usize>()
    }
    fn print(&self, m: &Module, depth: usize) {
        let name = if m.path.is_empty() { "(root)" } else { &m.path };
        println!("{}{} [{}] nodes={} total={}", "  ".repeat(depth), name, m.class, self.own(&m.path), self.total(&m.path));
        for k in self.kids(&m.path) {
            self.print(k, depth + 1);
        }
    }
}

fn is_root(m: &Module) -> bool {
    m.path.is_empty() || m.parent.is_none()
}

fn run(path: &str, strategy: &str, options: Option<&str>) -> modelexport::Result<()> {
    let mut model = Model::load_file(path)?;
    let registry = Registry::new()?;
    registry.tag_json(&mut model, strategy, options)?;
    let h = model.hierarchy()?;
    println!("modules={} nodes={}", h.modules.len(), h.nodes.len());
    let tree = Tree::new(&h);
    for m in h.modules.iter().filter(|m| is_root(m)) {
        tree.print(m, 0);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if !(3..=4).contains(&args.len()) {
        eprintln!("usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]");
        return ExitCode::from(2);
    }
    match run(&args[1], &args[2], args.get(3).map(String::as_str)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tag_and_print_tree: {e}");
            ExitCode::from(1)
        }
    }
}
