// The program test.sh builds in a fresh module (the README's install path:
// require + replace + go mod tidy): tag a model, walk its module tree, list
// node records, save. Usage: tagger MODEL.onnx OUT.onnx
package main

import (
	"fmt"
	"log"
	"os"
	"strings"

	mx "modelexport.local/modelexport"
)

func main() {
	registry, err := mx.NewRegistry(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer registry.Close()
	model, err := mx.LoadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	if err := registry.Tag(model, mx.StrategyScope, nil); err != nil {
		log.Fatal(err)
	}
	tree, err := model.ModuleTree()
	if err != nil {
		log.Fatal(err)
	}
	tree.Walk(func(m *mx.TreeModule, depth int) bool {
		name := m.Path
		if name == "" {
			name = "(root)"
		}
		fmt.Printf("%s%s [%s] nodes=%d total=%d\n", strings.Repeat("  ", depth), name, m.Class, m.OwnNodes, m.TotalNodes)
		return true
	})
	nodes, err := model.Nodes()
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range nodes {
		if n.Record == nil {
			log.Fatalf("node %q has no record", n.Name)
		}
	}
	if err := model.SaveFile(os.Args[2], &mx.SaveOptions{TagStorage: mx.TagStorageMetadata}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("library %s via pkg-config: %d nodes tagged\n", mx.VersionString(), len(nodes))
}
