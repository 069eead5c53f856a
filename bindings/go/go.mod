module github.com/modelexport/modelexport-go

go 1.22
