"""A small code-agent loop over the sandboxed executor, with no dependency on smolagents.

::

    from smolagents_native import CodeAgent
    from smolagents_native.models import OpenAICompatibleModel

    def get_population(city: str) -> int:
        '''Population of a city.'''
        ...

    agent = CodeAgent(tools=[get_population], model=OpenAICompatibleModel("gpt-4o-mini"))
    result = agent.run("Which is larger, Lyon or Lille?")
    result.final_answer, result.finished, result.steps

The loop: a system prompt lists the tools (signature and description) and the importable
modules; each step asks the model for a reply, takes the code block out of it
(:func:`extract_code`), runs it in a :class:`LocalPythonExecutor` whose state persists across
steps, and sends back what it printed and its last value, or the error, as the next user
message. It stops when the code calls ``final_answer(...)`` or after ``max_steps`` steps (then
the result says so; nothing is raised).

A model is any callable from a list of ``{"role": ..., "content": str}`` messages to the reply
text (see :mod:`smolagents_native.models`). A tool is a plain function (its name, type hints
and docstring describe it) or a smolagents ``Tool`` (anything with ``name``, ``description``,
``inputs``, ``output_type`` and ``forward`` or ``__call__``).
"""

from __future__ import annotations

import inspect
import keyword
import logging
import re
import textwrap
import time
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import observability as obs
from ..executor import BASE_BUILTIN_MODULES, LocalPythonExecutor, truncate_content
from .models import Message, ScriptedModel

__all__ = [
    "CodeAgent",
    "RunResult",
    "ScriptedModel",
    "StepRecord",
    "extract_code",
    "render_tool",
]

DEFAULT_MAX_STEPS = 10
# Observations sent back to the model are cut to this many characters (head and tail kept).
DEFAULT_MAX_OBSERVATION_LENGTH = 20000

# ---------------------------------------------------------------------------------------------
# Code extraction.

_CODE_TAG_RE = re.compile(r"<code>(.*?)(?:</code>|\Z)", re.DOTALL | re.IGNORECASE)
# An opening fence (``` or ~~~, 3 or more), its info string, the body, then the same fence on a
# line of its own (anything after it on that line, e.g. `<end_code>`, is ignored) or the end.
_FENCE_RE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n"
    r"(?P<body>.*?)"
    r"(?:^[ \t]*(?P=fence)[^\n]*$|\Z)",
    re.DOTALL | re.MULTILINE,
)
_PYTHON_INFO = frozenset({"", "python", "py", "python3", "py3"})


def _clean(code: str) -> str:
    code = code.replace("<end_code>", "")
    return textwrap.dedent(code).strip("\n").rstrip()


def _first_fenced_python(text: str) -> str | None:
    for match in _FENCE_RE.finditer(text):
        info = match.group("info").strip().split(maxsplit=1)
        language = info[0].lower() if info else ""
        if language in _PYTHON_INFO:
            code = _clean(match.group("body"))
            if code.strip():
                return code
    return None


def extract_code(text: str) -> str | None:
    """Return the code to run from a model reply, or None if there is none.

    Rule: the **first** code block wins, and ``<code>`` tags win over Markdown fences.

    1. If the reply has a ``<code>...</code>`` block, the first one is used; a ``<code>`` left
       open at the end of the reply (as when ``</code>`` is a stop sequence) runs to the end.
       A Markdown fence inside it is unwrapped.
    2. Otherwise the first fenced block tagged ``python``, ``py``, ``python3``, ``py3`` or not
       tagged at all (```` ``` ````) is used; blocks in other languages (```` ```text ````,
       ```` ```json ````, ...) are skipped. An unclosed fence at the end runs to the end.
    3. Otherwise: None (the agent then asks the model to reply with a code block).

    Why the first: a model that keeps writing after its code block is inventing the result
    of that code and what it would do next; the first block is the action it chose before
    seeing anything. Later blocks are ignored (the system prompt asks for one block per reply).
    The code is dedented; ``<end_code>`` markers are dropped.
    """
    match = _CODE_TAG_RE.search(text)
    if match is not None:
        inner = match.group(1)
        code = _first_fenced_python(inner) if _FENCE_RE.search(inner) else _clean(inner)
        if code and code.strip():
            return code
    return _first_fenced_python(text)


