// tag_and_print_tree in Go: load an ONNX file, tag it with a strategy
// plugin, print the module tree with node counts (format: ../README.md).
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	mx "modelexport.local/modelexport"
)

func isRoot(m mx.Module) bool { return m.Path == "" || m.Parent == nil }

type tree struct {
	own      map[string]int
	children map[string][]mx.Module
}

func (t *tree) total(path string) int {
	n := t.own[path]
	for _, k := range t.children[path] {
		n += t.total(k.Path)
	}
	return n
}

func (t *tree) print(m mx.Module, depth int) {
	name := m.Path
	if name == "" {
		name = "(root)"
	}
	fmt.Printf("%s%s [%s] nodes=%d total=%d\n", strings.Repeat("  ", depth), name, m.Class, t.own[m.Path], t.total(m.Path))
	for _, k := range t.children[m.Path] {
		t.print(k, depth+1)
	}
}

func run(path, strategy, options string) error {
	model, err := mx.LoadFile(path)
	if err != nil {
		return err
	}
	defer model.Close()
	registry, err := mx.NewRegistry(nil)
	if err != nil {
		return err
	}
	defer registry.Close()
	if err := registry.TagJSON(model, strategy, options); err != nil {
		return err
	}
	h, err := model.Hierarchy()
	if err != nil {
		return err
	}
	t := &tree{own: map[string]int{}, children: map[string][]mx.Module{}}
	for _, n := range h.Nodes {
		t.own[n.Module]++
	}
	for _, m := range h.Modules {
		if !isRoot(m) {
			t.children[*m.Parent] = append(t.children[*m.Parent], m)
		}
	}
	fmt.Printf("modules=%d nodes=%d\n", len(h.Modules), len(h.Nodes))
	for _, m := range h.Modules {
		if isRoot(m) {
			t.print(m, 0)
		}
	}
	return nil
}

func main() {
	if len(os.Args) < 3 || len(os.Args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]")
		os.Exit(2)
	}
	options := ""
	if len(os.Args) == 4 {
		options = os.Args[3]
	}
	if err := run(os.Args[1], os.Args[2], options); err != nil {
		var e *mx.Error
		if !errors.As(err, &e) {
			e = &mx.Error{Code: mx.CodeInternal, Message: err.Error()}
		}
		fmt.Fprintf(os.Stderr, "tag_and_print_tree: %s\n", e.Error())
		os.Exit(1)
	}
}
