"""A mapping parameter's value (``template.mappings``)."""

from __future__ import annotations

from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

PROFILE = _tool(
    "update_profile",
    "Update a customer's profile in the database.",
    {
        "customer_id": {"type": "integer", "description": "The customer's ID."},
        "changes": {"type": "object", "description": "The new information to store."},
    },
    ["customer_id", "changes"],
)
SCORES = _tool(
    "average_score",
    "Average of scores by subject.",
    {"scores": {"type": "object", "description": "Subjects and their scores."}},
    ["scores"],
)


def test_quoted_key_value_pairs_are_one_mapping() -> None:
    query = "Update the profile of customer 7781 'city':'Lyon', 'phone':'555-0101' please."
    (call,) = read(query, [PROFILE])
    assert call.arguments == {"customer_id": 7781, "changes": {"city": "Lyon", "phone": "555-0101"}}


def test_a_mapping_in_braces_is_the_mapping_parameters_value() -> None:
    query = "What is the average score for {'Art': 71, 'Music': 93.5}?"
    (call,) = read(query, [SCORES])
    assert call.arguments == {"scores": {"Art": 71, "Music": 93.5}}


USER = _tool(
    "update_user_info",
    "Update user information in the database.",
    {
        "user_id": {"type": "integer", "description": "The user ID of the customer."},
        "update_info": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The new name."},
                "email": {"type": "string", "description": "The new email."},
            },
            "description": "The new information.",
        },
    },
    ["user_id", "update_info"],
)


def test_a_mappings_fields_named_then_set_to_as_many_values_are_the_mapping() -> None:
    (call,) = read(
        'Update the name and email of the customer with user ID 4521 to "Ann" and "a@x.com".',
        [USER],
    )
    assert call.arguments == {"user_id": 4521, "update_info": {"name": "Ann", "email": "a@x.com"}}