# ---------------------------------------------------------------------------------------------
# Tools.

_JSON_TO_PY = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "null": "None",
    "any": "Any",
    "image": "Any",
    "audio": "Any",
}


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return (
            annotation.__qualname__ if annotation.__module__ == "builtins" else annotation.__name__
        )
    return repr(annotation).replace("typing.", "")


def _function_signature(func: Callable) -> str:
    """``(a: int, b: str = 'x') -> str`` with resolved hints where possible."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return "(*args, **kwargs)"
    try:
        hints = typing.get_type_hints(func)
    except Exception:
        hints = {}
    params = []
    for param in signature.parameters.values():
        annotation = hints.get(param.name, param.annotation)
        params.append(param.replace(annotation=_annotation_text(annotation) or param.empty))
    returns = hints.get("return", signature.return_annotation)
    returns_text = _annotation_text(returns)
    text = str(signature.replace(parameters=params, return_annotation=inspect.Signature.empty))
    # Parameters were given string annotations: drop the quotes str() puts around them.
    text = re.sub(r": '([^']*)'", r": \1", text)
    return text + (f" -> {returns_text}" if returns_text else "")


def _is_tool_object(tool: Any) -> bool:
    return all(hasattr(tool, attr) for attr in ("name", "description", "inputs"))


@dataclass
class _ToolSpec:
    name: str
    function: Callable
    signature: str  # "(query: str) -> str"
    description: str


def _tool_object_spec(tool: Any, name: str | None = None) -> _ToolSpec:
    name = name or tool.name
    inputs: Mapping[str, Any] = tool.inputs or {}
    params = []
    arg_lines = []
    for arg, schema in inputs.items():
        schema = schema if isinstance(schema, Mapping) else {}
        kind = schema.get("type", "any")
        kinds = kind if isinstance(kind, list) else [kind]
        py = " | ".join(_JSON_TO_PY.get(str(k), str(k)) for k in kinds)
        optional = schema.get("nullable") or schema.get("optional")
        params.append(f"{arg}: {py}" + (" = None" if optional else ""))
        desc = schema.get("description", "")
        arg_lines.append(f"    {arg}: {desc}" if desc else f"    {arg}")
    output = _JSON_TO_PY.get(str(getattr(tool, "output_type", "any")), "Any")
    description = (tool.description or "").strip()
    if arg_lines:
        description += "\n\nArgs:\n" + "\n".join(arg_lines)
    if callable(tool) and not (inspect.isclass(tool)):
        function = tool
    elif callable(getattr(tool, "forward", None)):
        function = tool.forward
    else:
        raise TypeError(f"Tool {name!r} is neither callable nor has a forward() method")
    return _ToolSpec(name, function, f"({', '.join(params)}) -> {output}", description)


def _tool_spec(tool: Any, name: str | None = None) -> _ToolSpec:
    if _is_tool_object(tool) and not inspect.isfunction(tool):
        spec = _tool_object_spec(tool, name)
    elif callable(tool):
        name = name or getattr(tool, "__name__", None)
        if not name:
            raise TypeError(f"Cannot name tool {tool!r}: pass tools as a dict {{name: tool}}")
        spec = _ToolSpec(
            name, tool, _function_signature(tool), inspect.getdoc(tool) or "(no description)"
        )
    else:
        raise TypeError(f"A tool must be a callable or a Tool object, got {type(tool).__name__}")
    if not spec.name.isidentifier() or keyword.iskeyword(spec.name):
        raise ValueError(f"Tool name {spec.name!r} is not a valid Python identifier")
    return spec


def render_tool(tool: Any, name: str | None = None) -> str:
    """The tool as the system prompt shows it: a Python stub with its docstring."""
    spec = tool if isinstance(tool, _ToolSpec) else _tool_spec(tool, name)
    doc = spec.description.replace('"""', '\\"\\"\\"')
    doc = textwrap.indent(doc, "    ").lstrip() if doc else ""
    return f'def {spec.name}{spec.signature}:\n    """{doc}\n    """'


def final_answer(answer: Any) -> Any:
    """Give the final answer to the task and end the run. Call it once you know the answer."""
    return answer


# ---------------------------------------------------------------------------------------------
# Prompt.

