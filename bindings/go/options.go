package modelexport

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Options are typed structs serialised to the JSON objects the C API takes;
// zero values and nil pointers are left out so the SDK's defaults apply.
// Keys this package has no field for yet go in Extra (forward
// compatibility); every call also has a *JSON twin taking the JSON itself.

// Bool returns a pointer to b, for the optional boolean fields.
func Bool(b bool) *bool { return &b }

// DType is the element type of an input spec.
type DType string

const (
	DTypeFloat32 DType = "float32"
	DTypeFloat16 DType = "float16"
	DTypeFloat64 DType = "float64"
	DTypeInt64   DType = "int64"
	DTypeInt32   DType = "int32"
	DTypeBool    DType = "bool"
)

// Dim is one dimension of an input: Size, and a Name when it is dynamic.
type Dim struct {
	Size int64
	Name string // non-empty: a dynamic dimension traced at Size
}

// Fixed is a static dimension; Dynamic a named one ("batch=2").
func Fixed(size int64) Dim                { return Dim{Size: size} }
func Dynamic(name string, size int64) Dim { return Dim{Size: size, Name: name} }

// InputSpec is one input, "name:dtype[dim,...]": built from its parts, or
// Spec("input_ids:int64[batch=2,seq=16]") from the text.
type InputSpec struct {
	Name  string
	DType DType
	Dims  []Dim
	text  string
}

// Spec is an input spec given as text, passed to the SDK unchanged.
func Spec(text string) InputSpec { return InputSpec{text: text} }

// String renders the spec as the SDK parses it.
func (s InputSpec) String() string {
	if s.text != "" {
		return s.text
	}
	dims := make([]string, len(s.Dims))
	for i, d := range s.Dims {
		if d.Name != "" {
			dims[i] = fmt.Sprintf("%s=%d", d.Name, d.Size)
		} else {
			dims[i] = fmt.Sprint(d.Size)
		}
	}
	return fmt.Sprintf("%s:%s[%s]", s.Name, s.DType, strings.Join(dims, ","))
}

// MarshalText makes a spec a JSON string.
func (s InputSpec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Frontend names a frontend plugin; "" or FrontendAuto lets the file choose.
type Frontend string

const (
	FrontendAuto        Frontend = "auto"
	FrontendTorchExport Frontend = "torch_export" // .pt2 archives, no LibTorch
	FrontendTorchScript Frontend = "torchscript"  // .pt, the LibTorch plugin
)

// Strategy names a strategy plugin; StrategyAuto runs every one that applies.
type Strategy string

const (
	StrategyAuto     Strategy = "auto"
	StrategyScope    Strategy = "scope"    // PyTorch-scoped node names
	StrategyUsage    Strategy = "usage"    // which module's weights a node uses
	StrategyMetadata Strategy = "metadata" // exporters' node metadata (dynamo)
)

// TagStorage is where a saved model keeps node records.
type TagStorage string

const (
	TagStorageMetadata  TagStorage = "metadata" // node metadata_props (default)
	TagStorageDocString TagStorage = "doc_string"
	TagStorageNone      TagStorage = "none"
)

// ExportOptions of Registry.Export (mx_registry_export).
type ExportOptions struct {
	Frontend        Frontend       `json:"-"`
	Inputs          []InputSpec    `json:"inputs,omitempty"`      // required for TorchScript
	Opset           int            `json:"opset,omitempty"`       // 14..28 (default 18)
	FusedOps        *bool          `json:"fused_ops,omitempty"`   // Gelu/GroupNormalization/Attention/RMSNormalization where the opset has them (default true)
	FoldBatchNorms  *bool          `json:"fold_batch_norms,omitempty"` // BatchNormalization after Conv folded into it (.pt2; default true)
	UpcastBf16      *bool          `json:"upcast_bf16,omitempty"` // bf16 ops in float32 between Casts, for runtimes without bf16 kernels (default false)
	DropBuiltinTags *bool          `json:"drop_builtin_tags,omitempty"`
	ExternalData    *bool          `json:"external_data,omitempty"`
	Extra           map[string]any `json:"-"`
}

// SaveOptions of Model.SaveFile / SaveBytes (mx_model_save_file).
type SaveOptions struct {
	TagStorage   TagStorage     `json:"tag_storage,omitempty"`
	Sidecar      *bool          `json:"sidecar,omitempty"` // out.onnx -> out.hierarchy.json (default true)
	Check        *bool          `json:"check,omitempty"`   // ONNX checker first (default true)
	ExternalData *bool          `json:"external_data,omitempty"`
	Extra        map[string]any `json:"-"`
}

// TagOptions of Registry.Tag (mx_registry_tag).
type TagOptions struct {
	// Hierarchy supplies class names: a document (any JSON value) or a path string.
	Hierarchy       any            `json:"hierarchy,omitempty"`
	StrategyOptions map[string]any `json:"strategy_options,omitempty"`
	Extra           map[string]any `json:"-"`
}

// RegistryOptions of NewRegistry (mx_registry_create).
type RegistryOptions struct {
	Discover   *bool    `json:"discover,omitempty"` // default true
	PluginDirs []string `json:"plugin_dirs,omitempty"`
	// GraphReader: strategies that can read the graph through the host do
	// (plugin ABI 1.2, default true); false sends them JSON text. Same results.
	GraphReader *bool          `json:"graph_reader,omitempty"`
	Extra       map[string]any `json:"-"`
}

// toJSON marshals v, merges extra, and returns "" for an empty object.
func toJSON(v any, extra map[string]any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", &Error{Code: CodeInvalidArgument, Message: "options: " + err.Error()}
	}
	if len(extra) > 0 {
		var merged map[string]any
		_ = json.Unmarshal(data, &merged)
		for k, x := range extra {
			merged[k] = x
		}
		if data, err = json.Marshal(merged); err != nil {
			return "", &Error{Code: CodeInvalidArgument, Message: "options: " + err.Error()}
		}
	}
	if string(data) == "{}" {
		return "", nil
	}
	return string(data), nil
}

// JSON is the object the C API receives ("" for defaults).
func (o *ExportOptions) JSON() (string, error) {
	if o == nil {
		return "", nil
	}
	return toJSON(o, o.Extra)
}

func (o *ExportOptions) frontend() string {
	if o == nil || o.Frontend == "" {
		return string(FrontendAuto)
	}
	return string(o.Frontend)
}

// JSON is the object the C API receives ("" for defaults).
func (o *SaveOptions) JSON() (string, error) {
	if o == nil {
		return "", nil
	}
	return toJSON(o, o.Extra)
}

// JSON is the object the C API receives ("" for defaults).
func (o *TagOptions) JSON() (string, error) {
	if o == nil {
		return "", nil
	}
	return toJSON(o, o.Extra)
}

// JSON is the object the C API receives ("" for defaults).
func (o *RegistryOptions) JSON() (string, error) {
	if o == nil {
		return "", nil
	}
	return toJSON(o, o.Extra)
}
