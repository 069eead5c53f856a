package modelexport

// The module tree and the graph's nodes with their records, as values, so
// callers never re-walk the hierarchy document's lists. Built from the
// hierarchy document (parent/children order, classes, records) and
// mx_model_modules_json (node and parameter counts, function calls
// expanded — the numbers `modelexport inspect` prints).

// TreeModule is a module of the tree with its statistics.
type TreeModule struct {
	Path          string // named_modules() path; "" is the root
	Class         string
	Tag           string
	Parent        *string  // nil for a root
	Children      []string // paths, in the hierarchy's order
	OwnNodes      int      // nodes assigned to the module itself
	TotalNodes    int      // the module's and its descendants'
	OwnParameters int64
	Parameters    int64
}

// ModuleTree is the module tree: roots, lookup by path, a depth-first walk.
type ModuleTree struct {
	modules []*TreeModule
	byPath  map[string]*TreeModule
	roots   []*TreeModule
}

// Len is the number of modules.
func (t *ModuleTree) Len() int { return len(t.modules) }

// Get is the module at path, or nil.
func (t *ModuleTree) Get(path string) *TreeModule { return t.byPath[path] }

// Roots are the modules without a parent in the tree (normally one, "").
func (t *ModuleTree) Roots() []*TreeModule { return t.roots }

// Root is the module "" (else the first root); nil without a tree.
func (t *ModuleTree) Root() *TreeModule {
	if m := t.byPath[""]; m != nil {
		return m
	}
	if len(t.roots) > 0 {
		return t.roots[0]
	}
	return nil
}

// ChildrenOf are m's children, in the hierarchy's order.
func (t *ModuleTree) ChildrenOf(m *TreeModule) []*TreeModule {
	out := make([]*TreeModule, 0, len(m.Children))
	for _, c := range m.Children {
		if k := t.byPath[c]; k != nil {
			out = append(out, k)
		}
	}
	return out
}

// Walk calls visit for every module with its depth (roots at 0), depth
// first, pre-order; visit returning false stops the walk.
func (t *ModuleTree) Walk(visit func(m *TreeModule, depth int) bool) {
	for _, r := range t.roots {
		if !t.WalkFrom(r, visit) {
			return
		}
	}
}

// WalkFrom walks m and its descendants (m at depth 0); false if stopped.
func (t *ModuleTree) WalkFrom(m *TreeModule, visit func(m *TreeModule, depth int) bool) bool {
	type item struct {
		m     *TreeModule
		depth int
	}
	stack := []item{{m, 0}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !visit(top.m, top.depth) {
			return false
		}
		kids := t.ChildrenOf(top.m)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{kids[i], top.depth + 1})
		}
	}
	return true
}

// moduleStats is one entry of mx_model_modules_json.
type moduleStats struct {
	Path          string `json:"path"`
	Tag           string `json:"tag"`
	OwnNodes      int    `json:"own_nodes"`
	TotalNodes    int    `json:"total_nodes"`
	OwnParameters int64  `json:"own_parameters"`
	Parameters    int64  `json:"parameters"`
}

func buildTree(h *Hierarchy, stats []moduleStats) *ModuleTree {
	byStats := make(map[string]moduleStats, len(stats))
	for _, s := range stats {
		byStats[s.Path] = s
	}
	t := &ModuleTree{byPath: make(map[string]*TreeModule, len(h.Modules))}
	for _, m := range h.Modules {
		s := byStats[m.Path]
		tag := m.Tag
		if tag == "" {
			tag = s.Tag
		}
		tm := &TreeModule{Path: m.Path, Class: m.Class, Tag: tag, Parent: m.Parent,
			Children: m.Children, OwnNodes: s.OwnNodes, TotalNodes: s.TotalNodes,
			OwnParameters: s.OwnParameters, Parameters: s.Parameters}
		t.modules = append(t.modules, tm)
		t.byPath[m.Path] = tm
	}
	for _, m := range t.modules {
		if m.Parent == nil || t.byPath[*m.Parent] == nil {
			t.roots = append(t.roots, m)
		}
	}
	return t
}

// Node is one top-level graph node with its record (nil when it has none).
type Node struct {
	Index   int
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Record  *NodeRecord
}

// graphNode is one node of the graph view.
type graphNode struct {
	Name    string   `json:"name"`
	OpType  string   `json:"op_type"`
	Domain  string   `json:"domain"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
}

// recordEntry is a hierarchy record with its optional index.
type recordEntry struct {
	NodeRecord
	Index *int `json:"index"`
}

// buildNodes matches records to nodes by index (or by a unique name when a
// record has no index); a record without a tag takes its module's.
func buildNodes(nodes []graphNode, modules []Module, records []recordEntry) []Node {
	tags := make(map[string]string, len(modules))
	for _, m := range modules {
		tags[m.Path] = m.Tag
	}
	byIndex := map[int]NodeRecord{}
	byName := map[string]NodeRecord{}
	for _, r := range records {
		if r.Index != nil && *r.Index >= 0 && *r.Index < len(nodes) && nodes[*r.Index].Name == r.Name {
			byIndex[*r.Index] = r.NodeRecord
		} else if r.Name != "" {
			byName[r.Name] = r.NodeRecord
		}
	}
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		out[i] = Node{Index: i, Name: n.Name, OpType: n.OpType, Domain: n.Domain, Inputs: n.Inputs, Outputs: n.Outputs}
		r, ok := byIndex[i]
		if !ok {
			r, ok = byName[n.Name]
		}
		if ok {
			if r.Tag == "" {
				r.Tag = tags[r.Module]
			}
			r.Name = n.Name
			out[i].Record = &r
		}
	}
	return out
}
