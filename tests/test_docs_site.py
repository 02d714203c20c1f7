"""The documentation site, as a reader sees it.

Builds the Sphinx site with warnings as errors (or takes the one CI built:
``GCTHEORY_DOCS_HTML=docs/_build/html``), serves it with ``python -m
http.server`` on 127.0.0.1, and loads pages in headless Chromium (Debian's
``chromium`` package): the index, an API page and the search page, whose results
are rendered by JavaScript. Screenshots are kept under ``$TMPDIR/gctheory-docs-site/``
(a CI artifact): the index, the gallery, one example, an API page with a docstring
example. Nothing is fetched from the network (MathJax, which a reader's browser
fetches, is not loaded: the pages are checked to ask for it).

Runs only where Sphinx (the ``docs`` extra) and Chromium are installed; skipped,
with the reason, elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCREENSHOTS = Path(tempfile.gettempdir()) / "gctheory-docs-site"

for _module in ("sphinx", "myst_parser", "numpydoc", "pydata_sphinx_theme", "sphinx_gallery"):
    pytest.importorskip(_module, reason=f'{_module} is not installed (pip install -e ".[docs]")')

CHROMIUM = next(
    (c for c in (shutil.which("chromium"), "/usr/bin/chromium") if c and os.path.exists(c)),
    None,
)
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
    )
]
if not os.environ.get("GCTHEORY_DOCS_HTML"):
    # building the site here takes a minute or more of CPU: slow, unless a built site is given
    # (as CI does after its own sphinx-build)
    pytestmark.append(pytest.mark.slow)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    given = os.environ.get("GCTHEORY_DOCS_HTML")
    if given:
        html = Path(given).resolve()
        assert (html / "index.html").is_file(), f"GCTHEORY_DOCS_HTML={given} holds no index.html"
        return html
    html = tmp_path_factory.mktemp("docs") / "html"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS), str(html)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, f"sphinx-build -W failed:\n{proc.stderr[-5000:]}"
    return html


@pytest.fixture(scope="module")
def server(site):
    # port 0: the server takes a free port and says which (no fixed port, no port race)
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
        cwd=site,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    port = re.search(r" port (\d+)", proc.stdout.readline()).group(1)  # "Serving HTTP on ..."
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(base + "index.html", timeout=2) as r:
                    assert r.status == 200
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _chromium(tmp_path: Path, *args: str) -> str:
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path)
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def dom(tmp_path: Path, url: str) -> str:
    """The DOM after the page's scripts ran (5 s of virtual time for them)."""
    return _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", url)


def screenshot(tmp_path: Path, url: str, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    out = SCREENSHOTS / f"{name}.png"
    out.unlink(missing_ok=True)
    _chromium(
        tmp_path, "--virtual-time-budget=5000", f"--screenshot={out}", "--window-size=1280,900", url
    )
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{out} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 900)
    assert len(data) > 20_000, f"{out} is nearly empty ({len(data)} bytes)"
    return out


def test_index_page(server, tmp_path):
    html = dom(tmp_path, server + "index.html")
    assert "Gradient coding theory, turned into numbers you can check." in html
    # every guide in docs/ is in the table of contents, and so is the API reference
    for page in sorted(DOCS.glob("*.md")):
        if page.stem != "index":
            assert f'href="{page.stem}.html"' in html, f"{page.name} is not linked from the index"
    assert 'href="api/index.html"' in html
    screenshot(tmp_path, server + "index.html", "index")


def test_api_page(server, tmp_path):
    html = dom(tmp_path, server + "api/gctheory.codes.html")
    assert "gctheory.codes" in html
    # the autosummary table links every name of gctheory.codes.__all__ to its page
    from gctheory import codes

    for name in codes.__all__:
        assert f'href="generated/gctheory.codes.{name}.html' in html, name
    cls = dom(tmp_path, server + "api/generated/gctheory.codes.CommFRCode.html")
    assert 'id="gctheory.codes.CommFRCode"' in cls
    assert "Parameters" in cls and "Kadhe et al." in cls  # numpydoc sections rendered
    assert 'id="gctheory.codes.CommFRCode.decode"' in cls  # methods documented
    screenshot(tmp_path, server + "api/gctheory.codes.html", "api-gctheory.codes")


