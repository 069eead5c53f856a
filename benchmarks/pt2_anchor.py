#!/usr/bin/env python3
"""The anchor benchmark of the .pt2 frontend: from the same saved `.pt2`,
each as its own process under `/usr/bin/time -v` (wall time, peak RSS):

  (a) modelexport   `modelexport export M.pt2 -o M.mx.onnx`
  (b) anchor        `torch.export.load` + `torch.onnx.export(ep, dynamo=True)` + save
                    (torch 2.15's own exporter; its in-call time is reported too)
  (c) floor         read the archive's weights and write them into an ONNX file
                    (initializers only, no nodes) and fsync it, as modelexport's
                    all-or-nothing writer does before it replaces the destination
                    (--floor-no-fsync leaves it in the page cache): Python stdlib only -- the zip's
                    central directory, mmap, a hand-written protobuf encoder streaming
                    the stored bytes; no onnx/numpy import (numpy only for a
                    non-contiguous tensor). `--floor-onnx` uses the onnx package instead.

Runs in the venv with torch 2.15 (not an SDK dependency):

    /work/venvs/pt2/bin/python benchmarks/pt2_anchor.py                  # resnet50, vit_b_16, bert_base
    /work/venvs/pt2/bin/python benchmarks/pt2_anchor.py --models resnet18 --level core --repeat 3
    options: --skip-anchor, --skip-mx, --workdir DIR (keeps the files), --markdown FILE

The CLI is MODELEXPORT_BIN (default `modelexport` on PATH; also MODELEXPORT_CLI
or <repo>/build*/sdk/modelexport), plugins from MODELEXPORT_PLUGIN_PATH.
bert_base is BertModel at BERT-base size (12 layers x 768, vocab 30522, random
weights, sdpa attention) with dynamic batch and sequence. The programs are
saved at the TRAINING level by default (what torch.export.export gives).
Targets (issue 12): modelexport >= 20x faster than the anchor, <= 0.3x its
peak RSS, and within 1.5x of the floor's wall time.
"""
import argparse
import json
import mmap
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, ".."))
DEFAULT_MODELS = ["resnet50", "vit_b_16", "bert_base"]
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
from cli_path import find_cli  # noqa: E402


# ------------------------------------------------------------------ floor
# pt2 ScalarType -> (ONNX TensorProto.DataType, element size)
_PT2_TO_ONNX = {1: (2, 1), 2: (3, 1), 3: (5, 2), 4: (6, 4), 5: (7, 8), 6: (10, 2), 7: (1, 4),
                8: (11, 8), 12: (9, 1), 13: (16, 2)}


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire):
    return _varint((field << 3) | wire)


def _len_field(field, payload_len):
    return _key(field, 2) + _varint(payload_len)


def _tensor_head(name, dims, onnx_type, nbytes):
    """TensorProto fields before raw_data, and raw_data's key+length (field 9)."""
    packed = b"".join(_varint(d) for d in dims)
    head = b""
    if dims:
        head += _len_field(1, len(packed)) + packed
    head += _key(2, 0) + _varint(onnx_type)
    nm = name.encode()
    head += _len_field(8, len(nm)) + nm
    head += _len_field(9, nbytes)
    return head


