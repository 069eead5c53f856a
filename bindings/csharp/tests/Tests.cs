// Test runner for the C# binding (no NuGet, no test framework): every public
// static void Test* method runs; the process exits non-zero on any failure.
// Usage: mono tests.exe <fixtures dir>
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading;
using ModelExport;

public static class Tests
{
    static string fixtures;
    static string F(string name) { return Path.Combine(fixtures, name); }

    class SkipException : Exception { public SkipException(string m) : base(m) { } }

    static void Assert(bool cond, string what) { if (!cond) throw new Exception("assertion failed: " + what); }

    static ModelExportException Throws(Action a)
    {
        try { a(); }
        catch (ModelExportException e) { return e; }
        throw new Exception("expected ModelExportException");
    }

    static string StrategyFor(Registry r)
    {
        return r.Plugins().Any(p => p.Loaded && p.Name == "scope") ? "scope" : "auto";
    }

    static Model Tagged(Registry r)
    {
        var m = Model.LoadFile(F("tiny.onnx"));
        r.Tag(m, StrategyFor(r));
        return m;
    }

    public static void TestVersion()
    {
        var v = Library.Version;
        Assert(v.Major == 0 && v.Minor >= 1, "version " + v);
        Assert(Library.VersionString.StartsWith(v.Major + "." + v.Minor + "."), Library.VersionString);
    }

    public static void TestLoadFileAndBytes()
    {
        using (var m = Model.LoadFile(F("tiny.onnx")))
        {
            Assert(m.NodeCount == 9, "node count " + m.NodeCount);
            m.Check();
        }
        using (var m = Model.LoadBytes(File.ReadAllBytes(F("tiny.onnx"))))
        {
            Assert(m.NodeCount == 9, "node count");
            Assert(m.GraphJson().Contains("/layers.0/fc/Gemm"), "graph json");
            Assert(m.NodeJson(0).Contains("Gemm"), "node 0");
        }
    }

    public static void TestErrorsCarrySdkMessage()
    {
        var e = Throws(() => Model.LoadFile("/nonexistent/dir/model.onnx"));
        Assert(e.Code == ErrorCode.Io, "code " + e.Code);
        Assert(e.Message.Contains("/nonexistent/dir/model.onnx"), e.Message);
        Assert(e.ToString().StartsWith("io error: "), e.ToString());
        e = Throws(() => Model.LoadBytes(new byte[] { 1, 2, 3, 0xff, 0xff }));
        Assert(e.Code == ErrorCode.Parse && e.Message.Length > 0, e.ToString());
        using (var m = Model.LoadFile(F("tiny.onnx")))
        {
            e = Throws(() => m.SaveFile(Path.Combine(Path.GetTempPath(), "mx-cs-x.onnx"),
                                          new SaveOptions { Extra = { { "no_such_option", 1 } } }));
            Assert(e.Code == ErrorCode.InvalidArgument && e.Message.Contains("no_such_option"), e.ToString());
        }
    }

    public static void TestDisposeTwiceAndUseAfterDispose()
    {
        var m = Model.LoadFile(F("tiny.onnx"));
        m.Dispose();
        m.Dispose();
        try { m.GraphJson(); throw new Exception("use after dispose accepted"); }
        catch (ObjectDisposedException) { }
        var r = Registry.Create();
        r.Dispose();
        r.Dispose();
        // Undisposed handles are released by the SafeHandle finalizer.
        for (int i = 0; i < 10; i++) Model.LoadFile(F("tiny.onnx"));
        GC.Collect();
        GC.WaitForPendingFinalizers();
    }

    public static void TestTagTreeAndRecords()
    {
        using (var r = Registry.Create())
        using (var m = Tagged(r))
        {
            Assert(m.HasHierarchy, "has hierarchy");
            var h = m.Hierarchy();
            Assert(h.Schema == "modelexport.hierarchy/1", h.Schema);
            Assert(h.Nodes.Count == 9, "records " + h.Nodes.Count);
            var paths = new HashSet<string>(h.Modules.Select(x => x.Path));
            foreach (var p in new[] { "", "embed", "layers.0", "layers.0.fc", "layers.1.act", "head" })
                Assert(paths.Contains(p), "module '" + p + "' missing");
            var rec = m.NodeRecord("/layers.0/fc/Gemm");
            Assert(rec.Module == "layers.0.fc" && rec.Evidence.Length > 0, rec.Module);
            var e = Throws(() => m.NodeRecord("no/such/node"));
            Assert(e.Code == ErrorCode.NotFound, e.ToString());
            m.SetNodeRecord("/Softmax", "{\"module\":\"head\",\"evidence\":\"propagated\"}");
            rec = m.NodeRecord("/Softmax");
            Assert(rec.Module == "head" && rec.Evidence == "propagated", rec.Module + " " + rec.Evidence);
        }
    }

