#!/usr/bin/env python3
"""Derives the hostile .pt2 seeds of fuzz/corpus/pt2_archive/ from the
committed base archive blk.pt2 (a conv/batchnorm/relu/linear program written
by torch 2.15's torch.export.save; see tests/fixtures/pt2 for how such
programs are made). Needs only the standard library:

    python3 fuzz/corpus/make_pt2_seeds.py

Each seed is one defect the torch_export frontend must refuse clearly
(tests/pt2/test_pt2_refusals.py checks the messages)."""
import io
import json
import pathlib
import zipfile

HERE = pathlib.Path(__file__).resolve().parent / "pt2_archive"
BASE = HERE / "blk.pt2"


def rewrite(name, edit=lambda n, b: b, compression=zipfile.ZIP_STORED, rename=lambda n: n):
    src = zipfile.ZipFile(BASE)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as out:
        for info in src.infolist():
            out.writestr(rename(info.filename), edit(info.filename, src.read(info.filename)))
    (HERE / name).write_bytes(buf.getvalue())


def edit_model(fn):
    def edit(name, data):
        if not name.endswith("models/model.json"):
            return data
        model = json.loads(data)
        fn(model)
        return json.dumps(model).encode()
    return edit


def nodes(model):
    return model["graph_module"]["graph"]["nodes"]


def main():
    data = BASE.read_bytes()
    (HERE / "not_a_zip.pt2").write_bytes(b"not a zip at all")
    (HERE / "truncated.pt2").write_bytes(data[: len(data) // 2])
    rewrite("compressed.pt2", compression=zipfile.ZIP_DEFLATED)
    rewrite("dotdot_name.pt2", rename=lambda n: n.replace("blk/data/weights/weight_0", "blk/../../etc/weight_0"))
    rewrite("schema_major_7.pt2", edit_model(lambda m: m.__setitem__("schema_version", {"major": 7, "minor": 3})))
    rewrite("bad_format.pt2", lambda n, b: b"pt3" if n.endswith("archive_format") else b)

    def overrun(name, b):
        if not name.endswith("model_weights_config.json"):
            return b
        cfg = json.loads(b)
        cfg["config"]["conv.weight"]["tensor_meta"]["sizes"][0] = {"as_int": 1 << 40}
        return json.dumps(cfg).encode()
    rewrite("weight_overruns.pt2", overrun)

    def undefined(m):
        nodes(m)[1]["inputs"][0]["arg"] = {"as_tensor": {"name": "nowhere"}}
    rewrite("undefined_value.pt2", edit_model(undefined))

    def uncomputed(m):  # relu answers a second output its lowering leaves uncomputed; add reads it
        nodes(m)[3]["outputs"].append({"as_tensor": {"name": "relu_extra"}})
        nodes(m)[4]["inputs"][1]["arg"] = {"as_tensor": {"name": "relu_extra"}}
    rewrite("uncomputed_output.pt2", edit_model(uncomputed))

    def unknown(m):
        nodes(m)[3]["target"] = "torch.ops.aten.no_such_op.default"
    rewrite("unknown_op.pt2", edit_model(unknown))

    def two_unknown(m):
        nodes(m)[3]["target"] = "torch.ops.aten.no_such_op.default"
        nodes(m)[5]["target"] = "torch.ops.aten.other_missing_op.default"
    rewrite("two_unknown_ops.pt2", edit_model(two_unknown))

    # Issue 32: what torch.export.load refuses, and sizes out of proportion.
    def append(name, extra):
        src = zipfile.ZipFile(BASE)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as out:
            for info in src.infolist():
                out.writestr(info.filename, src.read(info.filename))
            for entry, data in extra:
                out.writestr(entry, data)  # a duplicate name is kept (zipfile warns)
        (HERE / name).write_bytes(buf.getvalue())

    program = zipfile.ZipFile(BASE).read("blk/models/model.json")
    append("duplicate_program.pt2", [("blk/models/model.json", program.replace(b"aten.relu", b"aten.sigmoid"))])
    append("duplicate_weight.pt2", [("blk/data/weights/weight_0", bytes(432))])
    append("two_folders.pt2", [("other/models/model.json", program)])

    def zero_strides(name, b):
        if not name.endswith("model_weights_config.json"):
            return b
        cfg = json.loads(b)
        meta = cfg["config"]["fc.weight"]["tensor_meta"]
        meta["sizes"] = [{"as_int": 1 << 31}, {"as_int": 1 << 31}]
        meta["strides"] = [{"as_int": 0}, {"as_int": 0}]
        return json.dumps(cfg).encode()
    rewrite("huge_zero_strides.pt2", zero_strides)
    rewrite("range_min_above_max.pt2",
            edit_model(lambda m: m["range_constraints"].__setitem__("s77", {"min_val": 10, "max_val": 4})))

    def defined_twice(m):
        nodes(m)[3]["outputs"][0]["as_tensor"]["name"] = nodes(m)[2]["outputs"][0]["as_tensor"]["name"]
    rewrite("defined_twice.pt2", edit_model(defined_twice))

    def bad_stacks(m):
        nodes(m)[1]["metadata"]["nn_module_stack"] = "L__self__;garbage"
        nodes(m)[3]["metadata"]["nn_module_stack"] = 5
    rewrite("module_stack_malformed.pt2", edit_model(bad_stacks))

    def dtype_99(m):
        m["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 99
    rewrite("dtype_99.pt2", edit_model(dtype_99))


if __name__ == "__main__":
    main()