SYSTEM_PROMPT = """\
You are an expert assistant who solves tasks by writing Python code, one step at a time.

In each step, write a line starting with "Thought:" that explains what you will do, then one \
```python code block with the code for this step, and stop there. The code runs in a \
sandboxed Python interpreter. The next message gives you back what the code printed and the \
value of its last line ("Observation:"), or the error it raised ("Error:"). Print what you \
need to see. Variables, functions and imports persist from one step to the next.

When you know the answer, call `final_answer(answer)` in your code: this ends the task.

Rules:
- One code block per reply. Only the first code block of a reply is run.
- Call the tools like Python functions, as their signatures show. Never redefine them.
- You may import only these modules: {authorized_imports}. Everything else (files, \
processes, the network, os, sys, ...) is refused.
- Don't guess what you can compute or look up with a tool.
- When a step fails, read the error and fix its cause; don't send the same code again.

Tools you can call:
```python
{tools}
```

Example.
Task: "How many words are in the phrase 'the quick brown fox'? Answer as a number."

Thought: I split the phrase on whitespace and count the parts.
```python
count = len("the quick brown fox".split())
final_answer(count)
```
"""


def _imports_text(imports: Sequence[str]) -> str:
    if "*" in imports:
        return "any module (all imports are authorized)"
    return ", ".join(sorted(dict.fromkeys(imports)))


# ---------------------------------------------------------------------------------------------
# Records.


@dataclass
class StepRecord:
    """One step of a run: the model's reply, the code run, and what came of it.

    ``duration`` covers the whole step (model call and execution); ``model_duration`` and
    ``execution_duration`` split it. ``operations_count`` is the executor's operation count
    for the step; ``imports`` the modules the code imports (parsed with ``ast``);
    ``observation`` the message sent back to the model (none is sent after the final answer).
    """

    step_number: int
    model_output: str = ""
    code: str | None = None
    logs: str = ""
    output: Any = None
    error: str | None = None
    error_type: str | None = None
    is_final_answer: bool = False
    duration: float = 0.0
    model_duration: float = 0.0
    execution_duration: float = 0.0
    operations_count: int | None = None
    imports: list[str] = field(default_factory=list)
    output_size: int = 0
    observation: str = ""

    @property
    def metrics(self) -> dict[str, Any]:
        """The step's measurements as plain data (what the JSON log line holds)."""
        return {
            "step": self.step_number,
            "duration": self.duration,
            "model_duration": self.model_duration,
            "execution_duration": self.execution_duration,
            "operations": self.operations_count,
            "imports": list(self.imports),
            "output_size": self.output_size,
            "logs_size": len(self.logs),
            "is_final_answer": self.is_final_answer,
            "error_type": self.error_type,
        }

    def _repr_html_(self) -> str:
        from .._display import step_record_html

        return step_record_html(self)

    def _repr_markdown_(self) -> str:
        from .._display import step_record_markdown

        return step_record_markdown(self)


@dataclass
class RunResult:
    """What :meth:`CodeAgent.run` returns.

    ``finished`` is true when the code called ``final_answer``; ``final_answer`` then holds its
    argument. Otherwise ``stop_reason`` is ``"max_steps"``, ``final_answer`` is None and
    ``message`` says that the run ran out of steps.
    """

    task: str
    final_answer: Any
    finished: bool
    stop_reason: str  # "final_answer" or "max_steps"
    steps: list[StepRecord]
    duration: float
    max_steps: int
    messages: list[Message] = field(default_factory=list, repr=False)

    @property
    def message(self) -> str:
        n = len(self.steps)
        if self.finished:
            steps = f"{n} step{'s' * (n != 1)}"
            return f"Final answer after {steps} ({self.duration:.2f} s): {self.final_answer}"
        return (
            f"No final answer: the agent used all {self.max_steps} steps (max_steps) "
            f"in {self.duration:.2f} s without calling final_answer."
        )

    @property
    def total_operations(self) -> int:
        return sum(s.operations_count or 0 for s in self.steps)

    def __str__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        from .._display import run_result_html

        return run_result_html(self)

    def _repr_markdown_(self) -> str:
        from .._display import run_result_markdown

        return run_result_markdown(self)


# ---------------------------------------------------------------------------------------------
# The agent.


