// tag_and_print_tree in C#: load an ONNX file, tag it with a strategy
// plugin, print the module tree with node counts (format: ../README.md).
using System;
using System.Collections.Generic;
using System.Linq;
using ModelExport;

public static class TagAndPrintTree
{
    static bool IsRoot(ModuleInfo m) { return m.Path == "" || m.Parent == null; }

    static Dictionary<string, int> own;
    static ILookup<string, ModuleInfo> children;

    static int Own(string path) { int n; return own.TryGetValue(path, out n) ? n : 0; }
    static int Total(string path) { return Own(path) + children[path].Sum(k => Total(k.Path)); }

    static void Print(ModuleInfo m, int depth)
    {
        var name = m.Path == "" ? "(root)" : m.Path;
        Console.Write(new string(' ', 2 * depth) + name + " [" + m.Class + "] nodes=" + Own(m.Path) +
                      " total=" + Total(m.Path) + "\n");
        foreach (var k in children[m.Path]) Print(k, depth + 1);
    }

    public static int Main(string[] args)
    {
        if (args.Length < 2 || args.Length > 3)
        {
            Console.Error.WriteLine("usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]");
            return 2;
        }
        try
        {
            Hierarchy h;
            using (var model = Model.LoadFile(args[0]))
            using (var registry = Registry.Create())
            {
                registry.TagJson(model, args[1], args.Length == 3 ? args[2] : null);
                h = model.Hierarchy();
            }
            own = h.Nodes.GroupBy(n => n.Module).ToDictionary(g => g.Key, g => g.Count());
            children = h.Modules.Where(m => !IsRoot(m)).ToLookup(m => m.Parent);
            Console.Write("modules=" + h.Modules.Count + " nodes=" + h.Nodes.Count + "\n");
            foreach (var m in h.Modules.Where(IsRoot)) Print(m, 0);
            return 0;
        }
        catch (ModelExportException e)
        {
            Console.Error.WriteLine("tag_and_print_tree: " + e);
            return 1;
        }
    }
}
