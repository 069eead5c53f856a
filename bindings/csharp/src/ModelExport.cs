// C# binding of the modelexport C API. Handles are SafeHandles (released
// exactly once, even if Dispose is never called); SDK failures throw
// ModelExportException carrying the SDK's code and message.
//
// Thread safety (modelexport.h): a Model may be read from several threads at
// once, but mutating calls (Tag, SetNodeRecord, SetHierarchyJson) need
// exclusive access — Model takes a ReaderWriterLockSlim to enforce that. A
// Registry is internally synchronised by the SDK.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace ModelExport
{
    public enum ErrorCode
    {
        Ok = 0,
        InvalidArgument = 1,
        Io = 2,
        Parse = 3,
        Schema = 4,
        NotFound = 5,
        Unsupported = 6,
        Plugin = 7,
        Security = 8,
        Internal = 9,
        Cancelled = 10,
    }

    /// <summary>A failure reported by the SDK; Message is the SDK's message.</summary>
    public class ModelExportException : Exception
    {
        public ErrorCode Code { get; private set; }
        /// <summary>The SDK's stable code name: "io", "not_found", ...</summary>
        public string CodeName { get { return Interop.CodeName(Code); } }

        public ModelExportException(ErrorCode code, string message) : base(message) { Code = code; }
        public override string ToString() { return CodeName + " error: " + Message; }
    }

    internal static class Interop
    {
        internal static byte[] Utf8z(string s)
        {
            if (s == null) return null;
            var n = Encoding.UTF8.GetByteCount(s);
            var b = new byte[n + 1];
            Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }

        internal static string FromUtf8(IntPtr p)
        {
            if (p == IntPtr.Zero) return "";
            int n = 0;
            while (Marshal.ReadByte(p, n) != 0) n++;
            var b = new byte[n];
            Marshal.Copy(p, b, 0, n);
            return Encoding.UTF8.GetString(b);
        }

        internal static string CodeName(ErrorCode c) { return FromUtf8(Native.mx_code_name((int)c)); }

        /// <summary>Throws for a non-NULL status, releasing it.</summary>
        internal static void Check(StatusHandle st)
        {
            using (st)
            {
                if (st.IsInvalid) return;
                var code = (ErrorCode)Native.mx_status_code(st);
                var message = FromUtf8(Native.mx_status_message(st));
                throw new ModelExportException(code, message);
            }
        }

        /// <summary>Copies an SDK buffer and frees it.</summary>
        internal static byte[] Take(IntPtr p, UIntPtr size)
        {
            if (p == IntPtr.Zero) return new byte[0];
            try
            {
                var b = new byte[(int)size.ToUInt64()];
                Marshal.Copy(p, b, 0, b.Length);
                return b;
            }
            finally { Native.mx_free(p); }
        }

        internal delegate StatusHandle TextCall(out IntPtr p, out UIntPtr n);

        internal static string Text(TextCall call)
        {
            IntPtr p; UIntPtr n;
            var st = call(out p, out n);
            var bytes = Take(p, n);
            Check(st);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    public static class Library
    {
        /// <summary>Version of the loaded library.</summary>
        public static Version Version
        {
            get { uint a, b, c; Native.mx_version(out a, out b, out c); return new Version((int)a, (int)b, (int)c); }
        }
        public static string VersionString { get { return Interop.FromUtf8(Native.mx_version_string()); } }
    }

    /// <summary>One module of the tree.</summary>
    public sealed class ModuleInfo
    {
        public string Path;
        public string Class;
        public string Parent; // null for the root
        public List<string> Children = new List<string>();
        public string Tag;
        public Dictionary<string, object> Raw;
    }

    /// <summary>A node's hierarchy record.</summary>
    public sealed class NodeRecord
    {
        public string Name;
        public string Module;
        public string Tag;
        public string Evidence;

        internal static NodeRecord From(Dictionary<string, object> o, string name)
        {
            return new NodeRecord {
                Name = Json.Str(o, "name") ?? name,
                Module = Json.Str(o, "module") ?? "",
                Tag = Json.Str(o, "tag"),
                Evidence = Json.Str(o, "evidence") ?? "",
            };
        }
    }

    /// <summary>The hierarchy document (modelexport.hierarchy/1).</summary>
    public sealed class Hierarchy
    {
        public string Schema;
        public List<ModuleInfo> Modules = new List<ModuleInfo>();
        public List<NodeRecord> Nodes = new List<NodeRecord>();
        public Dictionary<string, object> Raw;

        public static Hierarchy Parse(string json)
        {
            var doc = Json.Parse(json) as Dictionary<string, object>;
            if (doc == null) throw new ModelExportException(ErrorCode.Parse, "hierarchy is not a JSON object");
            var h = new Hierarchy { Raw = doc, Schema = Json.Str(doc, "schema") };
            foreach (var m in Json.List(doc, "modules"))
            {
                var o = (Dictionary<string, object>)m;
                var info = new ModuleInfo {
                    Path = Json.Str(o, "path") ?? "", Class = Json.Str(o, "class") ?? "",
                    Parent = Json.Str(o, "parent"), Tag = Json.Str(o, "tag"), Raw = o };
                foreach (var c in Json.List(o, "children")) info.Children.Add((string)c);
                h.Modules.Add(info);
            }
            foreach (var n in Json.List(doc, "nodes"))
                h.Nodes.Add(NodeRecord.From((Dictionary<string, object>)n, null));
            return h;
        }
    }

    /// <summary>One plugin of the listing, loaded or refused.</summary>
    public sealed class PluginInfo
    {
        public string Name, Kind, Version, Description, Path, Abi, Status, Reason;
        public bool Loaded { get { return Status == "loaded"; } }
    }

    /// <summary>An ONNX model in memory plus its hierarchy.</summary>
    public sealed class Model : IDisposable
    {
        internal readonly ModelHandle Handle;
        private readonly ReaderWriterLockSlim rw = new ReaderWriterLockSlim(LockRecursionPolicy.SupportsRecursion);

        internal Model(ModelHandle h) { Handle = h; }

        internal static Model FromOut(StatusHandle st, ModelHandle h)
        {
            try { Interop.Check(st); }
            catch { h.Dispose(); throw; }
            if (h.IsInvalid) throw new ModelExportException(ErrorCode.Internal, "SDK returned success without a model");
            return new Model(h);
        }

        public static Model LoadFile(string path)
        {
            ModelHandle h;
            var st = Native.mx_model_load_file(Interop.Utf8z(path), out h);
            return FromOut(st, h);
        }

        public static Model LoadBytes(byte[] data)
        {
            ModelHandle h;
            data = data ?? new byte[0];
            var st = Native.mx_model_load_bytes(data, (UIntPtr)data.Length, out h);
            return FromOut(st, h);
        }

        public void Dispose() { Handle.Dispose(); }

        internal T Read<T>(Func<T> f)
        {
            rw.EnterReadLock();
            try { Alive(); return f(); } finally { rw.ExitReadLock(); }
        }

        internal void Write(Action f)
        {
            rw.EnterWriteLock();
            try { Alive(); f(); } finally { rw.ExitWriteLock(); }
        }

        private void Alive()
        {
            if (Handle.IsClosed) throw new ObjectDisposedException("Model");
        }

        /// <summary>Saves atomically; the sidecar of out.onnx is out.hierarchy.json.</summary>
        public void SaveFile(string path, SaveOptions options = null)
        {
            SaveFileJson(path, options == null ? null : options.ToJson());
        }

        /// <summary>SaveFile with the JSON of mx_model_save_file (null for defaults).</summary>
        public void SaveFileJson(string path, string options)
        {
            Read(() => { Interop.Check(Native.mx_model_save_file(Handle, Interop.Utf8z(path), Interop.Utf8z(options))); return 0; });
        }

        public byte[] SaveBytes(SaveOptions options = null)
        {
            return SaveBytesJson(options == null ? null : options.ToJson());
        }

        /// <summary>SaveBytes with the JSON of mx_model_save_bytes (null for defaults).</summary>
        public byte[] SaveBytesJson(string options)
        {
            return Read(() => {
                IntPtr p; UIntPtr n;
                var st = Native.mx_model_save_bytes(Handle, Interop.Utf8z(options), out p, out n);
                var b = Interop.Take(p, n);
                Interop.Check(st);
                return b;
            });
        }

        public string GraphJson()
        {
            return Read(() => Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_model_graph_json(Handle, out p, out n)));
        }

        public int NodeCount { get { return Read(() => (int)Native.mx_model_node_count(Handle).ToUInt64()); } }

        public string NodeJson(int index)
        {
            return Read(() => Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_model_node_json(Handle, (UIntPtr)index, out p, out n)));
        }

        public void Check() { Read(() => { Interop.Check(Native.mx_model_check(Handle)); return 0; }); }

        public string NodeRecordJson(string node)
        {
            var name = Interop.Utf8z(node);
            return Read(() => Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_model_node_record(Handle, name, out p, out n)));
        }

        /// <summary>A node's record; ModelExportException(NotFound) if it has none.</summary>
        public NodeRecord NodeRecord(string node)
        {
            return ModelExport.NodeRecord.From((Dictionary<string, object>)Json.Parse(NodeRecordJson(node)), node);
        }

        public void SetNodeRecord(string node, string recordJson)
        {
            var rec = Encoding.UTF8.GetBytes(recordJson);
            Write(() => Interop.Check(Native.mx_model_set_node_record(Handle, Interop.Utf8z(node), rec, (UIntPtr)rec.Length)));
        }

        public string HierarchyJson()
        {
            return Read(() => Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_model_hierarchy_json(Handle, out p, out n)));
        }

        public Hierarchy Hierarchy() { return ModelExport.Hierarchy.Parse(HierarchyJson()); }

        public void SetHierarchyJson(string json)
        {
            var b = Encoding.UTF8.GetBytes(json);
            Write(() => Interop.Check(Native.mx_model_set_hierarchy_json(Handle, b, (UIntPtr)b.Length)));
        }

        public bool HasHierarchy { get { return Read(() => Native.mx_model_has_hierarchy(Handle) != 0); } }

        /// <summary>Per-module statistics (mx_model_modules_json).</summary>
        public string ModulesJson()
        {
            return Read(() => Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_model_modules_json(Handle, null, out p, out n)));
        }

        /// <summary>The module tree with classes and node counts; empty
        /// (Count 0, Root null) for a model without a tree.</summary>
        public ModuleTree ModuleTree()
        {
            var h = Hierarchy();
            var stats = h.Modules.Count > 0 ? (Dictionary<string, object>)Json.Parse(ModulesJson()) : null;
            return ModelExport.ModuleTree.Build(h, stats);
        }

        /// <summary>Every top-level node with its record, in graph order.</summary>
        public List<Node> Nodes()
        {
            return Node.Build((Dictionary<string, object>)Json.Parse(GraphJson()), Hierarchy());
        }
    }

    /// <summary>The plugin registry: discovers and runs frontends and strategies.</summary>
    public sealed class Registry : IDisposable
    {
        private readonly RegistryHandle handle;

        private Registry(RegistryHandle h) { handle = h; }

        /// <summary>Discovers the install's plugins and MODELEXPORT_PLUGIN_PATH.</summary>
        public static Registry Create() { return CreateJson(null); }

        public static Registry Create(RegistryOptions options)
        {
            return CreateJson(options == null ? null : options.ToJson());
        }

        /// <summary>options: JSON of mx_registry_create (null for defaults).</summary>
        public static Registry CreateJson(string options)
        {
            RegistryHandle h;
            var st = Native.mx_registry_create(Interop.Utf8z(options), out h);
            try { Interop.Check(st); } catch { h.Dispose(); throw; }
            return new Registry(h);
        }

        public void Dispose() { handle.Dispose(); }

        /// <summary>Loads a plugin; a refusal throws (Code Plugin) with the reason.</summary>
        public void LoadPlugin(string path) { Interop.Check(Native.mx_registry_load_plugin(handle, Interop.Utf8z(path))); }

        public string PluginsJson()
        {
            return Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_registry_plugins_json(handle, out p, out n));
        }

        public List<PluginInfo> Plugins()
        {
            var doc = (Dictionary<string, object>)Json.Parse(PluginsJson());
            var list = new List<PluginInfo>();
            foreach (var e in Json.List(doc, "plugins"))
            {
                var o = (Dictionary<string, object>)e;
                list.Add(new PluginInfo {
                    Name = Json.Str(o, "name"), Kind = Json.Str(o, "kind"), Version = Json.Str(o, "version"),
                    Description = Json.Str(o, "description"), Path = Json.Str(o, "path"), Abi = Json.Str(o, "abi"),
                    Status = Json.Str(o, "status") ?? "", Reason = Json.Str(o, "reason") });
            }
            return list;
        }

        /// <summary>Runs a strategy plugin (Strategy.Auto by default) and the
        /// core's propagation on model, replacing its hierarchy.</summary>
        public void Tag(Model model, string strategy = ModelExport.Strategy.Auto, TagOptions options = null)
        {
            TagJson(model, strategy, options == null ? null : options.ToJson());
        }

        /// <summary>Tag with the JSON of mx_registry_tag (null for none).</summary>
        public void TagJson(Model model, string strategy, string options)
        {
            model.Write(() => Interop.Check(Native.mx_registry_tag(handle, Interop.Utf8z(strategy), model.Handle, Interop.Utf8z(options))));
        }

        /// <summary>Exports a source model (.pt2 from torch.export.save,
        /// TorchScript .pt) through options.Frontend (default: the file's
        /// content chooses); TorchScript needs options.Inputs.</summary>
        public Model Export(string modelPath, ExportOptions options = null)
        {
            options = options ?? new ExportOptions();
            return ExportJson(options.Frontend, modelPath, options.ToJson());
        }

        /// <summary>Export with the JSON of mx_registry_export.</summary>
        public Model ExportJson(string frontend, string modelPath, string options)
        {
            ModelHandle h;
            var st = Native.mx_registry_export(handle, Interop.Utf8z(frontend), Interop.Utf8z(modelPath), Interop.Utf8z(options), out h);
            return Model.FromOut(st, h);
        }

        public Hierarchy ModuleTree(string frontend, string modelPath)
        {
            var f = Interop.Utf8z(frontend);
            var m = Interop.Utf8z(modelPath);
            return Hierarchy.Parse(Interop.Text((out IntPtr p, out UIntPtr n) => Native.mx_registry_module_tree(handle, f, m, out p, out n)));
        }
    }
}
