"""Command line: ``python -m smolagents_native {run,bench,agent,serve} ...`` (`__main__.py`).

Exit status: 0 on success; 1 when the code fails (``run``) or the agent ends without an answer
or its model fails (``agent``); 2 on a usage error (bad arguments, missing file, missing
benchmark module).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import logging
import math
import os
import runpy
import sys
import textwrap
import time
from collections.abc import Sequence
from typing import Any



def _prog() -> str:
    """The name the command was called by: the console script's, else `python -m ...`."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name.startswith("smolagents-native") else "python -m smolagents_native"


PROG = _prog()


def _positive_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError("must be a finite positive number")
    return value


def _timeout(text: str) -> float | None:
    """`--timeout`: a finite positive number of seconds, or `none` for no limit. Anything
    else (nan, inf, 0, negative numbers, words) is a usage error (exit status 2)."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: give a number of seconds, or 'none' for no limit"
        ) from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: must be a finite positive number of seconds "
            "(or 'none' for no limit)"
        )
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def _add_sandbox_options(parser: argparse.ArgumentParser, timeout_help: str) -> None:
    parser.add_argument(
        "--authorized-imports",
        nargs="+",
        default=[],
        metavar="MODULE",
        help="modules the code may import besides the base ones (collections, math, re, ...); "
        "'pkg.*' authorizes a package's submodules, '*' everything (the list ends at the next "
        "option, or at '--')",
    )
    parser.add_argument(
        "--timeout",
        type=_timeout,
        default=30.0,
        metavar="S",
        help=timeout_help + " (a finite positive number, or 'none' for no limit)",
    )


def _add_logging_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log each execution/step to stderr"
    )
    parser.add_argument(
        "--log-json",
        action="store_true",
        help="log to stderr as JSON lines (one object per execution/step)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="smolagents_native: a sandboxed Python interpreter for code agents.",
        epilog=f"Run '{PROG} COMMAND --help' for the options of a command.",
    )
    from ._version import __version__

    parser.add_argument("--version", action="version", version=f"smolagents_native {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    run = sub.add_parser(
        "run",
        help="run a Python file in the sandbox",
        description="Run FILE (or '-' for stdin) in the sandbox; print what it printed, then "
        "the repr of the value of its last line ('Final answer: ...' if it called "
        "final_answer). On failure the error goes to stderr and the exit status is 1.",
    )
    run.add_argument("file", metavar="FILE", help="the Python file to run ('-': read stdin)")
    _add_sandbox_options(run, "wall-clock limit in seconds (default 30)")
    run.add_argument(
        "--max-operations",
        type=_positive_int,
        default=None,
        metavar="N",
        help="operation budget (default: the executor's MAX_OPERATIONS, 10 million)",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: output (repr), logs, is_final_answer, "
        "operations, duration, error",
    )
    _add_logging_options(run)

    sub.add_parser(
        "bench",
        help="run the benchmark (smolagents_native.bench); arguments are passed on",
        description="Forward all arguments to smolagents_native.bench (see "
        f"'{PROG} bench --help').",
        add_help=False,
    )

    agent = sub.add_parser(
        "agent",
        help="run a code agent (offline demo, or a task on an OpenAI-compatible endpoint)",
        description="Run a CodeAgent. --demo runs offline with a scripted model; --task uses an "
        "OpenAI-compatible chat-completions endpoint (--api-base or $OPENAI_BASE_URL, --model or "
        "$SMOLAGENTS_NATIVE_MODEL, key in $OPENAI_API_KEY or --api-key).",
    )
    what = agent.add_mutually_exclusive_group(required=True)
    what.add_argument("--demo", action="store_true", help="run the offline demo")
    what.add_argument("--task", metavar="TEXT", help="the task to solve")
    agent.add_argument("--model", metavar="NAME", help="model name sent to the endpoint")
    agent.add_argument("--api-base", metavar="URL", help="base URL, e.g. http://127.0.0.1:8000/v1")
    agent.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key (prefer $OPENAI_API_KEY: arguments are visible to others)",
    )
    agent.add_argument(
        "--max-steps",
        type=_positive_int,
        default=10,
        metavar="N",
        help="steps before giving up (default 10)",
    )
    agent.add_argument(
        "--model-timeout",
        type=_positive_float,
        default=120.0,
        metavar="S",
        help="seconds to wait for each model reply (default 120)",
    )
    agent.add_argument(
        "--max-retries",
        type=int,
        default=3,
        metavar="N",
        help="model request retries on 429/5xx/connection errors (default 3)",
    )
    _add_sandbox_options(agent, "wall-clock limit of each code execution in seconds (default 30)")
    agent.add_argument(
        "-q", "--quiet", action="store_true", help="print only the final answer, not each step"
    )
    _add_logging_options(agent)

    serve = sub.add_parser(
        "serve",
        help="run the sandbox service (HTTP; the [service] extra)",
        description="Serve sandbox sessions over HTTP (docs/service.md): each session a "
        "process-mode executor; tools stay with the client. Tokens come from --token-file "
        "(one per line) or $SMOLAGENTS_NATIVE_SERVICE_TOKENS (comma-separated).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default 127.0.0.1; 0.0.0.0 in a container)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    serve.add_argument("--token-file", metavar="PATH", help="the bearer tokens, one per line")
    serve.add_argument("--max-sessions", type=_positive_int, default=32, metavar="N")
    serve.add_argument("--sessions-per-token", type=_positive_int, default=8, metavar="N")
    serve.add_argument("--idle-timeout", type=_positive_float, default=600.0, metavar="S",
                       help="close a session no request touched for S seconds (default 600)")
    serve.add_argument("--max-request-bytes", type=_positive_int, default=4 << 20,
                       metavar="N", help="largest request body (default 4 MiB; its values "
                       "take at most 64 times that once decoded)")
    serve.add_argument("--allowed-imports", nargs="*", metavar="MODULE", default=None,
                       help="modules a session may authorize (default: any)")
    serve.add_argument("--max-timeout", type=_positive_float, default=60.0, metavar="S",
                       help="the longest step timeout a session may ask for (default 60)")
    serve.add_argument("--tool-timeout", type=_positive_float, default=120.0, metavar="S",
                       help="how long a step waits for the client's tool result (default 120)")
    serve.add_argument("--pool-size", type=_positive_int, default=None, metavar="N",
                       help="a worker pool of N slots for the sessions (default: the shared "
                       "pool)")
    serve.add_argument("--grantable-dirs", nargs="*", metavar="DIR", default=(),
                       help="directories a session may be granted (read or write) at or "
                       "under (default: none)")
    serve.add_argument("--allow-network", action="store_true",
                       help="let a session ask for the network (default: never)")
    serve.add_argument("--log-level", default="info",
                       choices=["debug", "info", "warning", "error"])
    parser.set_defaults(commands={"run": run, "agent": agent, "serve": serve})
    return parser


def _parse(argv: list[str]) -> argparse.Namespace:
    """Parse the arguments; an unknown option is reported with its command's usage."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser_of = args.commands.get(args.command, parser)
        parser_of.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _setup_logging(args: argparse.Namespace) -> None:
    if args.verbose or args.log_json:
        from .observability import configure_logging

        configure_logging(logging.INFO, json=args.log_json, stream=sys.stderr)


