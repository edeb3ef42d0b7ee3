"""Check the built documentation site: no broken internal link, every image loads.

Usage (``make docs-check`` runs it after ``make docs``)::

    python docs/check_site.py docs/_build/html

Every HTML page of the build is parsed: each ``<a href>`` to a local file and each
``<img src>`` must exist. Then the index, one API page and one gallery page are opened in
headless Chromium; each image on them must have loaded (``naturalWidth > 0``, counted by
``_static/images-loaded.js``), and the gallery page must show at least one figure. Prints one
line per problem and exits 1 when there is any.
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.cli.browser_available import CHROMIUM  # noqa: E402  (needs the path above)

#: The pages opened in the browser, relative to the build folder: (page, needs an image).
BROWSER_PAGES = (
    ("index.html", False),
    ("api/packages/fairacq.acquisition.html", False),
    ("auto_examples/plot_1_own_data.html", True),
)


class _Refs(HTMLParser):
    """Collects the ``href`` of links and the ``src`` of images of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        key = {"a": "href", "img": "src"}.get(tag)
        value = dict(attrs).get(key) if key else None
        if value:
            self.refs.append((tag, value))


def local_target(page: Path, ref: str) -> Path | None:
    """Resolve a reference on ``page`` to a local file (None: outside or in-page).

    Parameters
    ----------
    page : pathlib.Path
        The HTML file holding the reference.
    ref : str
        The ``href`` or ``src`` value.

    Returns
    -------
    pathlib.Path or None
        The local file it names (it may not exist); None for a URL with a scheme (``https:``,
        ``mailto:``, ``data:``) or a reference to an anchor of the same page.
    """
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return (page.parent / unquote(parts.path)).resolve()


def broken_refs(site: Path) -> list[str]:
    """Every local link or image of the site whose file does not exist.

    Parameters
    ----------
    site : pathlib.Path
        The build folder (``docs/_build/html``).

    Returns
    -------
    list of str
        One line per broken reference: the page, the tag and the reference.
    """
    problems = []
    for page in sorted(site.rglob("*.html")):
        parser = _Refs()
        parser.feed(page.read_text(encoding="utf-8"))
        for tag, ref in parser.refs:
            target = local_target(page, ref)
            if target is not None and not target.exists():
                problems.append(f"{page.relative_to(site)}: <{tag}> {ref} does not exist")
    return problems


def images_loaded(page: Path, chromium: str) -> tuple[int, int]:
    """Open ``page`` in headless Chromium; how many of its images loaded, out of how many.

    Parameters
    ----------
    page : pathlib.Path
        A built HTML page (it includes ``_static/images-loaded.js``).
    chromium : str
        The Chromium executable.

    Returns
    -------
    tuple of int
        ``(loaded, total)``.

    Raises
    ------
    RuntimeError
        If the page did not report its images (its script did not run).
    """
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    match = re.search(r'<body[^>]*data-images="(\d+)/(\d+)"', dom)
    if match is None:
        raise RuntimeError(f"{page.name}: the page did not report its images (script not run)")
    loaded, total = map(int, match.groups())
    return loaded, total


def browser_problems(site: Path, chromium: str) -> list[str]:
    """List the images that did not load on the pages of :data:`BROWSER_PAGES`.

    Parameters
    ----------
    site : pathlib.Path
        The build folder.
    chromium : str
        The Chromium executable.

    Returns
    -------
    list of str
        One line per page with a problem (missing page, image not loaded, no figure).
    """
    problems = []
    for name, needs_image in BROWSER_PAGES:
        page = site / name
        if not page.exists():
            problems.append(f"{name}: page missing from the build")
            continue
        loaded, total = images_loaded(page, chromium)
        print(f"{name}: {loaded}/{total} images loaded in Chromium")
        if loaded < total:
            problems.append(f"{name}: {total - loaded} of {total} images did not load")
        if needs_image and total == 0:
            problems.append(f"{name}: no figure on a gallery page")
    return problems


def main(argv: list[str]) -> int:
    """Run both checks on the build folder given; 0 when the site is sound, 1 otherwise."""
    site = Path(argv[0] if argv else ROOT / "docs" / "_build" / "html").resolve()
    if not (site / "index.html").exists():
        print(f"error: {site} holds no built site; run `make docs` first.", file=sys.stderr)
        return 2
    if CHROMIUM is None:
        print("error: Chromium is not installed (apt-get install chromium).", file=sys.stderr)
        return 2
    problems = broken_refs(site) + browser_problems(site, CHROMIUM)
    for line in problems:
        print(f"error: {line}", file=sys.stderr)
    n_pages = sum(1 for _ in site.rglob("*.html"))
    print(f"site check: {n_pages} pages, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
