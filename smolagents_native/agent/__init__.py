"""The agent layer: a small code-agent loop over the sandboxed executor, its model clients and
the notebook integration. Built on the executor (`smolagents_native.executor`), never the
reverse; imported on first use (`smolagents_native.CodeAgent`, ...).

    loop.py      CodeAgent, StepRecord, RunResult (what `smolagents_native.agent` was)
    models.py    ScriptedModel, OpenAICompatibleModel (`smolagents_native.models`)
    notebook.py  the %%sandbox magic and rich displays (`smolagents_native.notebook`)
"""

from .loop import (  # noqa: F401  (what the module smolagents_native.agent exposed)
    DEFAULT_MAX_OBSERVATION_LENGTH,
    DEFAULT_MAX_STEPS,
    SYSTEM_PROMPT,
    CodeAgent,
    RunResult,
    StepRecord,
    extract_code,
    final_answer,
    render_tool,
)
from .models import (  # noqa: F401
    DEFAULT_API_BASE,
    Message,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    OpenAICompatibleModel,
    ScriptedModel,
)

__all__ = [
    "CodeAgent",
    "RunResult",
    "ScriptedModel",
    "StepRecord",
    "extract_code",
    "render_tool",
]