class CodeAgent:
    """An agent that answers a task by having `model` write Python run in the sandbox.

    Args:
        tools: functions or smolagents-style Tool objects (a list; or a dict name -> tool to
            choose the names). ``final_answer`` is added unless a tool of that name is given.
        model: a callable taking a list of chat messages and returning the reply text (a
            reply object with a ``.content`` string is accepted too).
        additional_authorized_imports: modules the code may import besides
            ``BASE_BUILTIN_MODULES`` (``"pkg.*"`` and ``"*"`` wildcards allowed).
        max_steps: steps before the run stops without an answer.
        timeout_seconds: wall-clock limit for each code execution.
        max_print_outputs_length: executor limit on what one step's prints keep.
        max_observation_length: limit on each observation sent back to the model.
        step_callbacks: functions called with each :class:`StepRecord` when its step ends
            (exceptions they raise propagate).
        system_prompt: replaces :data:`SYSTEM_PROMPT`; ``{tools}`` and
            ``{authorized_imports}`` in it are filled in (no other placeholder is).
        executor: use this executor (anything with smolagents' ``PythonExecutor`` interface)
            instead of creating a :class:`LocalPythonExecutor`; its state is then kept
            across runs.
        logger: where step records are logged (default ``smolagents_native.agent``).
    """

    def __init__(
        self,
        tools: Iterable[Any] | Mapping[str, Any] = (),
        model: Callable[..., Any] | None = None,
        *,
        additional_authorized_imports: Sequence[str] = (),
        max_steps: int = DEFAULT_MAX_STEPS,
        timeout_seconds: float | None = 30,
        max_print_outputs_length: int | None = None,
        max_observation_length: int = DEFAULT_MAX_OBSERVATION_LENGTH,
        step_callbacks: Iterable[Callable[[StepRecord], Any]] = (),
        system_prompt: str | None = None,
        executor: Any = None,
        logger: Any = None,
    ):
        if model is None or not callable(model):
            raise TypeError("CodeAgent needs a model: a callable from chat messages to text")
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.model = model
        if isinstance(tools, Mapping):
            specs = [_tool_spec(tool, name) for name, tool in tools.items()]
        else:
            specs = [_tool_spec(tool) for tool in tools]
        self._tools: dict[str, _ToolSpec] = {}
        for spec in specs:
            if spec.name in self._tools:
                raise ValueError(f"Two tools are named {spec.name!r}")
            self._tools[spec.name] = spec
        if "final_answer" not in self._tools:
            self._tools["final_answer"] = _tool_spec(final_answer)
        self.additional_authorized_imports = list(additional_authorized_imports)
        self.max_steps = max_steps
        self.timeout_seconds = timeout_seconds
        self.max_print_outputs_length = max_print_outputs_length
        self.max_observation_length = max_observation_length
        self.step_callbacks = list(step_callbacks)
        self._system_prompt_template = system_prompt if system_prompt is not None else SYSTEM_PROMPT
        self._own_executor = executor is None
        self.executor = executor if executor is not None else self._new_executor()
        self.logger = logger or obs.get_logger("agent")
        self.steps: list[StepRecord] = []  # the current (or last) run's steps
        self.messages: list[Message] = []  # the current (or last) run's conversation

    @property
    def tools(self) -> dict[str, Callable]:
        """name -> callable, as sent to the executor (final_answer included)."""
        return {name: spec.function for name, spec in self._tools.items()}

    @property
    def authorized_imports(self) -> list[str]:
        imports = getattr(self.executor, "authorized_imports", None)
        if imports is None:
            imports = [*BASE_BUILTIN_MODULES, *self.additional_authorized_imports]
        return list(imports)

    def _new_executor(self) -> LocalPythonExecutor:
        return LocalPythonExecutor(
            list(self.additional_authorized_imports),
            max_print_outputs_length=self.max_print_outputs_length,
            timeout_seconds=self.timeout_seconds,
        )

    @property
    def system_prompt(self) -> str:
        tools = "\n\n".join(render_tool(spec) for spec in self._tools.values())
        return self._system_prompt_template.replace("{tools}", tools).replace(
            "{authorized_imports}", _imports_text(self.authorized_imports)
        )

    # -- the loop -----------------------------------------------------------------------------

    def run(
        self,
        task: str,
        *,
        variables: Mapping[str, Any] | None = None,
        reset: bool = True,
        max_steps: int | None = None,
    ) -> RunResult:
        """Work on `task` until ``final_answer`` is called or `max_steps` steps have run.

        `variables` are put in the code's namespace (and named in the task message). With
        ``reset=False`` the conversation and the executor's variables of the previous run are
        kept and `task` is added as a new user message.
        """
        max_steps = self.max_steps if max_steps is None else max_steps
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if reset or not self.messages:
            if self._own_executor and (reset and self.steps):
                self.executor = self._new_executor()
            self.steps = []
            self.messages = [{"role": "system", "content": self.system_prompt}]
        self.executor.send_tools(self.tools)
        content = f"Task: {task}"
        if variables:
            self.executor.send_variables(dict(variables))
            content += "\n\nThese variables are already defined for your code: " + ", ".join(
                sorted(variables)
            )
        self.messages.append({"role": "user", "content": content})
        self.logger.info(
            "run started: %s", task, extra={obs.METRICS_ATTR: {"max_steps": max_steps}}
        )

        start = time.perf_counter()
        first_step = len(self.steps) + 1
        answer: Any = None
        finished = False
        agent_name = getattr(self, "name", None) or type(self).__name__
        with obs.span(  # GenAI semantic conventions: an in-process agent's run
            f"invoke_agent {agent_name}",
            otel_attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": agent_name,
            },
            task=task,
            max_steps=max_steps,
        ) as run_span:
            for number in range(first_step, first_step + max_steps):
                record = self._step(number)
                if record.is_final_answer:
                    answer, finished = record.output, True
                    break
            duration = time.perf_counter() - start
            run_steps = self.steps[first_step - 1 :]
            run_span.set(steps=len(run_steps), finished=finished, duration=duration)
        result = RunResult(
            task=task,
            final_answer=answer,
            finished=finished,
            stop_reason="final_answer" if finished else "max_steps",
            steps=list(run_steps),
            duration=duration,
            max_steps=max_steps,
            messages=[dict(m) for m in self.messages],
        )
        self.logger.log(
            logging.INFO if finished else logging.WARNING,
            "run %s: %s",
            "finished" if finished else "stopped",
            result.message,
            extra={
                obs.METRICS_ATTR: {
                    "steps": len(run_steps),
                    "duration": duration,
                    "finished": finished,
                    "operations": result.total_operations,
                }
            },
        )
        return result

    def _call_model(self) -> str:
        # GenAI semantic conventions: a `chat {model}` span (a child of the step's) with the
        # model asked for, the one that answered and the tokens used, when the model says.
        model_name = _model_name(self.model)
        with obs.span(
            f"chat {model_name}",
            otel_attributes={"gen_ai.operation.name": "chat",
                             "gen_ai.request.model": model_name},
        ) as chat_span:
            reply = self.model(list(self.messages))
            if chat_span.recording:
                chat_span.set_otel(_usage_attributes(self.model, reply))
        return _reply_text(reply)

    def _step(self, number: int) -> StepRecord:
        record = StepRecord(step_number=number)
        step_start = time.perf_counter()
        with obs.span("smolagents_native.agent.step", step=number) as step_span:
            try:
                record.model_output = self._call_model()
            except Exception as exc:
                record.model_duration = record.duration = time.perf_counter() - step_start
                record.error, record.error_type = str(exc), type(exc).__name__
                self.steps.append(record)
                step_span.set_error(record.error_type, record.error)
                self.logger.error(
                    "step %d: the model failed: %s: %s",
                    number,
                    record.error_type,
                    exc,
                    extra={obs.METRICS_ATTR: record.metrics},
                )
                raise
            record.model_duration = time.perf_counter() - step_start
            self.messages.append({"role": "assistant", "content": record.model_output})
            record.code = extract_code(record.model_output)
            if record.code is None:
                record.error_type = "NoCodeBlock"
                record.error = "The reply contains no code block."
                record.observation = (
                    "Error:\nYour reply contains no code block, so nothing was run.\n"
                    'Reply with a line starting with "Thought:", then your code in a '
                    "```python block. To give your answer, call final_answer(answer) in the code."
                )
            else:
                self._execute(record)
            record.duration = time.perf_counter() - step_start
            step_span.set(
                code=record.code,
                duration=record.duration,
                operations=record.operations_count,
                is_final_answer=record.is_final_answer,
            )
            if record.error_type:
                step_span.set_error(record.error_type, record.error or "")
            if not record.is_final_answer:
                self.messages.append({"role": "user", "content": record.observation})
            self.steps.append(record)
            self._log_step(record)
            for callback in self.step_callbacks:
                callback(record)
        return record

    def _execute(self, record: StepRecord) -> None:
        code = record.code or ""
        result, error, metrics = obs.measure(self.executor, code, step=record.step_number)
        record.execution_duration = metrics.duration
        record.operations_count = metrics.operations
        record.imports = metrics.imports
        if result is not None:
            record.logs = result.logs or ""
            record.output = result.output
            record.is_final_answer = bool(result.is_final_answer)
            record.output_size = metrics.output_size
            logs = record.logs if record.logs else "(nothing printed)"
            record.observation = (
                f"Observation:\nExecution logs:\n{logs}\nLast output from code snippet:\n"
                f"{_safe_str(record.output, self.max_observation_length)}"
            )
        else:
            state = getattr(self.executor, "state", None)
            printed = state.get("_print_outputs") if isinstance(state, dict) else None
            record.logs = str(printed) if printed is not None else ""
            record.error, record.error_type = metrics.error, metrics.error_type
            before = f"Execution logs before the error:\n{record.logs}\n" if record.logs else ""
            record.observation = (
                f"{before}Error:\n{record.error}\n"
                "Fix the cause of this error in your next code block. If the same approach "
                "keeps failing, try a different one."
            )
        record.observation = truncate_content(record.observation, self.max_observation_length)

    def _log_step(self, record: StepRecord) -> None:
        if record.error_type:
            outcome = f"error {record.error_type}"
        elif record.is_final_answer:
            outcome = "final answer"
        else:
            outcome = "ok"
        ops = f", {record.operations_count} ops" if record.operations_count is not None else ""
        self.logger.info(
            "step %d: %s (%.3f s%s)",
            record.step_number,
            outcome,
            record.duration,
            ops,
            extra={obs.METRICS_ATTR: record.metrics},
        )
        if record.code is not None:
            self.logger.debug("step %d code:\n%s", record.step_number, record.code)


