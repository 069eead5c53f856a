//! The module tree and the graph's nodes with their records, as values, so
//! callers never re-walk the hierarchy document's lists. Built from the
//! hierarchy document (parent/children order, classes, records) and
//! `mx_model_modules_json` (node and parameter counts, function calls
//! expanded — the numbers `modelexport inspect` prints).
use std::collections::HashMap;

use serde_json::Value;

use crate::NodeRecord;

/// A module of the tree with its statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeModule {
    /// `named_modules()` path; "" is the root.
    pub path: String,
    pub class: String,
    pub tag: Option<String>,
    pub parent: Option<String>,
    /// Children's paths, in the hierarchy's order.
    pub children: Vec<String>,
    /// Nodes assigned to this module itself.
    pub own_nodes: u64,
    /// Nodes of this module and its descendants.
    pub total_nodes: u64,
    pub own_parameters: u64,
    pub parameters: u64,
}

/// The module tree: roots (normally one, path ""), lookup by path, and a
/// depth-first walk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleTree {
    modules: Vec<TreeModule>,
    by_path: HashMap<String, usize>,
    roots: Vec<usize>,
}

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

impl ModuleTree {
    /// Joins the hierarchy document's modules with `modules_json` counts.
    pub(crate) fn build(hierarchy: &Value, statistics: &Value) -> ModuleTree {
        let empty = Vec::new();
        let stats: HashMap<String, &Value> = statistics
            .get("modules")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .iter()
            .map(|m| (text(m, "path").unwrap_or_default(), m))
            .collect();
        let mut tree = ModuleTree::default();
        for m in hierarchy.get("modules").and_then(Value::as_array).unwrap_or(&empty) {
            let path = text(m, "path").unwrap_or_default();
            let s = stats.get(&path).copied().unwrap_or(&Value::Null);
            let module = TreeModule {
                class: text(m, "class").unwrap_or_default(),
                tag: text(m, "tag").or_else(|| text(s, "tag")),
                parent: text(m, "parent"),
                children: m
                    .get("children")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_owned)).collect())
                    .unwrap_or_default(),
                own_nodes: count(s, "own_nodes"),
                total_nodes: count(s, "total_nodes"),
                own_parameters: count(s, "own_parameters"),
                parameters: count(s, "parameters"),
                path,
            };
            tree.by_path.insert(module.path.clone(), tree.modules.len());
            tree.modules.push(module);
        }
        for (i, m) in tree.modules.iter().enumerate() {
            if m.parent.as_ref().map_or(true, |p| !tree.by_path.contains_key(p)) {
                tree.roots.push(i);
            }
        }
        tree
    }

    /// Number of modules.
    pub fn len(&self) -> usize {
        self.modules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.modules.is_empty()
    }

    /// The module at `path`.
    pub fn get(&self, path: &str) -> Option<&TreeModule> {
        self.by_path.get(path).map(|&i| &self.modules[i])
    }

    /// The root (path ""), else the first root; `None` without a tree.
    pub fn root(&self) -> Option<&TreeModule> {
        self.get("").or_else(|| self.roots.first().map(|&i| &self.modules[i]))
    }

    pub fn roots(&self) -> impl Iterator<Item = &TreeModule> {
        self.roots.iter().map(move |&i| &self.modules[i])
    }

    /// The children of `module`, in the hierarchy's order.
    pub fn children<'a>(&'a self, module: &'a TreeModule) -> impl Iterator<Item = &'a TreeModule> {
        module.children.iter().filter_map(move |c| self.get(c))
    }

    /// Every module with its depth (roots at 0), depth first, pre-order.
    pub fn walk(&self) -> Vec<(&TreeModule, usize)> {
        let mut out = Vec::with_capacity(self.modules.len());
        for root in self.roots() {
            self.walk_into(root, 0, &mut out);
        }
        out
    }

    /// `module` and its descendants with their depth below it.
    pub fn walk_from<'a>(&'a self, module: &'a TreeModule) -> Vec<(&'a TreeModule, usize)> {
        let mut out = Vec::new();
        self.walk_into(module, 0, &mut out);
        out
    }

    fn walk_into<'a>(&'a self, module: &'a TreeModule, depth: usize, out: &mut Vec<(&'a TreeModule, usize)>) {
        // An explicit stack: trees from converters can be deep.
        let mut stack = vec![(module, depth)];
        while let Some((m, d)) = stack.pop() {
            out.push((m, d));
            let kids: Vec<_> = self.children(m).collect();
            stack.extend(kids.into_iter().rev().map(|k| (k, d + 1)));
        }
    }
}

/// One top-level graph node with its record (`None` when it has none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub index: usize,
    pub name: String,
    pub op_type: String,
    pub domain: String,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub record: Option<NodeRecord>,
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|s| s.as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

/// The graph view's nodes, each with its record from the hierarchy
/// document (matched by `index`, or by a unique name when a record has no
/// index); a record without `tag` takes its module's.
pub(crate) fn build_nodes(graph: &Value, hierarchy: &Value) -> Vec<Node> {
    let empty = Vec::new();
    let nodes = graph.get("nodes").and_then(Value::as_array).unwrap_or(&empty);
    let modules = hierarchy.get("modules").and_then(Value::as_array).unwrap_or(&empty);
    let tags: HashMap<String, Option<String>> =
        modules.iter().map(|m| (text(m, "path").unwrap_or_default(), text(m, "tag"))).collect();
    let mut by_index: HashMap<usize, &Value> = HashMap::new();
    let mut by_name: HashMap<String, &Value> = HashMap::new();
    for r in hierarchy.get("nodes").and_then(Value::as_array).unwrap_or(&empty) {
        let name = text(r, "name").unwrap_or_default();
        let index = r.get("index").and_then(Value::as_u64).map(|i| i as usize);
        match index {
            Some(i) if i < nodes.len() && text(&nodes[i], "name").unwrap_or_default() == name => {
                by_index.insert(i, r);
            }
            _ if !name.is_empty() => {
                by_name.insert(name, r);
            }
            _ => {}
        }
    }
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let name = text(n, "name").unwrap_or_default();
            let record = by_index.get(&i).or_else(|| by_name.get(&name)).map(|r| {
                let module = text(r, "module").unwrap_or_default();
                NodeRecord {
                    name: name.clone(),
                    tag: text(r, "tag").or_else(|| tags.get(&module).cloned().flatten()),
                    evidence: text(r, "evidence").unwrap_or_default(),
                    module,
                }
            });
            Node {
                index: i,
                op_type: text(n, "op_type").unwrap_or_default(),
                domain: text(n, "domain").unwrap_or_default(),
                inputs: strings(n, "inputs"),
                outputs: strings(n, "outputs"),
                record,
                name,
            }
        })
        .collect()
}
