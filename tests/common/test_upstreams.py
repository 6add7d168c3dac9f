"""The upstream allow-list, URL checks and the loopback test (pure functions)."""

from __future__ import annotations

import pytest

from services.common.upstreams import (
    AllowList,
    UpstreamNotAllowed,
    check_url,
    is_loopback,
    same_upstream,
)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "https://llm.example.com",
        "HTTP://Gpu-Box:8000/v1/",
        "http://[::1]:8102",
    ],
)
def test_good_urls_pass(url: str) -> None:
    assert check_url(url) == url


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://a\x00b/v1", "control"),
        ("http://a/v1\n", "control"),
        ("http://a /v1", "spaces"),
        ("http://a\x7f", "control"),
        ("file:///etc/passwd", "http"),
        ("gopher://a", "http"),
        ("127.0.0.1:8000", "http"),
        ("http://", "host"),
        ("http://a:99999", "port"),
        ("http://a:x", "port"),
        ("http://u:p@a/v1", "credentials"),
        ("http://a/v1?x=1", "query"),
        ("http://a/v1#top", "query"),
        ("http://é.example", "ASCII"),
        ("http://a/" + "x" * 2100, "2048"),
    ],
)
def test_bad_urls_say_why(url: str, reason: str) -> None:
    with pytest.raises(ValueError, match=f"(?i){reason}"):
        check_url(url)


def test_allow_list_matches_origin_and_path_prefix() -> None:
    allowed = AllowList(["http://127.0.0.1:8000/v1", None], ["https://Gpu.example/"])
    assert allowed.allows("http://127.0.0.1:8000/v1")
    assert allowed.allows("http://127.0.0.1:8000/v1/")
    assert allowed.allows("http://127.0.0.1:8000/v1/deeper")
    assert allowed.allows("https://gpu.example:443/anything")
    assert not allowed.allows("http://127.0.0.1:8000/v10")
    assert not allowed.allows("http://127.0.0.1:8000/admin")
    assert not allowed.allows("http://127.0.0.1:8001/v1")
    assert not allowed.allows("https://127.0.0.1:8000/v1")
    assert not allowed.allows("http://gpu.example/")  # http is not https
    assert not allowed.allows("http://127.0.0.1.attacker.example:8000/v1")
    assert not allowed.allows("http://attacker.example/http://127.0.0.1:8000/v1")
    assert not allowed.allows("not a url")


def test_an_unparsable_configured_upstream_matches_nothing() -> None:
    allowed = AllowList(["planner:8102", "", None])
    assert allowed.entries == () and not allowed.allows("http://planner:8102")


def test_an_empty_allow_list_refuses_everything() -> None:
    with pytest.raises(UpstreamNotAllowed) as caught:
        AllowList([]).require("http://127.0.0.1:9/v1", param="sources[0].url")
    assert caught.value.status_code == 422 and caught.value.param == "sources[0].url"
    assert "REFINERY_ALLOWED_UPSTREAMS" in caught.value.message


def test_same_upstream_ignores_only_spelling() -> None:
    assert same_upstream("HTTP://LLM:80/v1/", "http://llm/v1")
    assert same_upstream("https://llm/v1", "https://llm:443/v1")
    assert not same_upstream("http://llm/v1/x", "http://llm/v1")
    assert not same_upstream("http://llm:81/v1", "http://llm/v1")
    assert not same_upstream("http://llm/v1", None)
    assert not same_upstream("http://llm/v1\x00", "http://llm/v1")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.1.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.4", False),
        ("example.com", False),
        ("", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