def floor_main(pt2, out, use_onnx=False, fsync=True):
    t0 = time.perf_counter()
    z = zipfile.ZipFile(pt2)
    names = z.namelist()
    prefix = next(n for n in names if n.endswith("/archive_format")).rsplit("/", 1)[0] + "/"
    tensors = []  # (name, entry, byte offset, nbytes, dims, onnx type, meta)
    seen = set()
    for cfg_name, folder in (("data/weights/model_weights_config.json", "data/weights/"),
                             ("data/constants/model_constants_config.json", "data/constants/")):
        if prefix + cfg_name not in names:
            continue
        for key, cfg in json.loads(z.read(prefix + cfg_name))["config"].items():
            meta = cfg["tensor_meta"]
            dims = [s["as_int"] for s in meta["sizes"]]
            strides = [s["as_int"] for s in meta["strides"]]
            off = meta["storage_offset"]["as_int"]
            onnx_type, esize = _PT2_TO_ONNX[meta["dtype"]]
            ident = (folder + cfg["path_name"], off, tuple(dims), tuple(strides))
            if ident in seen:          # tied weights: one initializer
                continue
            seen.add(ident)
            tensors.append((key, prefix + folder + cfg["path_name"], off * esize,
                            esize, dims, strides, onnx_type))
    fd = os.open(pt2, os.O_RDONLY)
    mm = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    view = memoryview(mm)
    info = {i.filename: i for i in z.infolist()}

    def data_start(entry):
        zi = info[entry]
        nlen, elen = struct.unpack_from("<HH", mm, zi.header_offset + 26)
        return zi.header_offset + 30 + nlen + elen

    def contiguous(dims, strides):
        expect = 1
        for d, s in zip(reversed(dims), reversed(strides)):
            if d != 1 and s != expect:
                return False
            expect *= d
        return True

    chunks = []  # (name, dims, type, bytes-like)
    for name, entry, boff, esize, dims, strides, onnx_type in tensors:
        n = 1
        for d in dims:
            n *= d
        start = data_start(entry) + boff
        if contiguous(dims, strides):
            data = view[start:start + n * esize]
        else:
            import numpy as np
            flat = np.frombuffer(view[data_start(entry):data_start(entry) + info[entry].file_size], dtype=np.uint8)
            arr = np.lib.stride_tricks.as_strided(flat[boff:], shape=dims + [esize],
                                                  strides=[s * esize for s in strides] + [1])
            data = arr.copy().tobytes()
        chunks.append((name, dims, onnx_type, data))

    if use_onnx:
        import numpy as np
        import onnx
        from onnx import helper
        inits = []
        for name, dims, onnx_type, data in chunks:
            t = onnx.TensorProto(name=name, data_type=onnx_type, dims=dims)
            t.raw_data = bytes(data)
            inits.append(t)
        g = helper.make_graph([], "weights", [], [], initializer=inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        onnx.save(m, out)
    else:
        # ModelProto{ir_version=1, opset_import=8, graph=7{initializer=5, name=2}}
        inits = [(_tensor_head(name, dims, t, len(data)), data) for name, dims, t, data in chunks]
        gname = b"weights"
        graph_len = len(_len_field(2, len(gname))) + len(gname)
        for head, data in inits:
            body = len(head) + len(data)
            graph_len += len(_len_field(5, body)) + body
        opset = _len_field(1, 0) + _key(2, 0) + _varint(17)
        with open(out, "wb", buffering=1 << 20) as f:
            f.write(_key(1, 0) + _varint(8))
            f.write(_len_field(8, len(opset)) + opset)
            f.write(_len_field(7, graph_len))
            f.write(_len_field(2, len(gname)) + gname)
            for head, data in inits:
                f.write(_len_field(5, len(head) + len(data)))
                f.write(head)
                f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
    print(json.dumps({"floor_s": time.perf_counter() - t0, "tensors": len(chunks)}))


# ------------------------------------------------------------------ anchor
def anchor_main(pt2, out):
    import torch
    t0 = time.perf_counter()
    # a Hugging Face program's out_spec names ModelOutput classes: torch.export.load
    # cannot rebuild the pytree unless their module is imported (as a user must)
    sys.path.insert(0, os.path.join(REPO, "tests", "zoo_pt2"))
    import pt2_models
    ep = pt2_models.load(pt2)
    t1 = time.perf_counter()
    prog = torch.onnx.export(ep, (), dynamo=True, verbose=False)
    t2 = time.perf_counter()
    prog.save(out)
    t3 = time.perf_counter()
    print(json.dumps({"load_s": t1 - t0, "export_s": t2 - t1, "save_s": t3 - t2,
                      "nodes": len(prog.model_proto.graph.node)}))


# ------------------------------------------------------------------ driver
def timed(cmd, timeout):
    """Run under /usr/bin/time -v: (rc, wall s, peak RSS MB, stdout, stderr tail)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, timeout=timeout)
    wall = rss = None
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    if m:
        parts = [float(x) for x in m.group(1).split(":")]
        wall = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    if m:
        rss = int(m.group(1)) / 1024.0
    # CPU seconds (user + system) of the child: on a machine shared with other
    # work the wall time also measures the neighbours and the disk's queue.
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr))
    err = p.stderr.split("\tCommand being timed")[0].strip().splitlines()
    return p.returncode, wall, rss, p.stdout, " | ".join(err[-3:]), cpu


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return {}


def prepare(name, workdir, level):
    """Build, torch.export and save NAME.pt2 in a child process (keeps this one small)."""
    path = os.path.join(workdir, f"{name}.{level}.pt2")
    if os.path.exists(path):
        return path
    code = (
        "import sys, time, torch; sys.path.insert(0, %r); import pt2_models\n"
        "c = pt2_models.case_by_name(%r); t0 = time.perf_counter()\n"
        "ep, info = pt2_models.export(c)\n"
        "assert ep is not None, info\n"
        "ep = ep if %r == 'training' else pt2_models.decompose(ep)[0]\n"
        "torch.export.save(ep, %r)\n"
        "print('prepared', %r, info['dynamic'], round(time.perf_counter() - t0, 1), 's')\n"
    ) % (os.path.join(REPO, "tests", "zoo_pt2"), name, level, path, name)
    subprocess.run([sys.executable, "-c", code], check=True)
    return path


def best(runs):
    ok = [r for r in runs if r[0] == 0 and r[1] is not None]
    if not ok:
        return runs[-1]
    return min(ok, key=lambda r: r[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child-floor", nargs=2, metavar=("PT2", "OUT"))
    ap.add_argument("--child-anchor", nargs=2, metavar=("PT2", "OUT"))
    ap.add_argument("--floor-onnx", action="store_true")
    ap.add_argument("--floor-no-fsync", action="store_true",
                    help="the floor leaves its file in the page cache (modelexport fsyncs its outputs "
                         "before they replace the destination, so the floor does too by default)")
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--level", default="training", choices=["training", "core"])
    ap.add_argument("--repeat", type=int, default=1, help="runs per program; the fastest is reported")
    ap.add_argument("--skip-anchor", action="store_true")
    ap.add_argument("--skip-mx", action="store_true")
    ap.add_argument("--workdir", default="")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--timeout", type=int, default=1800)
    args = ap.parse_args()
    if args.child_floor:
        return floor_main(*args.child_floor, use_onnx=args.floor_onnx, fsync=not args.floor_no_fsync)
    if args.child_anchor:
        return anchor_main(*args.child_anchor)

    found = None if args.skip_mx else find_cli()
    cli = found[0] if found else None
    workdir = args.workdir or tempfile.mkdtemp(prefix="pt2_anchor_")
    os.makedirs(workdir, exist_ok=True)
    print(f"modelexport: {cli or 'not found / skipped'}; workdir {workdir}", flush=True)
    rows = []
    try:
        for name in [m for m in args.models.split(",") if m]:
            pt2 = prepare(name, workdir, args.level)
            row = {"model": name, "pt2_mb": os.path.getsize(pt2) / 1e6}
            progs = {"floor": [sys.executable, os.path.abspath(__file__), "--child-floor", pt2,
                               os.path.join(workdir, f"{name}.floor.onnx")] + (["--floor-onnx"] if args.floor_onnx else []) + \
                              (["--floor-no-fsync"] if args.floor_no_fsync else [])}
            if cli:
                progs["mx"] = [cli, "export", pt2, "-o", os.path.join(workdir, f"{name}.mx.onnx")]
            if not args.skip_anchor:
                progs["anchor"] = [sys.executable, os.path.abspath(__file__), "--child-anchor", pt2,
                                   os.path.join(workdir, f"{name}.anchor.onnx")]
            for prog, cmd in progs.items():
                runs = [timed(cmd, args.timeout) for _ in range(args.repeat)]
                rc, wall, rss, out, err, cpu = best(runs)
                row[prog] = {"rc": rc, "wall_s": wall, "cpu_s": cpu, "rss_mb": rss, "err": err if rc else ""}
                row[prog].update(last_json(out) if prog != "mx" else {})
                onnx_out = cmd[-1] if prog == "mx" else cmd[4]
                if rc == 0 and os.path.exists(onnx_out):
                    row[prog]["onnx_mb"] = os.path.getsize(onnx_out) / 1e6
                print(f"{name:10s} {prog:6s} rc={rc} wall={wall}s rss={rss and round(rss)}MB "
                      f"{json.dumps({k: v for k, v in row[prog].items() if k not in ('rc', 'wall_s', 'rss_mb')})}",
                      flush=True)
            if "floor" in row and row["floor"]["rc"] == 0:
                import onnx  # the floor's file is a valid ONNX model with all the weights
                m = onnx.load(os.path.join(workdir, f"{name}.floor.onnx"))
                row["floor"]["initializers"] = len(m.graph.initializer)
            rows.append(row)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    def cell(r, p):
        d = r.get(p)
        if not d:
            return "—"
        if d["rc"] != 0:
            return f"FAILED ({d['err'][:60]})"
        extra = f" (in call {d['export_s']:.1f} s)" if p == "anchor" and "export_s" in d else ""
        return f"{d['wall_s']:.2f} s ({d['cpu_s']:.2f} s CPU) / {d['rss_mb']:.0f} MB{extra}"

    def ratio(a, b, key):
        try:
            if a["rc"] or b["rc"]:
                return "—"
            return f"{a[key] / b[key]:.2f}×"
        except (KeyError, TypeError, ZeroDivisionError):
            return "—"

    lines = ["| model | .pt2 MB | modelexport (wall / peak RSS) | anchor: load + torch.onnx.export(dynamo) | "
             "floor: weights → ONNX | anchor ÷ mx time | mx ÷ anchor RSS | mx ÷ floor time | mx ÷ floor CPU |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['pt2_mb']:.0f} | {cell(r, 'mx')} | {cell(r, 'anchor')} | "
                     f"{cell(r, 'floor')} | {ratio(r.get('anchor', {}), r.get('mx', {}), 'wall_s')} | "
                     f"{ratio(r.get('mx', {}), r.get('anchor', {}), 'rss_mb')} | "
                     f"{ratio(r.get('mx', {}), r.get('floor', {}), 'wall_s')} | "
                     f"{ratio(r.get('mx', {}), r.get('floor', {}), 'cpu_s')} |")
    lines.append("")
    lines.append(f"Level {args.level}; best of {args.repeat}; each program its own process under "
                 f"/usr/bin/time -v; targets: anchor ÷ mx ≥ 20×, mx ÷ anchor RSS ≤ 0.3×, mx ÷ floor ≤ 1.5×.")
    table = "\n".join(lines) + "\n"
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main() or 0)
