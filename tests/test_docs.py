"""The documentation site's sources: API pages cover the public API, examples are sound.

Sphinx itself runs in ``make docs-check`` (CI), not here: these checks take well under 2 s.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from fairacq.data import dataset_info

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


api_pages = _load(ROOT / "docs" / "api" / "api_pages.py")
check_site = _load(ROOT / "docs" / "check_site.py")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each written API page's package and the names its table lists."""
    out = tmp_path_factory.mktemp("api")
    written = api_pages.write_pages(out / "packages", out / "generated")
    listed = {}
    for path in written:
        text = path.read_text(encoding="utf-8")
        listed[path.stem] = re.findall(r"^   (\w+)$", text.split(".. autosummary::")[1], re.M)
    return listed


def test_every_public_package_is_documented_and_the_cli_is_not(pages):
    packages = api_pages.public_packages()
    assert packages[0] == "fairacq"
    assert not [p for p in packages if p.startswith("fairacq.cli")]
    for family in ("acquisition", "sampling", "features", "filtering", "relational", "compare"):
        assert f"fairacq.{family}" in pages


def test_every_public_class_and_function_has_exactly_one_page(pages):
    documented: dict[int, str] = {}
    for package, names in pages.items():
        module = importlib.import_module(package)
        for name in names:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                assert id(obj) not in documented, f"{package}.{name} also on {documented[id(obj)]}"
                documented[id(obj)] = package
    for package in api_pages.public_packages():
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                assert id(obj) in documented, f"{package}.{name} has no API page"


def test_constants_are_listed_on_their_package_page(pages):
    assert "REWARD_KINDS" in pages["fairacq.acquisition"]
    assert "__version__" not in pages["fairacq"]


def test_a_stub_of_a_removed_name_is_deleted(tmp_path):
    stubs = tmp_path / "generated"
    stubs.mkdir()
    (stubs / "fairacq.acquisition.GoneAcquirer.rst").write_text("old")
    (stubs / "fairacq.acquisition.acquire.rst").write_text("kept")
    api_pages.write_pages(tmp_path / "packages", stubs)
    assert sorted(p.name for p in stubs.iterdir()) == ["fairacq.acquisition.acquire.rst"]


def test_the_gallery_holds_the_promised_examples():
    names = {path.stem for path in EXAMPLES}
    for part in ("own_data", "rows", "groups", "features", "filtering", "relational", "compare"):
        assert any(part in name for name in names), f"no example about {part}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_has_a_title_and_draws_a_figure(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc is not None, f"{path.name} has no docstring"
    title, underline, *_ = doc.strip().splitlines()
    assert underline == "=" * len(title), f"{path.name}: the title must be underlined with ="
    source = path.read_text(encoding="utf-8")
    assert "plt.subplots" in source or "plot_tradeoff" in source, f"{path.name} draws nothing"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_uses_only_bundled_or_synthetic_data(path):
    source = path.read_text(encoding="utf-8")
    for banned in ("FAIRACQ_DATA", "fetch_dataset", "http://", "https://", "../shared"):
        assert banned not in source, f"{path.name} reaches outside the repository ({banned})"
    for name in re.findall(r'load_dataset\("([\w-]+)"', source):
        assert dataset_info(name).bundled, f"{path.name} loads {name}, which is not bundled"


def test_site_check_reports_a_broken_link_and_a_missing_image(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "ok.html").write_text("<p>ok</p>")
    (tmp_path / "index.html").write_text(
        '<a href="sub/ok.html#top">fine</a> <a href="#here">anchor</a> '
        '<a href="https://example.org/">outside</a> <a href="gone.html">broken</a> '
        '<img src="data:image/png;base64,AAAA"> <img src="_images/missing.png">'
    )
    problems = check_site.broken_refs(tmp_path)
    assert problems == [
        "index.html: <a> gone.html does not exist",
        "index.html: <img> _images/missing.png does not exist",
    ]
