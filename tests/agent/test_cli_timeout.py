"""`--timeout` of the CLI: a finite positive number of seconds, or `none`; nothing else."""

from __future__ import annotations

import pytest

from smolagents_native.__main__ import main


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "0", "0.0", "-0", "", "abc",
                                   "1e999", "None seconds"])
@pytest.mark.parametrize("command", ["run", "agent"])
def test_rejected_values_exit_2_with_a_message(value, command, capsys, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print(1)\n")
    target = [str(script)] if command == "run" else ["--task", "t"]
    args = [command, f"--timeout={value}", *target]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--timeout" in err and "invalid value" in err and "none" in err


def test_negative_value_as_separate_argument_is_rejected(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print(1)\n")
    for value in ("-1", "-inf"):
        with pytest.raises(SystemExit) as exc:
            main(["run", "--timeout", value, str(script)])
        assert exc.value.code == 2


@pytest.mark.parametrize("value", ["none", "None", "NONE"])
def test_none_disables_the_limit(value, capsys, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print(40 + 2)\n")
    assert main(["run", "--timeout", value, str(script)]) == 0
    assert "42" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["2", "0.5", "1e1", "30.0"])
def test_finite_positive_numbers_are_accepted(value, capsys, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print('ok')\n")
    assert main(["run", "--timeout", value, str(script)]) == 0
    assert "ok" in capsys.readouterr().out


def test_a_small_timeout_is_applied(capsys, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("for i in range(10**12):\n    pass\n")
    assert main(["run", "--timeout", "0.2", "--max-operations", str(10**15), str(script)]) == 1
    assert "maximum execution time of 0.2 seconds" in capsys.readouterr().err