def test_search_page(server, tmp_path):
    # the results are rendered by searchtools.js from searchindex.js
    html = dom(tmp_path, server + "search.html?q=decode")
    assert "Search finished, found" in html, "the search did not finish in 5 s of virtual time"
    assert (
        'href="api/generated/gctheory.codes.GradientCode.html#gctheory.codes.GradientCode.decode"'
        in html
    )
    assert 'href="codes.html' in html  # the guide on gradient codes is found too
    screenshot(tmp_path, server + "search.html?q=decode", "search-decode")


EXAMPLES = ROOT / "examples"


def test_gallery_index(site, server, tmp_path):
    # one thumbnail per example script, each linking to its page, each page with the
    # figure its script drew (a script that draws none gets a placeholder thumbnail
    # and no image on its page)
    scripts = sorted(EXAMPLES.glob("plot_*.py"))
    assert len(scripts) >= 12, f"the gallery has {len(scripts)} examples, fewer than 12"
    html = dom(tmp_path, server + "auto_examples/index.html")
    assert html.count('class="sphx-glr-thumbcontainer"') == len(scripts)
    for script in scripts:
        assert f'href="{script.stem}.html' in html, f"{script.name} has no thumbnail"
        page = (site / "auto_examples" / f"{script.stem}.html").read_text(encoding="utf-8")
        assert f'src="../_images/sphx_glr_{script.stem}_001.png"' in page, script.name
    screenshot(tmp_path, server + "auto_examples/index.html", "gallery")


def test_gallery_example_page(server, tmp_path):
    page = "auto_examples/plot_06_halbawi_optimum.html"
    html = dom(tmp_path, server + page)
    assert 'class="sphx-glr-single-img"' in html  # the figure the script drew
    assert "halbawi_optimal_f" in html and "OptimumF(f=68" in html  # its code and its output
    # the names in the code link to their API pages
    assert "../api/generated/gctheory.runtime.halbawi_optimal_f.html" in html
    screenshot(tmp_path, server + page, "gallery-halbawi-optimum")


def test_api_page_with_example(server, tmp_path):
    # an API page: its numpydoc sections, its >>> example, and the gallery examples using it
    page = "api/generated/gctheory.codes.HeterogeneousGradientCode.html"
    html = dom(tmp_path, server + page)
    assert "Parameters" in html
    assert "Gallery examples using" in html and "plot_09_heterogeneous.html" in html
    example = "api/generated/gctheory.order_stats.expected_order_statistic.html"
    doc = dom(tmp_path, server + example)
    assert "Examples" in doc and "&gt;&gt;&gt;" in doc  # the doctest block, rendered
    screenshot(tmp_path, server + example, "api-expected-order-statistic")
    screenshot(tmp_path, server + page, "api-heterogeneous-code")


def test_math_for_mathjax(server, tmp_path):
    # MathJax is the one script a reader's browser fetches from outside (the test runs
    # offline, so it checks that the page asks for it and holds the TeX it typesets)
    page = dom(tmp_path, server + "auto_examples/plot_04_ldpc_waterfall.html")
    assert "mathjax" in page.lower()
    assert r"\sqrt{n}" in page


def test_guides_show_their_figures(site):
    # every figure a guide embeds (committed under figures/) is in the built page and
    # copied into the site
    embedded = 0
    for guide in sorted(DOCS.glob("*.md")):
        for name in re.findall(r"!\[[^\]]*\]\(\.\./figures/([\w.-]+\.png)\)", guide.read_text()):
            page = (site / f"{guide.stem}.html").read_text(encoding="utf-8")
            assert f'src="_images/{name}"' in page, f"{guide.name}: {name} is not shown"
            assert (site / "_images" / name).is_file(), name
            embedded += 1
    assert embedded >= 14, f"only {embedded} figures in the guides"
