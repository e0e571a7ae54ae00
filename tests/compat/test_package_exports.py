"""The package's exports, with or without smolagents installed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

import smolagents_native


def test_every_name_in_all_resolves():
    for name in smolagents_native.__all__:
        assert getattr(smolagents_native, name) is not None, name
    assert set(smolagents_native.__all__) <= set(dir(smolagents_native))


def test_lazy_exports_come_from_their_modules():
    from smolagents_native import agent, models

    assert smolagents_native.CodeAgent is agent.CodeAgent
    assert smolagents_native.RunResult is agent.RunResult
    assert smolagents_native.StepRecord is agent.StepRecord
    assert smolagents_native.ScriptedModel is models.ScriptedModel
    assert smolagents_native.OpenAICompatibleModel is models.OpenAICompatibleModel
    assert smolagents_native.ModelError is models.ModelError
    with pytest.raises(AttributeError):
        smolagents_native.no_such_name  # noqa: B018


def test_importing_the_package_does_not_import_the_agent_loop():
    code = ("import sys, smolagents_native; "
            "print(any(m in sys.modules for m in "
            "('smolagents_native.agent', 'smolagents_native.models')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_code_output_renders_in_notebooks():
    out = smolagents_native.CodeOutput(output=[1, 2], logs="hello\n", is_final_answer=False)
    assert "hello" in out._repr_html_()
    assert "hello" in out._repr_markdown_()


def test_load_ipython_extension_is_exported():
    assert callable(smolagents_native.load_ipython_extension)


@pytest.mark.skipif(importlib.util.find_spec("smolagents") is not None,
                    reason="checks the behaviour without smolagents")
def test_patch_smolagents_without_smolagents():
    with pytest.raises(ImportError):
        smolagents_native.patch_smolagents()
    assert smolagents_native.unpatch_smolagents() is False
