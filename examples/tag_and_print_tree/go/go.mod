module github.com/modelexport/modelexport-go/examples/tag_and_print_tree

go 1.22

require github.com/modelexport/modelexport-go v0.0.0

replace github.com/modelexport/modelexport-go => ../../../bindings/go
