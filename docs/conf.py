"""Sphinx configuration of gctheory's documentation site.

Build (offline, warnings are errors)::

    pip install -e ".[docs]"
    sphinx-build -W docs docs/_build/html

The pages are the Markdown files beside this one, read by MyST. The gallery
(``docs/auto_examples/``, a build product ignored by git) is made by
sphinx-gallery from the scripts in ``examples/`` at the top of the checkout,
each run once per build. The API
reference is generated at build time from each public module's ``__all__``
(so a name added to or moved between modules needs no edit here): this file
writes ``api/<module>.rst`` (one page per public module, with an autosummary
table of its names) before autosummary turns each name into its own page under
``api/generated/``. Both are build products, ignored by git.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the checkout, also without `pip install -e .`
os.environ.setdefault("MPLBACKEND", "Agg")

import gctheory  # noqa: E402

project = "gctheory"
author = "gctheory developers"
copyright = "gctheory developers"  # noqa: A001
release = version = gctheory.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",  # the HTML only references MathJax; the build stays offline
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb"]
templates_path = ["_templates"]
# the theme of numpy, scipy, pandas and xarray: a wide content column for code
html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_css_files = ["gctheory.css"]  # a wider code column (see the file)
html_title = f"gctheory {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    # no right-hand column: the page's table of contents sits under the section
    # navigation on the left, so a 100-column code line fits a 1280-pixel window
    "secondary_sidebar_items": [],
    "navigation_with_keys": False,
    # nothing fetched at build or view time (no version switcher, no icons from a CDN)
    "icon_links": [],
}
html_sidebars = {
    "index": [],  # the front page lists the guides itself
    "**": ["sidebar-nav-bs", "page-toc", "sourcelink"],
}

# --- gallery (sphinx-gallery) ------------------------------------------------
# Each ``examples/plot_*.py`` runs once per build, small sizes only: together they
# take about a minute of CPU. Their output, docs/auto_examples/ (and the timing page
# sg_execution_times.rst), is written into the source tree and ignored by git.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": str(HERE / "auto_examples"),
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"(__init__|_data)\.py",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "reset_modules": ("matplotlib",),
    "capture_repr": ("_repr_html_", "__repr__"),
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "first_notebook_cell": None,
    "show_memory": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "write_computation_times": True,
    # "Examples using this name" at the foot of each API page
    "doc_module": ("gctheory",),
    "backreferences_dir": str(HERE / "api" / "backreferences"),
    "inspect_global_variables": False,
    "min_reported_time": 1,
}

# The pages are plain GitHub Markdown: `#` headings from level 1, links between
# the .md files, and tables. MyST reads them as they are.
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# --- API reference -----------------------------------------------------------

#: every public module with a page, in the order of the index; names are read
#: from each module's ``__all__``
PUBLIC_MODULES = [
    "gctheory.montecarlo",
    "gctheory.generators",
    "gctheory.codes",
    "gctheory.conditioning",
    "gctheory.tables",
    "gctheory.ldpc",
    "gctheory.load_bounds",
    "gctheory.order_stats",
    "gctheory.delays",
    "gctheory.runtime",
    "gctheory.training",
    "gctheory.tails",
    "gctheory.tradeoff",
    "gctheory.sgc",
    "gctheory.cluster",
    "gctheory.data",
    "gctheory.sweeps",
    "gctheory.calibration",
    "gctheory.plots",
]

autosummary_generate = True
autosummary_generate_overwrite = True
autosummary_imported_members = True  # the public names are re-exported from private files
autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    # a code's page shows the methods it inherits from GradientCode (decode, ...),
    # but not those of Python's own bases (BaseException.with_traceback, ...)
    "inherited-members": "object,BaseException,Exception,ValueError,Warning,UserWarning,"
    "Generic,Protocol",
}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc's Parameters sections already give the types
autodoc_mock_imports = ["numba", "dask", "distributed", "sklearn"]  # optional extras

# numpydoc: the class pages list their members through autodoc's :members:, so
# numpydoc's own member tables (autosummary tables without stub pages, which
# would point at pages that do not exist) are off.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# Type names in signatures and "Parameters" sections (ndarray, Generator,
# Fraction, ...) are not all resolvable without intersphinx, which would need
# the network; unresolved references are plain text, not warnings.
nitpicky = False

suppress_warnings = [
    # numpydoc turns a "References" section into citations; docstrings list their
    # sources there without citing each one in the text, which docutils reports
    # as an unreferenced citation. Nothing is wrong with the page.
    "ref.citation",
    # the guides are GitHub Markdown pages whose sections jump from # to ###
    # (e.g. docs/codes_constructions.md); GitHub renders them as written, and so
    # does MyST, which only warns.
    "myst.header",
]

# --- docstring repairs at build time -----------------------------------------
# The docstrings are written for the terminal (help(), IDEs) first; two habits of
# theirs are not reStructuredText, and are rewritten here rather than in the code:

_CODE = re.compile(r"(``[\s\S]*?``|:\w+:`[^`]*`|`[^`\n]*`_{0,2})")
_SUBST = re.compile(r"(?<![\\\w|])\|(?=\S)([^|\n]*?\S)\|(?![\w|])")
_TABLE_HEAD = re.compile(r"^([A-Za-z_][\w.]*)( {2,})(\S.*)$")


def _escape_bars(text: str) -> str:
    """``|T|`` (the size of a set), ``|x|`` ... outside inline code would be
    reStructuredText substitution references (an error: "Undefined substitution
    referenced"); escaped, they print as written."""
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):  # the even parts are outside code
        parts[i] = _SUBST.sub(r"\\|\1\\|", parts[i])
    return "".join(parts)