    public static void TestUnknownStrategy()
    {
        using (var r = Registry.Create())
        using (var m = Model.LoadFile(F("tiny.onnx")))
        {
            var e = Throws(() => r.Tag(m, "no-such-strategy"));
            Assert(e.Message.Contains("no-such-strategy"), e.ToString());
        }
    }

    public static void TestSaveAndReload()
    {
        var dir = Path.Combine(Path.GetTempPath(), "mx-cs-" + System.Diagnostics.Process.GetCurrentProcess().Id);
        Directory.CreateDirectory(dir);
        try
        {
            using (var r = Registry.Create())
            using (var m = Tagged(r))
            {
                var path = Path.Combine(dir, "tiny.tagged.onnx");
                m.SaveFile(path);
                Assert(File.Exists(Path.Combine(dir, "tiny.tagged.hierarchy.json")), "sidecar tiny.tagged.hierarchy.json");
                using (var back = Model.LoadFile(path))
                    Assert(back.NodeRecord("/layers.1/act/Relu").Module == "layers.1.act", "reloaded record");
                var bytes = m.SaveBytes(new SaveOptions { TagStorage = TagStorage.DocString });
                using (var back = Model.LoadBytes(bytes))
                    Assert(back.NodeRecord("/head/Gemm").Module == "head", "bytes record");
            }
        }
        finally { Directory.Delete(dir, true); }
    }

