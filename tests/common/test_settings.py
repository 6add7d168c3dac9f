from __future__ import annotations

from pathlib import Path

import pytest

from services.common.settings import CommonSettings, MiB, database_url_for, exposure_problem


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "DATA_DIR",
        "DATABASE_URL",
        "API_KEYS",
        "MAX_BODY_BYTES",
        "LOG_LEVEL",
        "SERVICE_NAME",
    ):
        monkeypatch.delenv(f"REFINERY_{name}", raising=False)


class VerifierSettings(CommonSettings):
    service_name: str = "verifier"


def test_defaults() -> None:
    s = CommonSettings()
    assert s.data_dir == Path(".refinery")
    assert s.database_url is None
    assert s.api_keys == []
    assert s.max_body_bytes == 10 * MiB
    assert s.log_level == "INFO"
    assert s.service_name == "refinery"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a,b", ["a", "b"]),
        (" a , b ,, c ", ["a", "b", "c"]),
        ("single", ["single"]),
        ("", []),
        ('["x", "y"]', ["x", "y"]),
    ],
)
def test_api_keys_from_env(monkeypatch: pytest.MonkeyPatch, raw: str, expected: list[str]) -> None:
    monkeypatch.setenv("REFINERY_API_KEYS", raw)
    assert CommonSettings().api_keys == expected


def test_env_prefix_types_and_unknown_vars(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REFINERY_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REFINERY_MAX_BODY_BYTES", "1234")
    monkeypatch.setenv("REFINERY_LOG_LEVEL", "debug")
    monkeypatch.setenv("REFINERY_SOMETHING_ELSE", "ignored")
    monkeypatch.setenv("MAX_BODY_BYTES", "1")  # no prefix: not ours
    s = CommonSettings()
    assert s.data_dir == tmp_path
    assert s.max_body_bytes == 1234
    assert s.log_level == "DEBUG"


def test_keyword_arguments_win_and_lists_are_kept() -> None:
    assert CommonSettings(api_keys=["k1", " k2 "]).api_keys == ["k1", "k2"]


def test_database_url_for_defaults_to_service_sqlite_file(tmp_path: Path) -> None:
    url = database_url_for(VerifierSettings(data_dir=tmp_path))
    assert url == f"sqlite:///{(tmp_path / 'verifier.db').resolve()}"


def test_database_url_for_prefers_configured_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINERY_DATABASE_URL", "postgresql+psycopg://u@db/refinery")
    assert database_url_for(VerifierSettings()) == "postgresql+psycopg://u@db/refinery"


def test_subclass_overrides_service_name_default() -> None:
    assert VerifierSettings().service_name == "verifier"
    assert CommonSettings().service_name == "refinery"


def test_allowed_upstreams_from_env_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINERY_ALLOWED_UPSTREAMS", "http://gpu:8000/v1, https://llm.example")
    assert CommonSettings().allowed_upstreams == ["http://gpu:8000/v1", "https://llm.example"]
    monkeypatch.setenv("REFINERY_ALLOWED_UPSTREAMS", '["http://gpu:8000/v1"]')
    assert CommonSettings().allowed_upstreams == ["http://gpu:8000/v1"]
    monkeypatch.setenv("REFINERY_ALLOWED_UPSTREAMS", "gpu:8000")
    with pytest.raises(ValueError, match="REFINERY_ALLOWED_UPSTREAMS entry 'gpu:8000'"):
        CommonSettings()


@pytest.mark.parametrize(
    ("settings", "refused"),
    [
        ({}, False),
        ({"bind_host": "0.0.0.0"}, True),
        ({"bind_host": "::"}, True),
        ({"bind_host": "0.0.0.0", "api_keys": ["k"]}, False),
        ({"bind_host": "0.0.0.0", "allow_unauthenticated": True}, False),
        ({"bind_host": "localhost"}, False),
    ],
)
def test_exposure_problem(settings: dict, refused: bool) -> None:
    problem = exposure_problem(CommonSettings(**settings))
    assert (problem is not None) is refused
    if refused:
        assert "\n" not in problem and "REFINERY_API_KEYS" in problem
        assert "REFINERY_ALLOW_UNAUTHENTICATED" in problem