def _plain_tables_to_definition_lists(lines: list[str]) -> list[str]:
    """A module docstring's two-column plain-text table::

        trace        :class:`Trace` (round, worker, ...), the CSV
                     reader/writer ...
        profiles     the public delay-profile pickles ...

    (an "Unexpected indentation" error to docutils) becomes a definition list
    with the same words. Only runs of at least two such rows are rewritten."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        rows: list[tuple[str, list[str]]] = []
        j = i
        while j < len(lines) and (m := _TABLE_HEAD.match(lines[j])):
            indent = len(m.group(1)) + len(m.group(2))
            body = [m.group(3)]
            j += 1
            while j < len(lines) and lines[j].startswith(" " * indent) and lines[j].strip():
                body.append(lines[j].strip())
                j += 1
            rows.append((m.group(1), body))
        if len(rows) >= 2:
            if out and out[-1].strip():
                out.append("")
            for name, body in rows:
                out.append(f"``{name}``")
                out += [f"    {b}" for b in body]
            if j < len(lines) and lines[j].strip():
                out.append("")
            i = j
        else:
            out.append(lines[i])
            i += 1
    return out


def _repair_docstring(app, what, name, obj, options, lines):
    if what in ("data", "attribute") and lines:
        # a constant re-exported from a private file has no ``#:`` comment where
        # autodoc looks (the public module), so autodoc falls back to the docstring
        # of its type ("Built-in immutable sequence..." for a tuple): drop that;
        # the page shows the value
        type_doc = inspect.getdoc(type(obj)) or ""
        if type_doc and lines[0].strip() == type_doc.splitlines()[0].strip():
            lines[:] = []
            return
    new = _escape_bars("\n".join(lines)).split("\n")
    if what == "module":
        new = _plain_tables_to_definition_lists(new)
    lines[:] = new


def _fix_autosummary_summaries() -> None:
    """Sphinx's autosummary cuts a summary at the first ". ", even inside an inline
    literal (``s=.. m=..``), and then checks the cut by re-parsing the whole
    paragraph instead of the cut (``extract_summary`` in
    sphinx/ext/autosummary/__init__.py), so a broken literal reaches the table
    ("Inline literal start-string without end-string"). Where the cut does not
    parse, the table shows the whole first paragraph instead."""
    from docutils import nodes
    from sphinx.ext import autosummary

    original = autosummary.extract_summary
    if getattr(original, "_gctheory_fixed", False):
        return

    def extract_summary(doc, settings):
        summary = original(doc, settings)
        node = autosummary._parse_summary([summary], settings)
        if not any(node.findall(nodes.system_message)):
            return summary
        stanza = []
        for line in doc:
            if not line.strip():
                if stanza:
                    break
                continue
            stanza.append(line.strip())
        return " ".join(stanza)

    extract_summary._gctheory_fixed = True
    autosummary.extract_summary = extract_summary


def _analyze_split_packages() -> None:
    """A module split into a package of private files (``gctheory.codes.partial``,
    ``gctheory.codes.sequential``) keeps the package as its definitions' ``__module__``
    (``gctheory._home.keep_home``: pickles and fingerprints stay as they were), so
    Sphinx's source analyzer, which reads the ``__module__``'s file for attribute comments
    and annotation-only attributes, finds them in none of the package's ``__init__``.
    Here the package's analysis also holds its private files' attribute comments and
    annotations (each keyed by the class's qualified name, unchanged by the split)."""
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    original = ModuleAnalyzer.analyze
    if getattr(original, "_gctheory_split", False):
        return

    def analyze(self) -> None:
        original(self)
        if not self.modname.startswith("gctheory."):
            return
        mod = sys.modules.get(self.modname) or importlib.import_module(self.modname)
        if not hasattr(mod, "__path__"):
            return
        for info in pkgutil.iter_modules(mod.__path__):
            if not info.name.startswith("_"):
                continue
            sub = ModuleAnalyzer.for_module(f"{self.modname}.{info.name}")
            original(sub)
            for key, value in sub.attr_docs.items():
                self.attr_docs.setdefault(key, value)
            for key, value in sub.annotations.items():
                self.annotations.setdefault(key, value)
            for key, value in sub.tagorder.items():
                self.tagorder.setdefault(key, value)

    analyze._gctheory_split = True  # type: ignore[attr-defined]
    ModuleAnalyzer.analyze = analyze  # type: ignore[method-assign]


def setup(app):
    _analyze_split_packages()
    _fix_autosummary_summaries()
    # before numpydoc's own handler (priority 500), so it parses the repaired text
    app.connect("autodoc-process-docstring", _repair_docstring, priority=400)


def _heading(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def _first_line(obj: object) -> str:
    doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    return doc[0].strip() if doc else ""


def _module_page(modname: str) -> str:
    mod = importlib.import_module(modname)
    names = list(mod.__all__)
    lines = [
        _heading(f"``{modname}``"),
        f".. automodule:: {modname}",
        "   :no-members:",
        "   :no-inherited-members:",  # (which would imply :members:)
        "",
        _heading("Public names", "-"),
        f".. currentmodule:: {modname}",
        "",
        ".. autosummary::",
        "   :toctree: generated",
        "   :nosignatures:",
        "",
    ]
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def _top_level_page() -> str:
    """``gctheory``: its docstring, its submodules, and every name it re-exports,
    each linked to its page under the module that defines it."""
    _submodules, lazy = gctheory._read_stub()
    lines = [
        _heading("``gctheory``"),
        ".. automodule:: gctheory",
        "   :no-members:",
        "   :no-inherited-members:",  # (which would imply :members:)
        "",
        ".. data:: gctheory.__version__",
        "",
        f"   The package version, ``{gctheory.__version__!r}``.",
        "",
        _heading("Names re-exported at the top level", "-"),
        "Every name below is also ``gctheory.<name>`` (imported on first use);",
        "its page is under the module that defines it.",
        "",
    ]
    by_module: dict[str, list[str]] = {}
    for name in sorted(n for n in gctheory.__all__ if n in lazy):
        by_module.setdefault(lazy[name], []).append(name)
    for owner in sorted(by_module):
        lines += [
            _heading(f"From ``gctheory.{owner}``", "~"),
            ".. currentmodule:: None",  # the links are absolute: gctheory.<module>.<name>
            "",
            ".. autosummary::",
            "   :nosignatures:",
            "",
        ]
        lines += [f"   ~gctheory.{owner}.{name}" for name in by_module[owner]]
        lines.append("")
    return "\n".join(lines) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    # an unchanged page keeps its mtime, so an incremental build stays incremental
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_pages() -> None:
    api = HERE / "api"
    api.mkdir(exist_ok=True)
    pages = {"gctheory.rst": _top_level_page()}
    pages.update({f"{m}.rst": _module_page(m) for m in PUBLIC_MODULES})
    for name, text in pages.items():
        _write_if_changed(api / name, text)
    # pages of modules or names no longer public would be orphans (a warning)
    for old in api.glob("*.rst"):
        if old.name not in pages:
            old.unlink()
    wanted = {
        f"{m}.{name}.rst" for m in PUBLIC_MODULES for name in importlib.import_module(m).__all__
    }
    for old in (api / "generated").glob("*.rst"):
        if old.name not in wanted:
            old.unlink()


# run at configuration time, before autosummary scans the sources for its tables
write_api_pages()
