// Typed options: classes serialised to the JSON objects the C API takes, so
// callers never escape JSON by hand. Unset (null) members are left out and
// the SDK's defaults apply; keys this binding has no member for yet go in
// Extra (forward compatibility), and every call has a *Json twin taking the
// JSON itself.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;

namespace ModelExport
{
    /// <summary>Element type of an input spec.</summary>
    public enum DType { Float32, Float16, Float64, Int64, Int32, Bool }

    /// <summary>One dimension: a fixed size, or a named (dynamic) one traced at Size.</summary>
    public sealed class Dim
    {
        public readonly long Size;
        public readonly string Name; // null: fixed
        private Dim(long size, string name) { Size = size; Name = name; }
        public static Dim Fixed(long size) { return new Dim(size, null); }
        public static Dim Dynamic(string name, long size) { return new Dim(size, name); }
        public override string ToString()
        {
            var n = Size.ToString(CultureInfo.InvariantCulture);
            return Name == null ? n : Name + "=" + n;
        }
    }

    /// <summary>An input spec "name:dtype[dim,...]": built from its parts,
    /// or from the text (a string converts implicitly).</summary>
    public sealed class InputSpec
    {
        private readonly string text;
        public InputSpec(string name, DType dtype, params Dim[] dims)
        {
            text = name + ":" + dtype.ToString().ToLowerInvariant() + "[" + string.Join(",", dims.Select(d => d.ToString())) + "]";
        }
        private InputSpec(string spec) { text = spec; }
        public static InputSpec FromText(string spec) { return new InputSpec(spec); }
        public static implicit operator InputSpec(string spec) { return new InputSpec(spec); }
        public override string ToString() { return text; }
    }

    /// <summary>Frontend plugin names (any other plugin's name works too).</summary>
    public static class Frontend
    {
        public const string Auto = "auto";               // the file's content chooses
        public const string TorchExport = "torch_export"; // .pt2 archives, no LibTorch
        public const string TorchScript = "torchscript";  // .pt, the LibTorch plugin
    }

    /// <summary>Strategy plugin names (any other plugin's name works too).</summary>
    public static class Strategy
    {
        public const string Auto = "auto";         // every strategy that applies
        public const string Scope = "scope";       // PyTorch-scoped node names
        public const string Usage = "usage";       // which module's weights a node uses
        public const string Metadata = "metadata"; // exporters' node metadata (dynamo)
    }

    /// <summary>Where a saved model keeps its node records.</summary>
    public enum TagStorage { Metadata, DocString, None }

    /// <summary>Common part: the extra keys and the serialisation.</summary>
    public abstract class JsonOptions
    {
        /// <summary>Keys this binding has no member for (forward compatibility).</summary>
        public Dictionary<string, object> Extra = new Dictionary<string, object>();

        protected abstract void Fill(Dictionary<string, object> o);

        /// <summary>The JSON object the C API receives (null for defaults).</summary>
        public string ToJson()
        {
            var o = new Dictionary<string, object>();
            Fill(o);
            foreach (var kv in Extra) o[kv.Key] = kv.Value;
            return o.Count == 0 ? null : Json.Write(o);
        }

        protected static void Put(Dictionary<string, object> o, string key, object value)
        {
            if (value != null) o[key] = value;
        }
    }

    /// <summary>Options of Registry.Export (mx_registry_export).</summary>
    public sealed class ExportOptions : JsonOptions
    {
        public string Frontend = ModelExport.Frontend.Auto;
        /// <summary>Required for TorchScript; for .pt2 a spec overrides sizes and names dims.</summary>
        public List<InputSpec> Inputs = new List<InputSpec>();
        public int? Opset;              // 14..28 (default 18)
        public bool? FusedOps;          // fused ONNX ops where the opset has them (default true)
        public bool? FoldBatchNorms;    // BatchNormalization after Conv folded into it (.pt2; default true)
        public bool? UpcastBf16;        // bf16 ops in float32 between Casts (default false)
        public bool? DropBuiltinTags;
        public bool? ExternalData;      // weights to a data file (null: past 2 GB only)

        protected override void Fill(Dictionary<string, object> o)
        {
            if (Inputs.Count > 0) o["inputs"] = Inputs.Select(s => (object)s.ToString()).ToList();
            Put(o, "opset", Opset);
            Put(o, "fused_ops", FusedOps);
            Put(o, "fold_batch_norms", FoldBatchNorms);
            Put(o, "upcast_bf16", UpcastBf16);
            Put(o, "drop_builtin_tags", DropBuiltinTags);
            Put(o, "external_data", ExternalData);
        }
    }

    /// <summary>Options of Model.SaveFile / SaveBytes (mx_model_save_file).</summary>
    public sealed class SaveOptions : JsonOptions
    {
        public TagStorage? TagStorage;
        public bool? Sidecar;       // out.onnx -> out.hierarchy.json (default true)
        public bool? Check;         // the ONNX checker first (default true)
        public bool? ExternalData;  // tensors of 1 KiB or more to <file name>.data

        protected override void Fill(Dictionary<string, object> o)
        {
            if (TagStorage.HasValue)
                o["tag_storage"] = TagStorage.Value == ModelExport.TagStorage.DocString ? "doc_string"
                                   : TagStorage.Value.ToString().ToLowerInvariant();
            Put(o, "sidecar", Sidecar);
            Put(o, "check", Check);
            Put(o, "external_data", ExternalData);
        }
    }

    /// <summary>Options of Registry.Tag (mx_registry_tag).</summary>
    public sealed class TagOptions : JsonOptions
    {
        /// <summary>A hierarchy document's path, supplying class names.</summary>
        public string HierarchyFile;
        /// <summary>Passed through to the strategy plugin.</summary>
        public Dictionary<string, object> StrategyOptions;

        protected override void Fill(Dictionary<string, object> o)
        {
            Put(o, "hierarchy", HierarchyFile);
            Put(o, "strategy_options", StrategyOptions);
        }
    }

    /// <summary>Options of Registry.Create (mx_registry_create).</summary>
    public sealed class RegistryOptions : JsonOptions
    {
        public bool? Discover;            // the install's plugins and MODELEXPORT_PLUGIN_PATH (default true)
        public List<string> PluginDirs;   // scanned after those
        public bool? GraphReader;         // strategies read the graph through the host (ABI 1.2, default true)

        protected override void Fill(Dictionary<string, object> o)
        {
            Put(o, "discover", Discover);
            if (PluginDirs != null) o["plugin_dirs"] = PluginDirs.Cast<object>().ToList();
            Put(o, "graph_reader", GraphReader);
        }
    }
}
