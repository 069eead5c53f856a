// Package modelexport is the Go binding of the modelexport C API
// (modelexport/modelexport.h): load ONNX models, tag them with the PyTorch
// module hierarchy through strategy plugins, export TorchScript models
// through the frontend plugin, and read or save the hierarchy.
//
// Handles have an explicit Close (safe to call more than once); a finalizer
// releases what was not closed. Errors from the SDK are *Error values with
// the SDK's code and message.
//
// Thread safety: the header allows concurrent read-only calls on a model and
// requires exclusive access for mutation; Model enforces that with a
// read/write lock, so a *Model may be shared between goroutines. A Registry
// is internally synchronised by the SDK.
//
// Options are typed (ExportOptions, SaveOptions, TagOptions,
// RegistryOptions) and serialised to the JSON the C API takes; every call
// also has a *JSON twin taking that JSON. Tag takes (model, strategy,
// options) in every binding.
//
// Build: the header and library are found with pkg-config (modelexport.pc,
// installed by the SDK; PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for another
// prefix, <build>/pkgconfig for a build tree).
package modelexport

/*
#cgo pkg-config: modelexport
#include <stdlib.h>
#include "modelexport/modelexport.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Code is the category of an SDK error (mx_code).
type Code int

const (
	CodeOK              Code = C.MX_OK
	CodeInvalidArgument Code = C.MX_ERR_INVALID_ARGUMENT
	CodeIO              Code = C.MX_ERR_IO
	CodeParse           Code = C.MX_ERR_PARSE
	CodeSchema          Code = C.MX_ERR_SCHEMA
	CodeNotFound        Code = C.MX_ERR_NOT_FOUND
	CodeUnsupported     Code = C.MX_ERR_UNSUPPORTED
	CodePlugin          Code = C.MX_ERR_PLUGIN
	CodeSecurity        Code = C.MX_ERR_SECURITY
	CodeInternal        Code = C.MX_ERR_INTERNAL
	CodeCancelled       Code = C.MX_ERR_CANCELLED
)

// String is the SDK's stable name: "invalid_argument", "io", ...
func (c Code) String() string { return C.GoString(C.mx_code_name(C.mx_code(c))) }

// Error is a failure reported by the SDK.
type Error struct {
	Code    Code
	Message string // the SDK's message, unchanged
}

func (e *Error) Error() string { return e.Code.String() + " error: " + e.Message }

// Is makes errors.Is(err, &Error{Code: CodeNotFound}) match by code.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code && t.Message == ""
}

// ErrClosed is returned when a closed handle is used.
var ErrClosed = &Error{Code: CodeInvalidArgument, Message: "handle is closed"}

// statusErr converts (and releases) an mx_status.
func statusErr(st *C.mx_status) error {
	if st == nil {
		return nil
	}
	defer C.mx_status_release(st)
	return &Error{Code: Code(C.mx_status_code(st)), Message: C.GoString(C.mx_status_message(st))}
}

// takeText copies an SDK buffer into a Go string and frees it.
func takeText(p *C.char, n C.size_t) string {
	if p == nil {
		return ""
	}
	defer C.mx_free(unsafe.Pointer(p))
	return C.GoStringN(p, C.int(n))
}

// cstr returns a C copy of s (NULL for "" when nullable) and its free func.
func cstr(s string, nullable bool) (*C.char, func()) {
	if nullable && s == "" {
		return nil, func() {}
	}
	p := C.CString(s)
	return p, func() { C.free(unsafe.Pointer(p)) }
}

// Version of the library actually loaded.
func Version() (major, minor, patch uint32) {
	var a, b, c C.uint32_t
	C.mx_version(&a, &b, &c)
	return uint32(a), uint32(b), uint32(c)
}

// VersionString of the loaded library, e.g. "0.1.0".
func VersionString() string { return C.GoString(C.mx_version_string()) }

// ------------------------------------------------------------------ hierarchy types

// Module is one entry of the module tree.
type Module struct {
	Path           string   `json:"path"`
	Class          string   `json:"class"`
	QualifiedClass string   `json:"qualified_class,omitempty"`
	Parent         *string  `json:"parent"`
	Children       []string `json:"children,omitempty"`
	Tag            string   `json:"tag,omitempty"`
	Parameters     int64    `json:"parameters,omitempty"`
	Executed       bool     `json:"executed,omitempty"`
}

// NodeRecord is a node's hierarchy record.
type NodeRecord struct {
	Name     string `json:"name"`
	Module   string `json:"module"`
	Tag      string `json:"tag,omitempty"`
	Evidence string `json:"evidence"`
}

// Hierarchy is the hierarchy document (schema modelexport.hierarchy/1).
type Hierarchy struct {
	Schema     string          `json:"schema"`
	Modules    []Module        `json:"modules"`
	Nodes      []NodeRecord    `json:"nodes"`
	Statistics json.RawMessage `json:"statistics,omitempty"`
}

// PluginInfo is one entry of the plugin listing, loaded or refused.
type PluginInfo struct {
	Name        string `json:"name,omitempty"`
	Kind        string `json:"kind,omitempty"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Path        string `json:"path,omitempty"`
	ABI         string `json:"abi,omitempty"`
	Status      string `json:"status"` // "loaded" or "refused"
	Reason      string `json:"reason,omitempty"`
}

// Loaded reports whether the plugin was accepted.
func (p PluginInfo) Loaded() bool { return p.Status == "loaded" }

func decode(text string, v any) error {
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return &Error{Code: CodeParse, Message: fmt.Sprintf("invalid JSON from SDK: %v", err)}
	}
	return nil
}

// ------------------------------------------------------------------ model

// Model is an ONNX model in memory plus its hierarchy.
type Model struct {
	mu  sync.RWMutex
	ptr *C.mx_model
}

func newModel(p *C.mx_model) *Model {
	m := &Model{ptr: p}
	runtime.SetFinalizer(m, (*Model).Close)
	return m
}

// LoadFile reads an ONNX file and any hierarchy it (or its sidecar) carries.
func LoadFile(path string) (*Model, error) {
	cp, free := cstr(path, false)
	defer free()
	var out *C.mx_model
	if err := statusErr(C.mx_model_load_file(cp, &out)); err != nil {
		return nil, err
	}
	return newModel(out), nil
}

// LoadBytes reads a serialized ONNX ModelProto.
func LoadBytes(data []byte) (*Model, error) {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	var out *C.mx_model
	err := statusErr(C.mx_model_load_bytes(p, C.size_t(len(data)), &out))
	runtime.KeepAlive(data)
	if err != nil {
		return nil, err
	}
	return newModel(out), nil
}

// Close releases the model; later calls return ErrClosed. Safe to call twice.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ptr != nil {
		C.mx_model_release(m.ptr)
		m.ptr = nil
		runtime.SetFinalizer(m, nil)
	}
	return nil
}

// read runs f with the handle under the read lock.
func (m *Model) read(f func(p *C.mx_model) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.ptr == nil {
		return ErrClosed
	}
	err := f(m.ptr)
	runtime.KeepAlive(m)
	return err
}

// write runs f with the handle under the exclusive lock.
func (m *Model) write(f func(p *C.mx_model) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ptr == nil {
		return ErrClosed
	}
	err := f(m.ptr)
	runtime.KeepAlive(m)
	return err
}

func (m *Model) text(f func(p *C.mx_model, out **C.char, n *C.size_t) *C.mx_status) (string, error) {
	var s string
	err := m.read(func(p *C.mx_model) error {
		var out *C.char
		var n C.size_t
		st := f(p, &out, &n)
		s = takeText(out, n)
		return statusErr(st)
	})
	return s, err
}

// SaveFile writes the model atomically; the sidecar of out.onnx is
// out.hierarchy.json. nil options: the SDK's defaults.
func (m *Model) SaveFile(path string, options *SaveOptions) error {
	o, err := options.JSON()
	if err != nil {
		return err
	}
	return m.SaveFileJSON(path, o)
}

// SaveFileJSON is SaveFile with the JSON of mx_model_save_file ("" for defaults).
func (m *Model) SaveFileJSON(path, options string) error {
	cp, f1 := cstr(path, false)
	defer f1()
	co, f2 := cstr(options, true)
	defer f2()
	return m.read(func(p *C.mx_model) error { return statusErr(C.mx_model_save_file(p, cp, co)) })
}

// SaveBytes serializes the model.
func (m *Model) SaveBytes(options *SaveOptions) ([]byte, error) {
	o, err := options.JSON()
	if err != nil {
		return nil, err
	}
	return m.SaveBytesJSON(o)
}

// SaveBytesJSON is SaveBytes with the JSON of mx_model_save_bytes.
func (m *Model) SaveBytesJSON(options string) ([]byte, error) {
	co, free := cstr(options, true)
	defer free()
	var b []byte
	err := m.read(func(p *C.mx_model) error {
		var out unsafe.Pointer
		var n C.size_t
		st := C.mx_model_save_bytes(p, co, &out, &n)
		if out != nil {
			b = C.GoBytes(out, C.int(n))
			C.mx_free(out)
		}
		return statusErr(st)
	})
	return b, err
}

// GraphJSON is the graph view (nodes, inputs, outputs, initializers).
func (m *Model) GraphJSON() (string, error) {
	return m.text(func(p *C.mx_model, o **C.char, n *C.size_t) *C.mx_status { return C.mx_model_graph_json(p, o, n) })
}

// NodeCount is the number of graph nodes (0 for a closed model).
func (m *Model) NodeCount() int {
	n := 0
	_ = m.read(func(p *C.mx_model) error { n = int(C.mx_model_node_count(p)); return nil })
	return n
}

// NodeJSON is one node of the graph view.
func (m *Model) NodeJSON(index int) (string, error) {
	if index < 0 {
		return "", &Error{Code: CodeInvalidArgument, Message: "negative node index"}
	}
	return m.text(func(p *C.mx_model, o **C.char, n *C.size_t) *C.mx_status {
		return C.mx_model_node_json(p, C.size_t(index), o, n)
	})
}

// Check runs the ONNX checker.
func (m *Model) Check() error {
	return m.read(func(p *C.mx_model) error { return statusErr(C.mx_model_check(p)) })
}

// NodeRecordJSON is a node's record as JSON; CodeNotFound if it has none.
func (m *Model) NodeRecordJSON(node string) (string, error) {
	cn, free := cstr(node, false)
	defer free()
	return m.text(func(p *C.mx_model, o **C.char, n *C.size_t) *C.mx_status {
		return C.mx_model_node_record(p, cn, o, n)
	})
}

// NodeRecord is a node's hierarchy record.
func (m *Model) NodeRecord(node string) (NodeRecord, error) {
	var r NodeRecord
	text, err := m.NodeRecordJSON(node)
	if err == nil {
		err = decode(text, &r)
	}
	if r.Name == "" {
		r.Name = node
	}
	return r, err
}

// SetNodeRecord replaces a node's record ({"module":…,"evidence":…}).
func (m *Model) SetNodeRecord(node, recordJSON string) error {
	cn, f1 := cstr(node, false)
	defer f1()
	cr, f2 := cstr(recordJSON, false)
	defer f2()
	return m.write(func(p *C.mx_model) error {
		return statusErr(C.mx_model_set_node_record(p, cn, cr, C.size_t(len(recordJSON))))
	})
}

// HierarchyJSON is the whole hierarchy document.
func (m *Model) HierarchyJSON() (string, error) {
	return m.text(func(p *C.mx_model, o **C.char, n *C.size_t) *C.mx_status { return C.mx_model_hierarchy_json(p, o, n) })
}

// Hierarchy is the parsed hierarchy document.
func (m *Model) Hierarchy() (*Hierarchy, error) {
	text, err := m.HierarchyJSON()
	if err != nil {
		return nil, err
	}
	var h Hierarchy
	return &h, decode(text, &h)
}

// SetHierarchyJSON replaces the hierarchy (validated by the SDK).
func (m *Model) SetHierarchyJSON(doc string) error {
	cd, free := cstr(doc, false)
	defer free()
	return m.write(func(p *C.mx_model) error {
		return statusErr(C.mx_model_set_hierarchy_json(p, cd, C.size_t(len(doc))))
	})
}

// ModulesJSON is the per-module statistics (mx_model_modules_json).
func (m *Model) ModulesJSON() (string, error) {
	return m.text(func(p *C.mx_model, o **C.char, n *C.size_t) *C.mx_status {
		return C.mx_model_modules_json(p, nil, o, n)
	})
}

// ModuleTree is the module tree with classes and node counts; empty (Len
// 0, Root nil) for a model without a tree.
func (m *Model) ModuleTree() (*ModuleTree, error) {
	h, err := m.Hierarchy()
	if err != nil {
		return nil, err
	}
	var stats struct {
		Modules []moduleStats `json:"modules"`
	}
	if len(h.Modules) > 0 {
		text, err := m.ModulesJSON()
		if err != nil {
			return nil, err
		}
		if err := decode(text, &stats); err != nil {
			return nil, err
		}
	}
	return buildTree(h, stats.Modules), nil
}

// Nodes is every top-level node (index, name, op type, inputs, outputs)
// with its record, in graph order.
func (m *Model) Nodes() ([]Node, error) {
	graphText, err := m.GraphJSON()
	if err != nil {
		return nil, err
	}
	hierText, err := m.HierarchyJSON()
	if err != nil {
		return nil, err
	}
	var graph struct {
		Nodes []graphNode `json:"nodes"`
	}
	var hier struct {
		Modules []Module      `json:"modules"`
		Nodes   []recordEntry `json:"nodes"`
	}
	if err := decode(graphText, &graph); err != nil {
		return nil, err
	}
	if err := decode(hierText, &hier); err != nil {
		return nil, err
	}
	return buildNodes(graph.Nodes, hier.Modules, hier.Nodes), nil
}

// HasHierarchy reports whether the model carries a tree or any record.
func (m *Model) HasHierarchy() bool {
	has := false
	_ = m.read(func(p *C.mx_model) error { has = C.mx_model_has_hierarchy(p) != 0; return nil })
	return has
}

// ------------------------------------------------------------------ registry

// Registry discovers and runs plugins (frontends and strategies).
type Registry struct {
	mu  sync.RWMutex // guards ptr against Close; the SDK synchronises calls
	ptr *C.mx_registry
}

// NewRegistry creates a registry; nil options: discover the install's
// plugins and MODELEXPORT_PLUGIN_PATH.
func NewRegistry(options *RegistryOptions) (*Registry, error) {
	o, err := options.JSON()
	if err != nil {
		return nil, err
	}
	return NewRegistryJSON(o)
}

// NewRegistryJSON is NewRegistry with the JSON of mx_registry_create ("" for defaults).
func NewRegistryJSON(options string) (*Registry, error) {
	co, free := cstr(options, true)
	defer free()
	var out *C.mx_registry
	if err := statusErr(C.mx_registry_create(co, &out)); err != nil {
		return nil, err
	}
	r := &Registry{ptr: out}
	runtime.SetFinalizer(r, (*Registry).Close)
	return r, nil
}

// Close releases the registry. Safe to call twice.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ptr != nil {
		C.mx_registry_release(r.ptr)
		r.ptr = nil
		runtime.SetFinalizer(r, nil)
	}
	return nil
}

func (r *Registry) use(f func(p *C.mx_registry) error) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil {
		return ErrClosed
	}
	err := f(r.ptr)
	runtime.KeepAlive(r)
	return err
}

// LoadPlugin loads one plugin library; a refusal is CodePlugin with the reason.
func (r *Registry) LoadPlugin(path string) error {
	cp, free := cstr(path, false)
	defer free()
	return r.use(func(p *C.mx_registry) error { return statusErr(C.mx_registry_load_plugin(p, cp)) })
}

// PluginsJSON is the listing as JSON.
func (r *Registry) PluginsJSON() (string, error) {
	var s string
	err := r.use(func(p *C.mx_registry) error {
		var out *C.char
		var n C.size_t
		st := C.mx_registry_plugins_json(p, &out, &n)
		s = takeText(out, n)
		return statusErr(st)
	})
	return s, err
}

// Plugins lists loaded and refused plugins.
func (r *Registry) Plugins() ([]PluginInfo, error) {
	text, err := r.PluginsJSON()
	if err != nil {
		return nil, err
	}
	var doc struct {
		Plugins []PluginInfo `json:"plugins"`
	}
	return doc.Plugins, decode(text, &doc)
}

// Tag runs a strategy plugin (or StrategyAuto) and the core's propagation
// on m, replacing its hierarchy. nil options: none.
func (r *Registry) Tag(m *Model, strategy Strategy, options *TagOptions) error {
	o, err := options.JSON()
	if err != nil {
		return err
	}
	return r.TagJSON(m, string(strategy), o)
}

// TagJSON is Tag with the JSON of mx_registry_tag ("" for none).
func (r *Registry) TagJSON(m *Model, strategy string, options string) error {
	cs, f1 := cstr(strategy, false)
	defer f1()
	co, f2 := cstr(options, true)
	defer f2()
	return r.use(func(rp *C.mx_registry) error {
		return m.write(func(mp *C.mx_model) error { return statusErr(C.mx_registry_tag(rp, cs, mp, co)) })
	})
}

// Export converts a source model (.pt2 from torch.export.save, TorchScript
// .pt) through a frontend plugin (options.Frontend; default: the file's
// content chooses). TorchScript needs options.Inputs.
func (r *Registry) Export(modelPath string, options *ExportOptions) (*Model, error) {
	o, err := options.JSON()
	if err != nil {
		return nil, err
	}
	return r.ExportJSON(options.frontend(), modelPath, o)
}

// ExportJSON is Export with the JSON of mx_registry_export.
func (r *Registry) ExportJSON(frontend, modelPath, options string) (*Model, error) {
	cf, f1 := cstr(frontend, false)
	defer f1()
	cp, f2 := cstr(modelPath, false)
	defer f2()
	co, f3 := cstr(options, true)
	defer f3()
	var out *C.mx_model
	err := r.use(func(p *C.mx_registry) error { return statusErr(C.mx_registry_export(p, cf, cp, co, &out)) })
	if err != nil {
		return nil, err
	}
	return newModel(out), nil
}

// ModuleTree reads the module tree of a source model through a frontend.
func (r *Registry) ModuleTree(frontend, modelPath string) (*Hierarchy, error) {
	cf, f1 := cstr(frontend, false)
	defer f1()
	cp, f2 := cstr(modelPath, false)
	defer f2()
	var text string
	err := r.use(func(p *C.mx_registry) error {
		var out *C.char
		var n C.size_t
		st := C.mx_registry_module_tree(p, cf, cp, &out, &n)
		text = takeText(out, n)
		return statusErr(st)
	})
	if err != nil {
		return nil, err
	}
	var h Hierarchy
	return &h, decode(text, &h)
}
