package modelexport

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Fixtures: examples/tag_and_print_tree/testdata (make_fixtures.py).
func fixture(name string) string {
	return filepath.Join("..", "..", "examples", "tag_and_print_tree", "testdata", name)
}

func mustLoad(t *testing.T) *Model {
	t.Helper()
	m, err := LoadFile(fixture("tiny.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func mustRegistry(t *testing.T, options *RegistryOptions) *Registry {
	t.Helper()
	r, err := NewRegistry(options)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// strategy picks the scoped-name strategy if loaded, else "auto".
func strategy(t *testing.T, r *Registry) Strategy {
	ps, err := r.Plugins()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Loaded() && p.Name == "scope" {
			return StrategyScope
		}
	}
	return StrategyAuto
}

func tagged(t *testing.T) (*Registry, *Model) {
	r := mustRegistry(t, nil)
	m := mustLoad(t)
	if err := r.Tag(m, strategy(t, r), nil); err != nil {
		t.Fatal(err)
	}
	return r, m
}

func TestVersion(t *testing.T) {
	major, minor, _ := Version()
	if !strings.HasPrefix(VersionString(), "0.") || major != 0 || minor < 1 {
		t.Fatalf("version %d.%d %q", major, minor, VersionString())
	}
}

func TestLoadFileAndBytes(t *testing.T) {
	m := mustLoad(t)
	if m.NodeCount() != 9 {
		t.Fatalf("nodes = %d", m.NodeCount())
	}
	data, err := os.ReadFile(fixture("tiny.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g, err := b.GraphJSON()
	if err != nil || !strings.Contains(g, "/layers.0/fc/Gemm") {
		t.Fatalf("graph %v: %.200s", err, g)
	}
	n, err := b.NodeJSON(0)
	if err != nil || !strings.Contains(n, "Gemm") {
		t.Fatalf("node 0 %v: %s", err, n)
	}
	if err := b.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsCarrySDKMessage(t *testing.T) {
	_, err := LoadFile("/nonexistent/dir/model.onnx")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeIO || !strings.Contains(e.Message, "/nonexistent/dir/model.onnx") {
		t.Fatalf("got %#v", err)
	}
	if !strings.HasPrefix(err.Error(), "io error: ") {
		t.Fatalf("Error() = %q", err.Error())
	}
	if !errors.Is(err, &Error{Code: CodeIO}) {
		t.Fatal("errors.Is by code")
	}
	_, err = LoadBytes([]byte("definitely not a protobuf \xff\xff\xff"))
	if !errors.As(err, &e) || e.Code != CodeParse || e.Message == "" {
		t.Fatalf("got %#v", err)
	}
	_, err = LoadBytes(nil)
	if err == nil {
		t.Fatal("empty bytes accepted")
	}
	m := mustLoad(t)
	err = m.SaveFile(filepath.Join(t.TempDir(), "x.onnx"), &SaveOptions{Extra: map[string]any{"no_such_option": 1}})
	if !errors.As(err, &e) || e.Code != CodeInvalidArgument || !strings.Contains(e.Message, "no_such_option") {
		t.Fatalf("got %#v", err)
	}
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	m, err := LoadFile(fixture("tiny.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.GraphJSON(); err != ErrClosed {
		t.Fatalf("after close: %v", err)
	}
	r, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close()
	if _, err := r.Plugins(); err != ErrClosed {
		t.Fatalf("after close: %v", err)
	}
	// Unclosed handles are released by finalizers.
	for i := 0; i < 20; i++ {
		if _, err := LoadFile(fixture("tiny.onnx")); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
}

func TestTagTreeAndRecords(t *testing.T) {
	_, m := tagged(t)
	if !m.HasHierarchy() {
		t.Fatal("no hierarchy after tagging")
	}
	h, err := m.Hierarchy()
	if err != nil {
		t.Fatal(err)
	}
	if h.Schema != "modelexport.hierarchy/1" || len(h.Nodes) != 9 {
		t.Fatalf("schema %q nodes %d", h.Schema, len(h.Nodes))
	}
	paths := map[string]bool{}
	for _, mod := range h.Modules {
		paths[mod.Path] = true
	}
	for _, p := range []string{"", "embed", "layers.0", "layers.0.fc", "layers.1.act", "head"} {
		if !paths[p] {
			t.Errorf("module %q missing: %v", p, paths)
		}
	}
	rec, err := m.NodeRecord("/layers.0/fc/Gemm")
	if err != nil || rec.Module != "layers.0.fc" || rec.Evidence == "" {
		t.Fatalf("record %+v %v", rec, err)
	}
	_, err = m.NodeRecord("no/such/node")
	if !errors.Is(err, &Error{Code: CodeNotFound}) {
		t.Fatalf("missing node: %v", err)
	}
	if err := m.SetNodeRecord("/Softmax", `{"module":"head","evidence":"propagated"}`); err != nil {
		t.Fatal(err)
	}
	if rec, _ := m.NodeRecord("/Softmax"); rec.Module != "head" || rec.Evidence != "propagated" {
		t.Fatalf("set record: %+v", rec)
	}
}

func TestUnknownStrategy(t *testing.T) {
	r := mustRegistry(t, nil)
	m := mustLoad(t)
	err := r.Tag(m, "no-such-strategy", nil)
	if err == nil || !strings.Contains(err.Error(), "no-such-strategy") {
		t.Fatalf("got %v", err)
	}
}

func TestSaveAndReload(t *testing.T) {
	_, m := tagged(t)
	out := filepath.Join(t.TempDir(), "tiny.tagged.onnx")
	if err := m.SaveFile(out, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), "tiny.tagged.hierarchy.json")); err != nil {
		t.Fatalf("sidecar: %v", err)
	}
	back, err := LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if rec, err := back.NodeRecord("/layers.1/act/Relu"); err != nil || rec.Module != "layers.1.act" {
		t.Fatalf("%+v %v", rec, err)
	}
	data, err := m.SaveBytes(&SaveOptions{TagStorage: TagStorageDocString})
	if err != nil {
		t.Fatal(err)
	}
	back2, err := LoadBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	defer back2.Close()
	if rec, err := back2.NodeRecord("/head/Gemm"); err != nil || rec.Module != "head" {
		t.Fatalf("%+v %v", rec, err)
	}
}

func TestConcurrentReads(t *testing.T) {
	_, m := tagged(t)
	want, _ := m.HierarchyJSON()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if got, err := m.HierarchyJSON(); err != nil || got != want {
					t.Errorf("concurrent read: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPluginListingWithRefusals(t *testing.T) {
	r := mustRegistry(t, &RegistryOptions{Discover: Bool(false)})
	err := r.LoadPlugin(fixture("tiny.onnx")) // not a shared library
	var e *Error
	if !errors.As(err, &e) || e.Code != CodePlugin || e.Message == "" {
		t.Fatalf("got %#v", err)
	}
	ps, err := r.Plugins()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range ps {
		if p.Status == "refused" && strings.HasSuffix(p.Path, "tiny.onnx") && p.Reason != "" {
			found = true
		}
	}
	if !found {
		t.Fatalf("refusal not listed: %+v", ps)
	}
	all := mustRegistry(t, nil)
	ps, err = all.Plugins()
	if err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, p := range ps {
		if p.Loaded() {
			loaded++
		}
	}
	if loaded == 0 {
		t.Fatalf("no plugin discovered (MODELEXPORT_PLUGIN_PATH=%q): %+v", os.Getenv("MODELEXPORT_PLUGIN_PATH"), ps)
	}
}

func TestExportTorchScript(t *testing.T) {
	r := mustRegistry(t, nil)
	ps, _ := r.Plugins()
	have := false
	for _, p := range ps {
		if p.Loaded() && p.Name == "torchscript" {
			have = true
		}
	}
	opts := &ExportOptions{Frontend: FrontendTorchScript,
		Inputs: []InputSpec{{Name: "x", DType: DTypeFloat32, Dims: []Dim{Dynamic("batch", 2), Fixed(4)}}}}
	if !have {
		_, err := r.Export(fixture("tiny.pt"), opts)
		if err == nil || !strings.Contains(err.Error(), "torchscript") {
			t.Fatalf("export without the frontend: %v", err)
		}
		t.Skip("torchscript plugin not loaded (build without LibTorch)")
	}
	m, err := r.Export(fixture("tiny.pt"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h, err := m.Hierarchy()
	if err != nil || m.NodeCount() == 0 {
		t.Fatal(err)
	}
	ok := false
	for _, mod := range h.Modules {
		ok = ok || mod.Path == "layers.0.fc"
	}
	if !ok {
		t.Fatalf("layers.0.fc missing: %+v", h.Modules)
	}
	tree, err := r.ModuleTree("torchscript", fixture("tiny.pt"))
	if err != nil || len(tree.Modules) == 0 {
		t.Fatalf("module tree: %v", err)
	}
}
