import pytest

from services.planner.ingest.names import name_words


@pytest.mark.parametrize(
    ("stem", "words"),
    [
        ("bigbuckbunny", ["big", "buck", "bunny"]),
        ("surf_day2-wave03", ["surf", "day", "wave"]),
        ("IMG_2041", []),
        ("PXL_20240601_101500", []),
        ("GOPR0042 harbour", ["harbour"]),
        ("DSC01234-sunsetbeach", ["sunset", "beach"]),
        ("beachSunsetWide", ["beach", "sunset", "wide"]),
        ("HTMLParser", ["html", "parser"]),
        ("Surf_sunset-02 (wide)", ["surf", "sunset", "wide"]),
        ("drone flyover", ["drone", "flyover"]),
        ("bikes", ["bikes"]),
        ("x_7", []),
    ],
)
def test_file_name_words_split_and_counters_drop(stem: str, words: list[str]) -> None:
    assert name_words(stem) == words