def _safe_str(value: Any, limit: int = obs.TEXT_LIMIT) -> str:
    try:  # bounded: the observation is truncated anyway, a shared-reference output is huge
        text, complete = obs.bounded_str(value, max(limit, 1))
        return text if complete else text + "..."
    except Exception as exc:  # a value whose __str__ fails must not end the run
        return f"<unprintable {type(value).__name__}: {type(exc).__name__}: {exc}>"


def _model_name(model: Any) -> str:
    for attr in ("model_id", "model_name", "model"):
        name = getattr(model, attr, None)
        if isinstance(name, str) and name:
            return name
    return type(model).__name__


def _usage_attributes(model: Any, reply: Any) -> dict[str, Any]:
    """gen_ai.usage.* and gen_ai.response.model from what the model reports: an OpenAI-style
    ``usage`` dict (OpenAICompatibleModel.last_usage) or a smolagents ChatMessage's
    ``token_usage``."""
    usage = getattr(reply, "token_usage", None)
    last = getattr(model, "last_usage", None)
    last = last if isinstance(last, dict) else {}
    found = {
        "gen_ai.usage.input_tokens": getattr(usage, "input_tokens", None),
        "gen_ai.usage.output_tokens": getattr(usage, "output_tokens", None),
        "gen_ai.response.model": getattr(model, "last_response_model", None),
    }
    if found["gen_ai.usage.input_tokens"] is None:
        found["gen_ai.usage.input_tokens"] = last.get("prompt_tokens")
    if found["gen_ai.usage.output_tokens"] is None:
        found["gen_ai.usage.output_tokens"] = last.get("completion_tokens")
    return {k: v for k, v in found.items() if isinstance(v, str) or type(v) is int}


def _reply_text(reply: Any) -> str:
    if isinstance(reply, str):
        return reply
    content = getattr(reply, "content", None)
    if isinstance(content, str):
        return content
    if content is None and reply is None:
        return ""
    return str(content if content is not None else reply)
