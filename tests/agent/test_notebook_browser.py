"""The notebook displays as a browser renders them (headless Chromium): code, logs and values in
a monospace font, an error step marked in red and told apart from a successful one.

Needs `chromium` (Debian's package). .ci/run installs it where it can and then sets
SMOLAGENTS_NATIVE_BROWSER_TEST=1, which turns a missing browser into a failure; elsewhere the
test skips itself without one. A screenshot of the page is left in pytest's tmp_path.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess

import pytest

from smolagents_native.agent import CodeAgent
from smolagents_native.models import ScriptedModel
from smolagents_native.notebook import run_result_html

REQUIRED = os.environ.get("SMOLAGENTS_NATIVE_BROWSER_TEST") == "1"

# For every <pre>: the rendered width of ten narrow and ten wide letters (equal only in a
# monospace font), its text colour and background; for every step: its status colour.
PROBE = """
<script>
const probe = (el, text) => {
  const s = document.createElement('span'); s.textContent = text; el.appendChild(s);
  const w = s.getBoundingClientRect().width; s.remove(); return w;
};
const pres = [...document.querySelectorAll('pre')].map(pre => ({
  cls: pre.className, narrow: probe(pre, 'iiiiiiiiii'), wide: probe(pre, 'WWWWWWWWWW'),
  color: getComputedStyle(pre).color, background: getComputedStyle(pre).backgroundColor,
}));
const steps = [...document.querySelectorAll('details')].map(d => ({
  cls: d.className, status: d.querySelector('.sn-status').textContent,
  color: getComputedStyle(d.querySelector('.sn-status')).color,
  edge: getComputedStyle(d).borderLeftColor,
}));
const out = document.createElement('div'); out.id = 'probe-result';
out.textContent = JSON.stringify({pres, steps}); document.body.appendChild(out);
</script>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "headless_shell"):
        path = shutil.which(name)
        if path:
            return path
    if REQUIRED:
        pytest.fail("SMOLAGENTS_NATIVE_BROWSER_TEST=1 but no chromium on PATH")
    pytest.skip("no chromium on PATH (Debian: apt-get install chromium)")


def render(browser: str, page: str, tmp_path) -> dict:
    path = tmp_path / "page.html"
    path.write_text(
        f'<!doctype html><html><head><meta charset="utf-8"></head>'
        f'<body style="font-family: sans-serif">{page}{PROBE}</body></html>',
        encoding="utf-8",
    )
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1000,900"]
    url = path.as_uri()
    # Not the sanitizer run's preloaded runtime: the browser is not what it checks.
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")}
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True,
                         timeout=120, env=env)
    shot = subprocess.run([*flags, f"--screenshot={tmp_path / 'page.png'}", url],
                          capture_output=True, timeout=120, env=env)
    assert shot.returncode == 0 and (tmp_path / "page.png").stat().st_size > 1000
    found = re.search(r'<div id="probe-result">(.*?)</div>', dom.stdout, re.S)
    assert found, dom.stderr[-2000:]
    return json.loads(html.unescape(found.group(1)))


def rgb(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def test_steps_render_in_monospace_with_errors_marked(tmp_path):
    browser = chromium()
    model = ScriptedModel([
        "```python\nprint('<b>logs</b>')\nvalue = 1 / 0\n```",
        "```python\nx = 41\nx + 1\n```",
        "```python\nfinal_answer('done')\n```",
    ])
    result = CodeAgent([], model).run("a task")
    seen = render(browser, run_result_html(result), tmp_path)

    pres = seen["pres"]
    assert {p["cls"] for p in pres} >= {"sn-code", "sn-logs", "sn-error", "sn-value",
                                         "sn-answer"}
    for p in pres:  # monospace: narrow and wide letters take the same width
        assert p["narrow"] == pytest.approx(p["wide"], rel=0.02), p
    errors = [p for p in pres if p["cls"] == "sn-error"]
    others = [p for p in pres if p["cls"] != "sn-error"]
    red, green, blue = rgb(errors[0]["color"])
    assert red > 150 and green < 100 and blue < 100  # error text in red
    assert all(rgb(p["color"]) != rgb(errors[0]["color"]) for p in others)

    failed, ok, final = seen["steps"]
    assert "error" in failed["status"] and "sn-step-error" in failed["cls"]
    assert "ok" in ok["status"] and "final answer" in final["status"]
    r, g, b = rgb(failed["color"])
    assert r > 150 and g < 100 and b < 100
    r, g, b = rgb(final["color"])
    assert g > r and g > b
    # the failed step is told apart from a successful one at a glance: its edge and status
    assert rgb(failed["edge"]) != rgb(ok["edge"]) and rgb(failed["color"]) != rgb(ok["color"])