# ---------------------------------------------------------------------------------------------
# run


def _make_executor(imports: list[str], timeout: float | None, max_operations: int | None) -> Any:
    from . import executor as executor_module
    from .executor import LocalPythonExecutor

    kwargs: dict[str, Any] = {"timeout_seconds": timeout}
    if max_operations is not None:
        if "max_operations" in inspect.signature(LocalPythonExecutor).parameters:
            kwargs["max_operations"] = max_operations
        else:
            # The executor reads this module constant at each call; this process runs one
            # file, so changing it here affects nothing else.
            executor_module.MAX_OPERATIONS = max_operations
    executor = LocalPythonExecutor(list(imports), **kwargs)
    executor.send_tools({"final_answer": lambda answer: answer})
    return executor


def _cmd_run(args: argparse.Namespace) -> int:
    _setup_logging(args)
    try:
        if args.file == "-":
            code = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                code = f.read()
    except OSError as exc:
        print(f"{PROG} run: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"{PROG} run: {args.file} is not UTF-8 text: {exc}", file=sys.stderr)
        return 2

    from .errors import InterpreterError
    from .observability import execute

    try:
        executor = _make_executor(args.authorized_imports, args.timeout, args.max_operations)
    except InterpreterError as exc:  # e.g. an authorized module that is not installed
        print(f"{PROG} run: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    error: Exception | None = None
    out = None
    try:
        out = execute(executor, code)
    except Exception as exc:
        error = exc
    duration = time.perf_counter() - start
    logs = out.logs if out is not None else str(executor.state.get("_print_outputs", ""))
    from .observability import operations_count

    if args.json:
        print(
            json.dumps(
                {
                    "output": None if out is None or out.output is None else repr(out.output),
                    "logs": logs,
                    "is_final_answer": bool(out and out.is_final_answer),
                    "operations": operations_count(executor),
                    "duration": duration,
                    "error": None if error is None else f"{type(error).__name__}: {error}",
                    "error_line": None if error is None else getattr(error, "lineno", None),
                }
            )
        )
    else:
        if logs:
            sys.stdout.write(logs if logs.endswith("\n") else logs + "\n")
        if out is not None:
            if out.is_final_answer:
                print(f"Final answer: {out.output}")
            elif out.output is not None:
                print(repr(out.output))
    sys.stdout.flush()
    if error is not None:
        print(_error_report(error, args.file, code), file=sys.stderr)
        return 1
    return 0


def _error_report(error: BaseException, file: str, code: str) -> str:
    """The step's error as Python reports one: where (the file and line: the innermost
    statement the error left, `InterpreterError.lineno`), that line, then the error."""
    message = f"{type(error).__name__}: {error}"
    lineno = getattr(error, "lineno", None)
    if not isinstance(lineno, int) or lineno < 1:
        return message
    name = "<stdin>" if file == "-" else file
    cause = error.__cause__
    if isinstance(cause, SyntaxError) and cause.filename == "<unknown>":
        # The parser names the source "<unknown>" (as smolagents' ast.parse does); here it is
        # this file. The message shows the line and a caret already.
        message = message.replace("(<unknown>, line", f"({name}, line", 1)
        return f'  File "{name}", line {lineno}\n{message}'
    lines = code.splitlines()
    text = lines[lineno - 1].strip() if lineno <= len(lines) else ""
    return f'  File "{name}", line {lineno}\n' + (f"    {text}\n" if text else "") + message


# ---------------------------------------------------------------------------------------------
# bench


def _cmd_bench(argv: list[str]) -> int:
    try:
        from . import bench
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.bench":
            raise
        print(
            f"{PROG} bench: the benchmark module (smolagents_native.bench) is not available "
            "in this installation.",
            file=sys.stderr,
        )
        return 2
    main = getattr(bench, "main", None)
    try:
        if main is not None:
            status = main(argv)
        elif importlib.util.find_spec(f"{__package__}.bench.__main__") is not None:
            # A package with only a __main__.py: run it as `python -m` would.
            saved = sys.argv
            sys.argv = [f"{sys.executable} -m {__package__}.bench", *argv]
            try:
                runpy.run_module(f"{__package__}.bench", run_name="__main__", alter_sys=True)
            finally:
                sys.argv = saved
            status = 0
        else:
            print(
                f"{PROG} bench: smolagents_native.bench has no main(argv) function.",
                file=sys.stderr,
            )
            return 2
    except SystemExit as exc:  # argparse inside bench, or sys.exit()
        status = exc.code
    if status is None:
        return 0
    if isinstance(status, int):
        return status
    print(status, file=sys.stderr)
    return 1


# ---------------------------------------------------------------------------------------------
# agent

DEMO_TASK = (
    "What is the average population of Paris, Berlin and Madrid, in millions, "
    "rounded to 2 decimals?"
)

_DEMO_POPULATIONS = {"paris": 2_102_650, "berlin": 3_878_100, "madrid": 3_332_035}


def get_population(city: str) -> int:
    """Return the number of inhabitants of a city (demo data: Paris, Berlin and Madrid).

    Args:
        city: the city's name, e.g. "Paris".
    """
    try:
        return _DEMO_POPULATIONS[city.strip().lower()]
    except KeyError:
        raise KeyError(f"unknown city {city!r}; known: Paris, Berlin, Madrid") from None


DEMO_REPLIES = [
    # Step 1: a mistake (a wrong keyword argument), corrected in step 2.
    """Thought: I will look up each city's population with the tool, then average them.
```python
cities = ["Paris", "Berlin", "Madrid"]
populations = {c: get_population(name=c) for c in cities}
print(populations)
```""",
    """Thought: The tool's parameter is called `city`, not `name`. I pass it positionally.
```python
populations = {c: get_population(c) for c in cities}
for c, n in populations.items():
    print(f"{c}: {n:,}")
average = sum(populations.values()) / len(populations)
average
```""",
    """Thought: I have the average; I convert it to millions and round it.
```python
final_answer(round(average / 1_000_000, 2))
```""",
]


def _print_step(step: Any) -> None:
    bar = "-" * 72
    print(f"{bar}\nStep {step.step_number}")
    if step.code is None:
        print("Model reply (no code block):")
        print(textwrap.indent(step.model_output, "  "))
    else:
        thought = step.model_output.split("```", 1)[0].split("<code>", 1)[0].strip()
        if thought:
            print(thought)
        print("Code:")
        print(textwrap.indent(step.code, "  "))
    if step.logs:
        print("Logs:")
        print(textwrap.indent(step.logs.rstrip("\n"), "  "))
    if step.error:
        print(f"Error: {step.error}")
    elif step.is_final_answer:
        print(f"Final answer: {step.output}")
    elif step.code is not None:
        print(f"Output: {step.output!r}")
    ops = f", {step.operations_count} operations" if step.operations_count is not None else ""
    print(f"({step.duration:.3f} s{ops})", flush=True)


def _cmd_agent(args: argparse.Namespace) -> int:
    _setup_logging(args)
    from .agent import CodeAgent, ModelError, OpenAICompatibleModel, ScriptedModel

    callbacks = [] if args.quiet else [_print_step]
    if args.demo:
        task = DEMO_TASK
        model: Any = ScriptedModel(DEMO_REPLIES)
        tools: list[Any] = [get_population]
    else:
        task = args.task
        try:
            model = OpenAICompatibleModel(
                args.model,
                api_base=args.api_base,
                api_key=args.api_key,
                timeout=args.model_timeout,
                max_retries=max(0, args.max_retries),
            )
        except ValueError as exc:
            print(f"{PROG} agent: {exc}", file=sys.stderr)
            return 2
        tools = []
    try:
        agent = CodeAgent(
            tools,
            model,
            additional_authorized_imports=args.authorized_imports,
            max_steps=args.max_steps,
            timeout_seconds=args.timeout,
            step_callbacks=callbacks,
        )
    except Exception as exc:
        print(f"{PROG} agent: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"Task: {task}", flush=True)
    try:
        result = agent.run(task)
    except ModelError as exc:
        print(f"{PROG} agent: the model failed: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        print("=" * 72)
    if result.finished:
        print(result.final_answer if args.quiet else result.message)
        return 0
    print(result.message, file=sys.stderr)
    return 1


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        from .service import ServiceConfig, read_tokens, serve
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ModuleNotFoundError as exc:
        print(f"{PROG} serve: {exc.name} is missing: pip install 'smolagents-native[service]'",
              file=sys.stderr)
        return 2
    try:
        tokens = read_tokens(args.token_file)
    except (OSError, ValueError) as exc:
        print(f"{PROG} serve: {exc}", file=sys.stderr)
        return 2
    if not tokens:
        print(f"{PROG} serve: no token: give --token-file or set "
              "SMOLAGENTS_NATIVE_SERVICE_TOKENS", file=sys.stderr)
        return 2
    config = ServiceConfig(
        tokens=tokens, max_sessions=args.max_sessions,
        sessions_per_token=args.sessions_per_token, idle_timeout=args.idle_timeout,
        max_request_bytes=args.max_request_bytes,
        allowed_imports=None if args.allowed_imports is None else frozenset(args.allowed_imports),
        max_timeout_seconds=args.max_timeout,
        default_timeout_seconds=min(30.0, args.max_timeout),
        tool_timeout=args.tool_timeout, pool_size=args.pool_size,
        grantable_dirs=frozenset(args.grantable_dirs), allow_network=args.allow_network)
    serve(config, host=args.host, port=args.port, log_level=args.log_level)
    return 0


# ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":  # everything after `bench` belongs to the benchmark
        return _cmd_bench(argv[1:])
    args = _parse(argv)
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "agent":
            return _cmd_agent(args)
        if args.command == "serve":
            return _cmd_serve(args)
    except KeyboardInterrupt:  # Ctrl-C: the step and the agent loop stop (docs/core-api.md)
        sys.stdout.flush()
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    raise AssertionError(args.command)  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
