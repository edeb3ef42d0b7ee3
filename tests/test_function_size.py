"""Functions stay short enough to read at once: a ratchet that can only shrink.

A function's size is the number of lines of its body after the docstring. A new function
over :data:`LIMIT` lines fails; a listed one may not grow past its recorded size, and must
leave the list once it is back under the limit (so the list only shrinks). Complexity is
ruff's business (C901, PLR0912, PLR0915 in ``pyproject.toml``, with ``# noqa`` on what is
left; RUF100 flags a ``noqa`` that is no longer needed).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "fairacq"
#: The library and the paper harness beside it.
ROOTS = (SRC, SRC.with_name("fairacq_experiments"))
LIMIT = 60

#: What is left above the limit: "module:qualified.name" -> its size when last measured.
LONG_FUNCTIONS: dict[str, int] = {
    "fairacq.relational.hlmrf._grounding:_ground_arithmetic": 69,
    "fairacq.acquisition.methods._partition:partition_pool": 65,
}


def function_sizes(root: Path = SRC) -> dict[str, int]:
    """Return the body size of every function under ``root``, keyed ``module:qualname``."""
    sizes: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        _walk(ast.parse(path.read_text()), module, "", sizes)
    return sizes


def _walk(node: ast.AST, module: str, prefix: str, sizes: dict[str, int]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{child.name}"
            sizes[f"{module}:{name}"] = _body_size(child)
            _walk(child, module, f"{name}.", sizes)
        elif isinstance(child, ast.ClassDef):
            _walk(child, module, f"{prefix}{child.name}.", sizes)


def _body_size(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = func.body
    first = body[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    if docstring and isinstance(first.value.value, str):
        if len(body) == 1:
            return 0
        first = body[1]
    end = func.end_lineno or first.lineno
    return end - first.lineno + 1


def test_no_new_long_function_and_none_grows() -> None:
    sizes = {k: v for root in ROOTS for k, v in function_sizes(root).items()}
    new = {k: v for k, v in sizes.items() if v > LIMIT and k not in LONG_FUNCTIONS}
    assert not new, f"functions over {LIMIT} lines (split them): {new}"
    grown = {
        k: (limit, sizes[k]) for k, limit in LONG_FUNCTIONS.items() if sizes.get(k, 0) > limit
    }
    assert not grown, f"listed functions grew (recorded, now): {grown}"


def test_the_list_only_shrinks() -> None:
    sizes = {k: v for root in ROOTS for k, v in function_sizes(root).items()}
    done = sorted(k for k in LONG_FUNCTIONS if sizes.get(k, 0) <= LIMIT)
    assert not done, f"back under {LIMIT} lines or gone: remove from LONG_FUNCTIONS: {done}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('def f():\n    """Doc."""\n    a = 1\n    return a\n', {"m:f": 2}),
        ("class C:\n    def g(self):\n        return 1\n", {"m:C.g": 1}),
        ('def f():\n    """Only a docstring."""\n', {"m:f": 0}),
    ],
)
def test_sizes_count_the_body_after_the_docstring(
    tmp_path: Path, source: str, expected: dict[str, int]
) -> None:
    (tmp_path / "m.py").write_text(source)
    sizes = function_sizes(tmp_path)
    assert {k.split(":", 1)[1]: v for k, v in sizes.items()} == {
        k.split(":", 1)[1]: v for k, v in expected.items()
    }
