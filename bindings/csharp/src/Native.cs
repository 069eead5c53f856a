// Raw P/Invoke declarations of modelexport.h. Strings go in as NUL-terminated
// UTF-8 byte arrays (never through the platform's ANSI marshalling); buffers
// come out as IntPtr + size and are copied, then freed with mx_free.
using System;
using System.Runtime.InteropServices;

namespace ModelExport
{
    internal static class Native
    {
        internal const string Lib = "modelexport";

        [DllImport(Lib)] internal static extern void mx_version(out uint major, out uint minor, out uint patch);
        [DllImport(Lib)] internal static extern IntPtr mx_version_string();

        [DllImport(Lib)] internal static extern int mx_status_code(StatusHandle status);
        [DllImport(Lib)] internal static extern IntPtr mx_status_message(StatusHandle status);
        [DllImport(Lib)] internal static extern void mx_status_release(IntPtr status);
        [DllImport(Lib)] internal static extern IntPtr mx_code_name(int code);
        [DllImport(Lib)] internal static extern void mx_free(IntPtr buffer);

        [DllImport(Lib)] internal static extern StatusHandle mx_model_load_file(byte[] path, out ModelHandle model);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_load_bytes(byte[] data, UIntPtr size, out ModelHandle model);
        [DllImport(Lib)] internal static extern void mx_model_release(IntPtr model);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_save_file(ModelHandle model, byte[] path, byte[] options);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_save_bytes(ModelHandle model, byte[] options, out IntPtr data, out UIntPtr size);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_graph_json(ModelHandle model, out IntPtr json, out UIntPtr size);
        [DllImport(Lib)] internal static extern UIntPtr mx_model_node_count(ModelHandle model);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_node_json(ModelHandle model, UIntPtr index, out IntPtr json, out UIntPtr size);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_check(ModelHandle model);

        [DllImport(Lib)] internal static extern StatusHandle mx_model_node_record(ModelHandle model, byte[] node, out IntPtr json, out UIntPtr size);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_set_node_record(ModelHandle model, byte[] node, byte[] record, UIntPtr size);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_hierarchy_json(ModelHandle model, out IntPtr json, out UIntPtr size);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_set_hierarchy_json(ModelHandle model, byte[] json, UIntPtr size);
        [DllImport(Lib)] internal static extern int mx_model_has_hierarchy(ModelHandle model);
        [DllImport(Lib)] internal static extern StatusHandle mx_model_modules_json(ModelHandle model, byte[] options, out IntPtr json, out UIntPtr size);

        [DllImport(Lib)] internal static extern StatusHandle mx_registry_create(byte[] options, out RegistryHandle registry);
        [DllImport(Lib)] internal static extern void mx_registry_release(IntPtr registry);
        [DllImport(Lib)] internal static extern StatusHandle mx_registry_load_plugin(RegistryHandle registry, byte[] path);
        [DllImport(Lib)] internal static extern StatusHandle mx_registry_plugins_json(RegistryHandle registry, out IntPtr json, out UIntPtr size);
        [DllImport(Lib)] internal static extern StatusHandle mx_registry_tag(RegistryHandle registry, byte[] strategy, ModelHandle model, byte[] options);
        [DllImport(Lib)] internal static extern StatusHandle mx_registry_export(RegistryHandle registry, byte[] frontend, byte[] path, byte[] options, out ModelHandle model);
        [DllImport(Lib)] internal static extern StatusHandle mx_registry_module_tree(RegistryHandle registry, byte[] frontend, byte[] path, out IntPtr json, out UIntPtr size);
    }

    /// <summary>An mx_status*; NULL (invalid) means success.</summary>
    internal sealed class StatusHandle : SafeHandle
    {
        public StatusHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.mx_status_release(handle); return true; }
    }

    /// <summary>An owned mx_model*, released by mx_model_release.</summary>
    public sealed class ModelHandle : SafeHandle
    {
        public ModelHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.mx_model_release(handle); return true; }
    }

    /// <summary>An owned mx_registry*, released by mx_registry_release.</summary>
    public sealed class RegistryHandle : SafeHandle
    {
        public RegistryHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.mx_registry_release(handle); return true; }
    }
}
