"""Rule files: every way a rule file can be wrong gives one line naming the file and fix."""

from __future__ import annotations

import pytest

from fairacq.exceptions import CorruptFileError, InvalidDataError
from fairacq.relational import parse_rules, read_rules, rule_arities


@pytest.mark.parametrize(
    ("content", "error", "fragment"),
    [
        (bytes(range(256)), CorruptFileError, "is not UTF-8 text"),
        (b"5: a(X) -> b(X) ^2\x00\n", CorruptFileError, "NUL bytes"),
        (b"# only a comment\n\n", CorruptFileError, "holds no rule"),
        (b"5: a(X) -> b(X) ^2\n1: a(X) -> -> b(X) ^2\n", InvalidDataError, "line 2: Cannot parse"),
        (b"1: " + b"(" * 5000 + b"a(X)" + b")" * 5000 + b" -> b(X) ^2\n", InvalidDataError,
         "nest more than 64 deep"),
    ],
)  # fmt: skip
def test_bad_rule_files(tmp_path, content, error, fragment):
    path = tmp_path / "model.psl"
    path.write_bytes(content)
    with pytest.raises(error, match=fragment) as err:
        read_rules(path)
    assert str(path) in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(CorruptFileError, match="does not exist"):
        read_rules(tmp_path / "nope.psl")
    with pytest.raises(CorruptFileError, match="is a folder"):
        read_rules(tmp_path)


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "model.psl"
    path.write_bytes("\ufeff5: a(X) -> b(X) ^2\n".encode())
    assert [r.text for r in read_rules(path)] == ["5.0: a(X) -> b(X) ^2"]


def test_rule_arities_include_filters_and_refuse_two_arities():
    rules = parse_rules("a(+X) <= 1 . {X: g(X)}\n1: k(X, Y) & a(X) -> b(Y) ^2")
    assert rule_arities(rules) == {"a": 1, "g": 1, "k": 2, "b": 1}
    with pytest.raises(InvalidDataError, match="'a' takes 1 argument"):
        rule_arities(parse_rules("1: a(X) -> b(X) ^2\n1: a(X, Y) -> b(X) ^2"))
