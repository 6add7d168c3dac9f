from __future__ import annotations

from services.common.errors import DatabaseUnavailable, sanitize_message, sanitize_value

DRIVER_ERROR = (
    "(psycopg.OperationalError) consuming input failed: terminating connection due to "
    "administrator command\n"
    "[SQL: INSERT INTO synth_examples (job_id, seq) VALUES (%(job_id)s, %(seq)s)]\n"
    "[parameters: {'job_id': 'abc', 'seq': 7}]\n"
    "(Background on this error at: https://sqlalche.me/e/20/e3q8)"
)


def test_sql_text_parameters_and_links_are_cut() -> None:
    clean = sanitize_message(DRIVER_ERROR)
    assert clean.endswith("terminating connection due to administrator command")
    for leak in ("[SQL", "INSERT", "parameters", "sqlalche.me"):
        assert leak not in clean


def test_absolute_paths_keep_only_their_last_part() -> None:
    assert sanitize_message("no media file at /srv/media/c01.mp4") == "no media file at …/c01.mp4"
    assert sanitize_message("open '/tmp/x/data/synth.db' failed") == "open '…/synth.db' failed"
    assert sanitize_message("under the root /work/media.") == "under the root …/media."


def test_urls_routes_and_relative_paths_are_left_alone() -> None:
    for text in (
        "could not reach http://127.0.0.1:8101/v1/verify:batch",
        "no route for POST /v1/jobs/abc:retry",
        "media URI 'media/c01.mp4' is missing",
        "ratio 9/16 is odd",
    ):
        assert sanitize_message(text) == text


def test_sanitize_value_walks_nested_context() -> None:
    value = {"stderr": ["/usr/lib/x/libfoo.so missing"], "n": 3, "inner": {"p": "/a/b/c"}}
    assert sanitize_value(value) == {
        "stderr": ["…/libfoo.so missing"],
        "n": 3,
        "inner": {"p": "…/c"},
    }


def test_database_unavailable_is_a_503_with_a_retry_hint() -> None:
    exc = DatabaseUnavailable(retry_after_s=7)
    assert exc.status_code == 503 and exc.code == "database_unavailable"
    assert exc.retry_after_s == 7 and "retry" in exc.message
