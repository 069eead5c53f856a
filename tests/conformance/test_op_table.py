"""docs/ops.md is the suite's own table (op_table.py), never hand-edited."""
import op_table


def test_docs_op_table_is_current():
    with open(op_table.DOC) as f:
        assert f.read() == op_table.render(), "docs/ops.md is stale: run python3 tests/conformance/op_table.py"