    public static void TestConcurrentReads()
    {
        using (var r = Registry.Create())
        using (var m = Tagged(r))
        {
            var want = m.HierarchyJson();
            var errors = 0;
            var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() => {
                for (int i = 0; i < 20; i++) if (m.HierarchyJson() != want) Interlocked.Increment(ref errors);
            })).ToList();
            threads.ForEach(t => t.Start());
            threads.ForEach(t => t.Join());
            Assert(errors == 0, "concurrent reads differ");
        }
    }

    public static void TestPluginListingWithRefusals()
    {
        using (var r = Registry.Create(new RegistryOptions { Discover = false }))
        {
            var e = Throws(() => r.LoadPlugin(F("tiny.onnx")));
            Assert(e.Code == ErrorCode.Plugin && e.Message.Length > 0, e.ToString());
            var refused = r.Plugins().FirstOrDefault(p => p.Status == "refused");
            Assert(refused != null && !string.IsNullOrEmpty(refused.Reason), "refusal listed with reason");
            Assert(refused.Path.EndsWith("tiny.onnx"), refused.Path);
        }
        using (var r = Registry.Create())
        {
            var loaded = r.Plugins().Where(p => p.Loaded).ToList();
            Assert(loaded.Count > 0, "no plugin discovered; MODELEXPORT_PLUGIN_PATH=" +
                   Environment.GetEnvironmentVariable("MODELEXPORT_PLUGIN_PATH"));
            Assert(loaded.All(p => p.Name != null && p.Kind != null), "name and kind");
        }
    }

    public static void TestOptionsSerialiseOnlyWhatIsSet()
    {
        Assert(new ExportOptions().ToJson() == null, "empty export options");
        var export = new ExportOptions { Opset = 17, Inputs = {
            new InputSpec("input_ids", DType.Int64, Dim.Dynamic("batch", 2), Dim.Dynamic("seq", 16)), "mask:bool[2,16]" } };
        Assert(export.ToJson() == "{\"inputs\":[\"input_ids:int64[batch=2,seq=16]\",\"mask:bool[2,16]\"],\"opset\":17}", export.ToJson());
        var save = new SaveOptions { TagStorage = TagStorage.DocString, Sidecar = false };
        Assert(save.ToJson() == "{\"tag_storage\":\"doc_string\",\"sidecar\":false}", save.ToJson());
        var tag = new TagOptions { StrategyOptions = new Dictionary<string, object> { { "pattern", "^\"a\\\\b\"/\n" } } };
        Assert(tag.ToJson() == "{\"strategy_options\":{\"pattern\":\"^\\\"a\\\\\\\\b\\\"/\\n\"}}", tag.ToJson());
        var parsed = (Dictionary<string, object>)Json.Parse(tag.ToJson());
        Assert((string)((Dictionary<string, object>)parsed["strategy_options"])["pattern"] == "^\"a\\\\b\"/\n", "round trip");
        var reg = new RegistryOptions { Discover = false, PluginDirs = new List<string> { "/a b" } };
        Assert(reg.ToJson() == "{\"discover\":false,\"plugin_dirs\":[\"/a b\"]}", reg.ToJson());
        var json = new RegistryOptions { GraphReader = false };
        Assert(json.ToJson() == "{\"graph_reader\":false}", json.ToJson());
    }

    public static void TestModuleTreeWalk()
    {
        using (var r = Registry.Create())
        using (var plain = Model.LoadFile(F("tiny.onnx")))
        using (var m = Tagged(r))
        {
            Assert(plain.ModuleTree().Count == 0 && plain.ModuleTree().Root == null, "untagged: no tree");
            var tree = m.ModuleTree();
            Assert(tree.Root != null && tree.Root.Path == "" && tree.Root.TotalNodes == m.NodeCount, "root totals");
            var walked = tree.Walk().ToList();
            Assert(walked.Count == tree.Count && walked[0].Key.Path == "" && walked[0].Value == 0, "walk starts at the root");
            Assert(walked.Sum(x => x.Key.OwnNodes) == m.NodeCount, "own counts add up");
            foreach (var x in walked)
                Assert(x.Key.TotalNodes == x.Key.OwnNodes + x.Key.Children.Sum(c => c.TotalNodes), "total of " + x.Key.Path);
            var depth = walked.ToDictionary(x => x.Key.Path, x => x.Value);
            Assert(depth["layers.0.fc"] == depth["layers.0"] + 1, "depths");
            var fc = tree["layers.0.fc"];
            Assert(fc.OwnNodes == 1 && fc.Parent == "layers.0" && fc.Tag != null, "layers.0.fc");
            Assert(tree["no.such"] == null, "unknown path");
        }
    }

    public static void TestNodesCarryRecords()
    {
        using (var r = Registry.Create())
        using (var plain = Model.LoadFile(F("tiny.onnx")))
        using (var m = Tagged(r))
        {
            Assert(plain.Nodes().All(n => n.Record == null), "untagged: no records");
            var nodes = m.Nodes();
            Assert(nodes.Count == m.NodeCount, "node count");
            for (int i = 0; i < nodes.Count; ++i) Assert(nodes[i].Index == i && nodes[i].Record != null, "node " + i);
            var gemm = nodes.Single(n => n.Name == "/layers.0/fc/Gemm");
            var want = m.NodeRecord(gemm.Name);
            Assert(gemm.OpType == "Gemm" && gemm.Record.Module == want.Module && gemm.Record.Tag == want.Tag
                   && gemm.Record.Evidence == want.Evidence, gemm.Record.Module);
        }
    }

    public static void TestExportTorchScript()
    {
        var opts = new ExportOptions {
            Frontend = Frontend.TorchScript,
            Inputs = { new InputSpec("x", DType.Float32, Dim.Dynamic("batch", 2), Dim.Fixed(4)) } };
        using (var r = Registry.Create())
        {
            if (!r.Plugins().Any(p => p.Loaded && p.Name == "torchscript"))
            {
                var e = Throws(() => r.Export(F("tiny.pt"), opts));
                Assert(e.Message.Contains("torchscript"), e.ToString());
                throw new SkipException("torchscript plugin not loaded (build without LibTorch)");
            }
            using (var m = r.Export(F("tiny.pt"), opts))
            {
                Assert(m.NodeCount > 0, "exported nodes");
                Assert(m.Hierarchy().Modules.Any(x => x.Path == "layers.0.fc"), "layers.0.fc in tree");
            }
            Assert(r.ModuleTree("torchscript", F("tiny.pt")).Modules.Any(x => x.Path == "layers.1.act"), "module tree");
        }
    }

    public static void TestJsonReader()
    {
        var o = (Dictionary<string, object>)Json.Parse("{\"a\":[1,2.5,-3e2],\"b\":\"x\\\"\\u00e9\",\"c\":null,\"d\":true}");
        Assert(((List<object>)o["a"]).Count == 3 && (double)((List<object>)o["a"])[2] == -300, "numbers");
        Assert((string)o["b"] == "x\"\u00e9" && o["c"] == null && (bool)o["d"], "values");
    }

    public static int Main(string[] args)
    {
        fixtures = args.Length > 0 ? args[0] : "../../examples/tag_and_print_tree/testdata";
        int passed = 0, failed = 0, skipped = 0;
        foreach (var m in typeof(Tests).GetMethods(BindingFlags.Public | BindingFlags.Static)
                                       .Where(x => x.Name.StartsWith("Test")).OrderBy(x => x.Name))
        {
            try
            {
                m.Invoke(null, null);
                Console.WriteLine("PASS " + m.Name);
                passed++;
            }
            catch (TargetInvocationException e) when (e.InnerException is SkipException)
            {
                Console.WriteLine("SKIP " + m.Name + ": " + e.InnerException.Message);
                skipped++;
            }
            catch (TargetInvocationException e)
            {
                Console.WriteLine("FAIL " + m.Name + ": " + e.InnerException);
                failed++;
            }
        }
        Console.WriteLine(passed + " passed, " + failed + " failed, " + skipped + " skipped");
        return failed == 0 ? 0 : 1;
    }
}
