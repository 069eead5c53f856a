// The module tree and the graph's nodes with their records, as objects, so
// callers never re-walk the hierarchy document's lists. Built from the
// hierarchy document (parent/children order, classes, records) and
// mx_model_modules_json (node and parameter counts, function calls
// expanded — the numbers `modelexport inspect` prints).
using System;
using System.Collections.Generic;
using System.Linq;

namespace ModelExport
{
    /// <summary>A module of the tree with its statistics.</summary>
    public sealed class TreeModule
    {
        public string Path;        // "" is the root
        public string Class;
        public string Tag;
        public string Parent;      // null for a root
        public List<TreeModule> Children = new List<TreeModule>(); // the hierarchy's order
        public long OwnNodes;      // nodes assigned to the module itself
        public long TotalNodes;    // the module's and its descendants'
        public long OwnParameters;
        public long Parameters;

        /// <summary>This module and its descendants with their depth below
        /// it, depth first, pre-order.</summary>
        public IEnumerable<KeyValuePair<TreeModule, int>> Walk()
        {
            var stack = new Stack<KeyValuePair<TreeModule, int>>();
            stack.Push(new KeyValuePair<TreeModule, int>(this, 0));
            while (stack.Count > 0)
            {
                var top = stack.Pop();
                yield return top;
                for (int i = top.Key.Children.Count - 1; i >= 0; --i)
                    stack.Push(new KeyValuePair<TreeModule, int>(top.Key.Children[i], top.Value + 1));
            }
        }
    }

    /// <summary>The module tree: roots, lookup by path, a depth-first walk.</summary>
    public sealed class ModuleTree
    {
        private readonly Dictionary<string, TreeModule> byPath = new Dictionary<string, TreeModule>();
        public readonly List<TreeModule> Roots = new List<TreeModule>();

        public int Count { get { return byPath.Count; } }

        /// <summary>The module at path, or null.</summary>
        public TreeModule this[string path]
        {
            get { TreeModule m; return byPath.TryGetValue(path, out m) ? m : null; }
        }

        /// <summary>The module "" (else the first root); null without a tree.</summary>
        public TreeModule Root { get { return this[""] ?? Roots.FirstOrDefault(); } }

        /// <summary>Every module with its depth (roots at 0), depth first.</summary>
        public IEnumerable<KeyValuePair<TreeModule, int>> Walk()
        {
            return Roots.SelectMany(r => r.Walk());
        }

        internal static ModuleTree Build(Hierarchy h, Dictionary<string, object> statistics)
        {
            var stats = new Dictionary<string, Dictionary<string, object>>();
            if (statistics != null)
                foreach (var e in Json.List(statistics, "modules"))
                {
                    var o = (Dictionary<string, object>)e;
                    stats[Json.Str(o, "path") ?? ""] = o;
                }
            var tree = new ModuleTree();
            foreach (var m in h.Modules)
            {
                Dictionary<string, object> s;
                stats.TryGetValue(m.Path, out s);
                tree.byPath[m.Path] = new TreeModule {
                    Path = m.Path, Class = m.Class, Parent = m.Parent,
                    Tag = m.Tag ?? (s == null ? null : Json.Str(s, "tag")),
                    OwnNodes = Number(s, "own_nodes"), TotalNodes = Number(s, "total_nodes"),
                    OwnParameters = Number(s, "own_parameters"), Parameters = Number(s, "parameters") };
            }
            foreach (var m in h.Modules)
            {
                var tm = tree.byPath[m.Path];
                foreach (var c in m.Children)
                    if (tree.byPath.ContainsKey(c)) tm.Children.Add(tree.byPath[c]);
                if (m.Parent == null || !tree.byPath.ContainsKey(m.Parent)) tree.Roots.Add(tm);
            }
            return tree;
        }

        static long Number(Dictionary<string, object> o, string key)
        {
            object v;
            return o != null && o.TryGetValue(key, out v) && v is double ? (long)(double)v : 0;
        }
    }

    /// <summary>One top-level graph node with its record (null when it has none).</summary>
    public sealed class Node
    {
        public int Index;
        public string Name, OpType, Domain;
        public List<string> Inputs = new List<string>(), Outputs = new List<string>();
        public NodeRecord Record;

        /// <summary>Records matched by index (or by a unique name when a record
        /// has no index); a record without a tag takes its module's.</summary>
        internal static List<Node> Build(Dictionary<string, object> graph, Hierarchy h)
        {
            var tags = h.Modules.ToDictionary(m => m.Path, m => m.Tag);
            var nodes = Json.List(graph, "nodes").Cast<Dictionary<string, object>>().ToList();
            var byIndex = new Dictionary<int, NodeRecord>();
            var byName = new Dictionary<string, NodeRecord>();
            foreach (var raw in Json.List(h.Raw, "nodes"))
            {
                var o = (Dictionary<string, object>)raw;
                var r = NodeRecord.From(o, null);
                object ix;
                int i = o.TryGetValue("index", out ix) && ix is double ? (int)(double)ix : -1;
                if (i >= 0 && i < nodes.Count && (Json.Str(nodes[i], "name") ?? "") == r.Name) byIndex[i] = r;
                else if (!string.IsNullOrEmpty(r.Name)) byName[r.Name] = r;
            }
            var list = new List<Node>();
            for (int i = 0; i < nodes.Count; ++i)
            {
                var n = nodes[i];
                var node = new Node { Index = i, Name = Json.Str(n, "name") ?? "",
                                      OpType = Json.Str(n, "op_type") ?? "", Domain = Json.Str(n, "domain") ?? "" };
                foreach (var x in Json.List(n, "inputs")) node.Inputs.Add((string)x);
                foreach (var x in Json.List(n, "outputs")) node.Outputs.Add((string)x);
                NodeRecord r;
                if (byIndex.TryGetValue(i, out r) || byName.TryGetValue(node.Name, out r))
                {
                    string tag;
                    if (r.Tag == null && tags.TryGetValue(r.Module, out tag)) r.Tag = tag;
                    node.Record = r;
                }
                list.Add(node);
            }
            return list;
        }
    }
}
