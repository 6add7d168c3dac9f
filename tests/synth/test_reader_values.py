"""A parameter's values: flags, hints, conversions (``template.values``)."""

from __future__ import annotations

from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

ENTROPY = _tool(
    "entropy_change",
    "Entropy change of an isothermal process.",
    {
        "heat": {"type": "number", "description": "The heat in joules."},
        "isothermal": {"type": "boolean", "description": "Whether it is isothermal."},
    },
    ["heat"],
)


def test_a_flag_stated_of_what_is_asked_is_set_and_not_unsets_it() -> None:
    query = (
        "The heat is 40 joules. The process is isothermal. What is the entropy change?"
        " What if the process is not isothermal, what is the entropy change?"
    )
    assert [c.arguments.get("isothermal") for c in read(query, [ENTROPY])] == [True, False]
