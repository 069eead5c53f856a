module modelexport.local/examples/tag_and_print_tree

go 1.22

require modelexport.local/modelexport v0.0.0

replace modelexport.local/modelexport => ../../../bindings/go
