"""Sphinx configuration of the fairacq documentation site (``make docs``)."""

from __future__ import annotations

import os
import reprlib
import sys
from pathlib import Path

import fairacq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "api"))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from api_pages import write_pages  # noqa: E402  (needs the path above)

write_pages(HERE / "api" / "packages", HERE / "api" / "generated")

project = "fairacq"
author = "the fairacq developers"
copyright = "the fairacq developers"
release = fairacq.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
templates_path = ["_templates"]
exclude_patterns = ["_build", "results/*/traces", "**/README.txt"]

# API reference: one stub page per public name, numpydoc renders the docstrings.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

# The Markdown guides: GitHub-style headings get anchors so their links resolve.
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
}

html_theme = "pydata_sphinx_theme"
html_title = f"fairacq {release}"
html_static_path = ["_static"]
html_js_files = ["images-loaded.js"]
html_css_files = ["fairacq.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_show_sourcelink = False
html_copy_source = False


def _constant_docstring(app, what, name, obj, options, lines):
    """Show a constant's value where autodoc would give its type's docstring."""
    own = type(obj).__doc__
    if what in ("data", "attribute") and own and " ".join(lines).split() == own.split():
        lines[:] = [f"Value: ``{reprlib.repr(obj)}``"]


def _skip_request_setters(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated ``set_*_request`` methods (metadata routing)."""
    return True if name.startswith("set_") and name.endswith("_request") else None


def setup(app):
    """Register the hooks above."""
    app.connect("autodoc-process-docstring", _constant_docstring)
    app.connect("autodoc-skip-member", _skip_request_setters)
