"""The schema-defaults table of the .pt2 frontend
(plugins/torch_export/data/aten_defaults.tsv): torch.export's serializer
leaves out an argument equal to its schema default, so the frontend fills it
from this table. It must come from the torch the fixtures are made with, and
every line must be an argument in the archive's JSON form."""
import json
import os
import re

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = os.path.join(REPO, "plugins", "torch_export", "data", "aten_defaults.tsv")
VERSIONS = os.path.join(REPO, "tests", "fixtures", "pt2", "versions.json")
ARG_KINDS = {"as_bool", "as_int", "as_float", "as_string", "as_ints", "as_floats", "as_bools", "as_scalar_type"}


def _rows():
    with open(TABLE, encoding="utf-8") as f:
        header = f.readline()
        rows = [line.rstrip("\n").split("\t") for line in f]
    return header, rows


def test_table_comes_from_the_fixtures_torch():
    header, _ = _rows()
    with open(VERSIONS, encoding="utf-8") as f:
        torch_version = json.load(f)["torch"]
    assert header.startswith(f"# torch {torch_version}:"), header


def test_every_row_is_an_archive_argument():
    _, rows = _rows()
    assert len(rows) > 500
    seen = set()
    for row in rows:
        assert len(row) == 3, row
        target, name, arg = row
        assert re.fullmatch(r"aten\.\w+\.\w+", target), row
        assert re.fullmatch(r"\w+", name), row
        value = json.loads(arg)
        assert isinstance(value, dict) and len(value) == 1 and set(value) <= ARG_KINDS, row
        assert (target, name) not in seen, f"{target} {name} twice"
        seen.add((target, name))


def test_known_defaults():
    _, rows = _rows()
    table = {(t, n): json.loads(a) for t, n, a in rows}
    assert table[("aten.max_pool2d.default", "dilation")] == {"as_ints": [1, 1]}
    assert table[("aten.max_pool2d.default", "stride")] == {"as_ints": []}
    assert table[("aten.add.Tensor", "alpha")] == {"as_int": 1}
    assert table[("aten.layer_norm.default", "eps")] == {"as_float": 1e-05}
    assert table[("aten.gelu.default", "approximate")] == {"as_string": "none"}
    assert table[("aten.cosine_similarity.default", "eps")] == {"as_float": 1e-08}
    assert ("aten.sum.dim_IntList", "dtype") not in table  # None defaults are left out
