"""Labelled fields: objects nested in objects, lists of objects, a field labelled by shape."""

from __future__ import annotations

import json
from pathlib import Path

from services.synth.calls import tool_name
from services.synth.generators.template.fields import parse_value
from services.synth.generators.template.reader import read
from services.synth.generators.template.specs import _kind

LIBRARY = json.loads(
    (Path(__file__).parents[2] / "examples" / "catalogs" / "library.json").read_text()
)
BY_NAME = {tool_name(tool): tool for tool in LIBRARY}
MEMBER = BY_NAME["register_member"]["function"]["parameters"]["properties"]["member"]
ADDRESS = {"street": "9 Kingsway", "city": "Leeds", "postal_code": "LS1 4AP", "country": "GB"}


def test_an_object_inside_an_object_is_read_whole() -> None:
    said = (
        '(full name "Ada Lovelace", email ada@example.org, address (street "9 Kingsway", '
        'city "Leeds", postal code "LS1 4AP", country "GB"))'
    )
    assert parse_value(MEMBER, said, _kind) == {
        "full_name": "Ada Lovelace",
        "email": "ada@example.org",
        "address": ADDRESS,
    }


def test_a_list_of_objects_with_nested_objects_keeps_each_item() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "size": {
                    "type": "object",
                    "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}},
                },
            },
        },
    }
    said = '(sku "A1", size (width 3, height 4)) and (sku "B2", size (width 5, height 6))'
    assert parse_value(schema, said, _kind) == [
        {"sku": "A1", "size": {"width": 3, "height": 4}},
        {"sku": "B2", "size": {"width": 5, "height": 6}},
    ]


def test_a_field_whose_label_names_no_parameter_is_placed_by_its_keys() -> None:
    query = (
        'Register — new: (full name "Ada Lovelace", email ada@example.org, address (street '
        '"9 Kingsway", city "Leeds", postal code "LS1 4AP", country "GB")).'
    )
    calls = read(query, [BY_NAME["register_member"]], None)
    assert [c.name for c in calls] == ["register_member"]
    assert calls[0].arguments["member"]["address"] == ADDRESS


def test_a_request_no_tool_takes_reads_as_no_call() -> None:
    query = 'Order books — books to order: (isbn "9780306406157", quantity 3); pay in "CHF".'
    assert read(query, [BY_NAME["pay_fine"], BY_NAME["find_branches"]], None) == ()
    fine = "Pay the late fees of member 1ff39849-8c25-4b2f-9080-8a50ec188efb: 14.99 from IBAN "
    calls = read(fine + '"GB82WEST12345698765432".', [BY_NAME["pay_fine"]], None)
    assert [c.name for c in calls] == ["pay_fine"]


def test_the_one_unlabelled_value_of_an_object_fills_its_one_unfilled_required_key() -> None:
    items = BY_NAME["order_books"]["function"]["parameters"]["properties"]["line_items"]
    said = '( "9780306406157", quantity 4) and (isbn "9781234567897", quantity 1)'
    assert parse_value(items, said, _kind) == [
        {"isbn": "9780306406157", "quantity": 4},
        {"isbn": "9781234567897", "quantity": 1},
    ]


def test_a_uuid_after_a_colon_is_one_id() -> None:
    query = (
        "Pay the fine — account id: 3acaaf82-374a-4cc9-a039-7e67926146de; pay: 7.99; "
        'account to debit: "GB82WEST12345698765432".'
    )
    (call,) = read(query, [BY_NAME["pay_fine"]], None)
    assert call.arguments["member_id"] == "3acaaf82-374a-4cc9-a039-7e67926146de"
