"""``refinery synth`` through CliRunner, against a real uvicorn serving the synth app."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import clients.base
from clients.cli import app
from clients.cli_synth import parse_mix
from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.servers import serve_in_thread

runner = CliRunner()


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.delenv("REFINERY_API_KEY", raising=False)
    monkeypatch.setattr(clients.base, "RETRY_BASE_DELAY", 0.0)


@pytest.fixture
def synth_url(tmp_path: Path, database_url: str) -> Iterator[str]:
    settings = SynthSettings(data_dir=tmp_path / "data", database_url=database_url)
    with serve_in_thread(build_app(settings)) as url:
        yield url


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_synth_writes_n_trl_rows(tmp_path: Path, synth_url: str) -> None:
    out = tmp_path / "out" / "data.jsonl"
    args = ["synth", "--n", "5", "--out", str(out), "--seed", "2", "--url", synth_url]
    result = runner.invoke(app, [*args, "--mix", "simple=0.5,parallel=0.5"])
    assert result.exit_code == 0, result.output
    rows = _lines(out)
    assert len(rows) == 5 and {r["meta"]["category"] for r in rows} <= {"simple", "parallel"}
    assert all(r["messages"][0]["role"] == "user" for r in rows)
    assert f"wrote 5 trl rows to {out} (5/5 accepted)" in result.output
    assert "2 query" in result.output and "3 calls" in result.output
    assert not (out.parent / "data.jsonl.part").exists()


def test_synth_passes_the_reader_on(tmp_path: Path, synth_url: str) -> None:
    out = tmp_path / "rules.jsonl"
    args = ["synth", "--n", "2", "--out", str(out), "--mix", "simple=1", "--reader", "rules"]
    result = runner.invoke(app, [*args, "--url", synth_url])
    assert result.exit_code == 0, result.output
    traces = [json.loads(row["meta"]["trace"]) for row in _lines(out)]
    answers = [step for trace in traces for step in trace if step["stage"] == "calls"]
    assert len(traces) == 2 and answers and all(a["reader"] == "rules" for a in answers)


def test_synth_bfcl_from_a_catalog_file(tmp_path: Path, synth_url: str) -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "count_words",
            "description": "Count the words of a text.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Text to count"}},
                "required": ["text"],
            },
        },
    }
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([tool]))
    out = tmp_path / "bfcl.jsonl"
    args = ["synth", "--n", "3", "--out", str(out), "--format", "bfcl", "--mix", "simple=1"]
    result = runner.invoke(app, [*args, "--catalog", str(catalog), "--url", synth_url])
    assert result.exit_code == 0, result.output
    rows = _lines(out)
    assert len(rows) == 3 and all("ground_truth" in r for r in rows)


def test_synth_refusals_exit_2(tmp_path: Path, synth_url: str, free_port: int) -> None:
    out = str(tmp_path / "x.jsonl")
    bad_mix = runner.invoke(app, ["synth", "--out", out, "--mix", "simple", "--url", synth_url])
    assert bad_mix.exit_code == 2 and "CATEGORY=WEIGHT" in bad_mix.output
    unknown = runner.invoke(app, ["synth", "--out", out, "--generator", "gpt", "--url", synth_url])
    assert unknown.exit_code == 2 and "unknown generator 'gpt'" in unknown.output
    reader = runner.invoke(app, ["synth", "--out", out, "--reader", "nope", "--url", synth_url])
    assert reader.exit_code == 2 and "unknown reader 'nope'" in reader.output
    fmt = runner.invoke(app, ["synth", "--out", out, "--format", "csv", "--url", synth_url])
    assert fmt.exit_code == 2 and "trl or bfcl" in fmt.output
    down = runner.invoke(app, ["synth", "--out", out, "--url", f"http://127.0.0.1:{free_port}"])
    assert down.exit_code == 2 and "not reachable" in down.output
    assert not Path(out).exists()


def test_parse_mix() -> None:
    assert parse_mix("simple=0.4, parallel=0.6") == {"simple": 0.4, "parallel": 0.6}
    assert parse_mix(None) is None
    with pytest.raises(typer.BadParameter):
        parse_mix("simple=lots")
