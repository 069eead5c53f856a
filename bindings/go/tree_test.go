package modelexport

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestOptionsSerialiseOnlyWhatIsSet(t *testing.T) {
	cases := []struct {
		options interface{ JSON() (string, error) }
		want    string
	}{
		{&ExportOptions{}, ""},
		{(*SaveOptions)(nil), ""},
		{&ExportOptions{Frontend: FrontendTorchScript, Opset: 17, Inputs: []InputSpec{
			{Name: "input_ids", DType: DTypeInt64, Dims: []Dim{Dynamic("batch", 2), Dynamic("seq", 16)}},
			Spec("mask:bool[2,16]")}},
			`{"inputs":["input_ids:int64[batch=2,seq=16]","mask:bool[2,16]"],"opset":17}`},
		{&SaveOptions{TagStorage: TagStorageDocString, Sidecar: Bool(false), Extra: map[string]any{"future": 1}},
			`{"future":1,"sidecar":false,"tag_storage":"doc_string"}`},
		{&TagOptions{StrategyOptions: map[string]any{"pattern": `^"x"/`}},
			`{"strategy_options":{"pattern":"^\"x\"/"}}`},
		{&RegistryOptions{Discover: Bool(false), PluginDirs: []string{"/a b"}},
			`{"discover":false,"plugin_dirs":["/a b"]}`},
		{&RegistryOptions{GraphReader: Bool(false)}, `{"graph_reader":false}`},
	}
	for i, c := range cases {
		got, err := c.options.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" || got == "" {
			if got != c.want {
				t.Errorf("case %d: got %q, want %q", i, got, c.want)
			}
			continue
		}
		var a, b any
		_ = json.Unmarshal([]byte(got), &a)
		_ = json.Unmarshal([]byte(c.want), &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("case %d: got %s, want %s", i, got, c.want)
		}
	}
}

func TestModuleTreeWalk(t *testing.T) {
	m := mustLoad(t)
	if tree, err := m.ModuleTree(); err != nil || tree.Len() != 0 || tree.Root() != nil {
		t.Fatalf("untagged model: %v %v", tree, err)
	}
	_, m = tagged(t)
	tree, err := m.ModuleTree()
	if err != nil {
		t.Fatal(err)
	}
	root := tree.Root()
	if root == nil || root.Path != "" || root.TotalNodes != m.NodeCount() {
		t.Fatalf("root %+v, %d nodes", root, m.NodeCount())
	}
	var walked []string
	depths := map[string]int{}
	own := 0
	tree.Walk(func(mod *TreeModule, depth int) bool {
		walked = append(walked, mod.Path)
		depths[mod.Path] = depth
		own += mod.OwnNodes
		kids := 0
		for _, k := range tree.ChildrenOf(mod) {
			kids += k.TotalNodes
		}
		if mod.TotalNodes != mod.OwnNodes+kids {
			t.Errorf("%q: total %d != own %d + children %d", mod.Path, mod.TotalNodes, mod.OwnNodes, kids)
		}
		return true
	})
	if len(walked) != tree.Len() || walked[0] != "" || own != m.NodeCount() {
		t.Fatalf("walk %v (own %d of %d nodes)", walked, own, m.NodeCount())
	}
	if depths["layers.0.fc"] != depths["layers.0"]+1 {
		t.Fatalf("depths %v", depths)
	}
	fc := tree.Get("layers.0.fc")
	if fc == nil || fc.OwnNodes != 1 || fc.Parent == nil || *fc.Parent != "layers.0" || fc.Tag == "" {
		t.Fatalf("layers.0.fc: %+v", fc)
	}
	stopped := 0
	tree.Walk(func(*TreeModule, int) bool { stopped++; return stopped < 2 })
	if stopped != 2 {
		t.Fatalf("walk did not stop: %d", stopped)
	}
}

func TestNodesCarryRecords(t *testing.T) {
	m := mustLoad(t)
	nodes, err := m.Nodes()
	if err != nil || len(nodes) != m.NodeCount() || nodes[0].Record != nil {
		t.Fatalf("untagged nodes: %v %+v", err, nodes)
	}
	_, m = tagged(t)
	nodes, err = m.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if n.Index != i || n.Record == nil {
			t.Fatalf("node %d: %+v", i, n)
		}
		if n.Name == "/layers.0/fc/Gemm" {
			want, _ := m.NodeRecord(n.Name)
			if n.OpType != "Gemm" || *n.Record != want {
				t.Fatalf("%+v: record %+v, want %+v", n, *n.Record, want)
			}
		}
	}
}
