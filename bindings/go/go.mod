// A local module: consumers require it and replace it with the path of
// this directory (README.md); it is published nowhere.
module modelexport.local/modelexport

go 1.22
