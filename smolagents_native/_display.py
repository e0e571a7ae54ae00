"""HTML and Markdown displays of results: `CodeOutput` (the executor's), and the agent's
`StepRecord` and `RunResult` (`smolagents_native.agent.notebook` re-exports them, with the
``%%sandbox`` magic).

Everything shown is escaped: text coming out of the sandbox is untrusted. Depends on nothing
of this package, so the executor can render its own results without importing the notebook
integration.
"""

from __future__ import annotations

import html
import re
from typing import Any

_MAX_SHOWN = 10000  # characters of one value shown in an HTML/Markdown display


# ---------------------------------------------------------------------------------------------
# Rich displays.


def _short(value: Any, limit: int = _MAX_SHOWN) -> str:
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception as exc:
        text = f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    if len(text) > limit:
        text = text[:limit] + f"... [{len(text) - limit} more characters]"
    return text


# Inline styles (notebook front ends drop <style> blocks from untrusted output, and their own
# CSS does not reach a <pre> inside a <details> alike everywhere): code, logs and values in a
# monospace font, errors marked in red, final answers in green.
_MONO = ("font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', "
         "'Liberation Mono', monospace; font-size: 0.9em; white-space: pre-wrap; "
         "margin: 2px 0 8px; padding: 4px 8px; border-radius: 3px")
_ERROR_COLOR = "#c62828"
_ANSWER_COLOR = "#2e7d32"
_BLOCK_STYLE = {
    "sn-error": f"background: #fdecea; color: {_ERROR_COLOR}; border-left: 3px solid "
                f"{_ERROR_COLOR}",
    "sn-answer": f"background: #edf7ed; border-left: 3px solid {_ANSWER_COLOR}",
}
_PLAIN_BLOCK = "background: rgba(127, 127, 127, 0.1)"


def _pre(text: str, css_class: str) -> str:
    style = f"{_MONO}; {_BLOCK_STYLE.get(css_class, _PLAIN_BLOCK)}"
    return f'<pre class="{css_class}" style="{style}">{html.escape(text)}</pre>'


def _status_html(status: str) -> str:
    """A step's status, in red for an error and green for a final answer."""
    color = {"error": _ERROR_COLOR, "final answer": _ANSWER_COLOR}.get(status)
    mark = {"error": "\u2717 ", "final answer": "\u2713 "}.get(status, "")
    text = html.escape(mark + status)
    if color is None:
        return f'<span class="sn-status">{text}</span>'
    return f'<span class="sn-status" style="color: {color}; font-weight: 600">{text}</span>'


def _fence(text: str, language: str = "") -> str:
    """A Markdown fenced block that `text` cannot close early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def code_output_html(out: Any) -> str:
    """HTML for a CodeOutput: logs, then the output (or the final answer)."""
    parts = ['<div class="smolagents-native-output">']
    if out.logs:
        parts.append("<div><b>Logs</b></div>" + _pre(out.logs, "sn-logs"))
    label = "Final answer" if out.is_final_answer else "Output"
    parts.append(f"<div><b>{label}</b></div>" + _pre(_short(out.output), "sn-value"))
    parts.append("</div>")
    return "".join(parts)


def code_output_markdown(out: Any) -> str:
    """Markdown for a CodeOutput."""
    parts = []
    if out.logs:
        parts.append("**Logs**\n\n" + _fence(out.logs.rstrip("\n"), "text"))
    label = "Final answer" if out.is_final_answer else "Output"
    parts.append(f"**{label}**\n\n" + _fence(_short(out.output), "text"))
    return "\n\n".join(parts)


def _step_facts(step: Any) -> str:
    ops = f", {step.operations_count} operations" if step.operations_count is not None else ""
    return f"{step.duration:.3f} s{ops}"


def step_record_html(step: Any) -> str:
    """HTML for one agent StepRecord."""
    status = "error" if step.error else ("final answer" if step.is_final_answer else "ok")
    edge = {"error": _ERROR_COLOR, "final answer": _ANSWER_COLOR}.get(status, "#9e9e9e")
    parts = [
        f'<details class="smolagents-native-step sn-step-{status.replace(" ", "-")}" open '
        f'style="border-left: 3px solid {edge}; padding-left: 8px; margin: 4px 0">',
        f"<summary><b>Step {step.step_number}</b>: {_status_html(status)} "
        f"({html.escape(_step_facts(step))})</summary>",
    ]
    if step.model_output:
        parts.append("<div><i>Model</i></div>" + _pre(step.model_output, "sn-model"))
    if step.code is not None:
        parts.append("<div><i>Code</i></div>" + _pre(step.code, "sn-code"))
    if step.logs:
        parts.append("<div><i>Logs</i></div>" + _pre(step.logs, "sn-logs"))
    if step.error:
        parts.append("<div><i>Error</i></div>" + _pre(step.error, "sn-error"))
    elif step.code is not None:
        parts.append("<div><i>Output</i></div>" + _pre(_short(step.output), "sn-value"))
    parts.append("</details>")
    return "".join(parts)


def step_record_markdown(step: Any) -> str:
    """Markdown for one agent StepRecord."""
    status = "error" if step.error else ("final answer" if step.is_final_answer else "ok")
    parts = [f"#### Step {step.step_number}: {status} ({_step_facts(step)})"]
    if step.code is not None:
        parts.append(_fence(step.code, "python"))
    else:
        parts.append("Model reply:\n\n" + _fence(step.model_output, "text"))
    if step.logs:
        parts.append("Logs:\n\n" + _fence(step.logs.rstrip("\n"), "text"))
    if step.error:
        parts.append("Error:\n\n" + _fence(step.error, "text"))
    elif step.code is not None:
        parts.append("Output:\n\n" + _fence(_short(step.output), "text"))
    return "\n\n".join(parts)


def _run_summary(result: Any) -> str:
    n = len(result.steps)
    plural = "s" * (n != 1)
    if result.finished:
        return f"Finished in {n} step{plural} ({result.duration:.2f} s)"
    return f"Stopped after {n} step{plural} without a final answer (max_steps={result.max_steps})"


def run_result_html(result: Any) -> str:
    """HTML for an agent RunResult: task, outcome, final answer, then each step."""
    parts = [
        '<div class="smolagents-native-run">',
        f"<div><b>Task</b>: {html.escape(result.task)}</div>",
        f"<div><b>{html.escape(_run_summary(result))}</b></div>",
    ]
    if result.finished:
        parts.append(
            "<div><b>Final answer</b></div>" + _pre(_short(result.final_answer), "sn-answer")
        )
    parts.extend(step_record_html(step) for step in result.steps)
    parts.append("</div>")
    return "".join(parts)


def run_result_markdown(result: Any) -> str:
    """Markdown for an agent RunResult."""
    parts = [f"**Task**: {result.task}", f"**{_run_summary(result)}**"]
    if result.finished:
        parts.append("**Final answer**\n\n" + _fence(_short(result.final_answer), "text"))
    parts.extend(step_record_markdown(step) for step in result.steps)
    return "\n\n".join(parts)
