"""Food: restaurants, table reservations, delivery, recipes, nutrition, unit conversion."""

from __future__ import annotations

from services.synth.catalog._schema import (
    array,
    boolean,
    date,
    enum,
    fn,
    integer,
    number,
    obj,
    text,
    time,
)

_UNITS = ["cup", "tablespoon", "teaspoon", "gram", "ounce", "milliliter"]

TOOLS = (
    fn(
        "find_restaurants",
        "Find restaurants in a city serving a cuisine.",
        {
            "city": text("City to search"),
            "cuisine": enum(
                "Type of cuisine",
                ["italian", "japanese", "mexican", "indian", "thai", "french", "vegan"],
            ),
        },
        {
            "price_level": integer("Price level from 1 (cheap) to 4 (expensive)", 1, 4),
            "open_now": boolean("Only restaurants open right now", default=False),
        },
    ),
    fn(
        "reserve_table",
        "Reserve a table at a restaurant for a party on a day and time.",
        {
            "restaurant_name": text("Name of the restaurant"),
            "date": date("Day of the reservation"),
            "time": time("Time of the reservation"),
            "party_size": integer("Number of diners", 1, 20),
        },
        {
            "special_requests": text("Notes for the restaurant, e.g. allergies or a birthday"),
            "outdoor_seating": boolean("Ask for a table outside", default=False),
        },
    ),
    fn(
        "order_food_delivery",
        "Order dishes from a restaurant for delivery to an address.",
        {
            "restaurant_name": text("Name of the restaurant"),
            "items": array(
                "Dishes to order",
                obj(
                    "One dish",
                    {"dish_name": text("Name of the dish"), "quantity": integer("Portions", 1, 10)},
                ),
                max_items=6,
            ),
            "delivery_address": text("Street address to deliver to"),
        },
        {
            "tip_percent": number("Tip for the courier in percent", 0, 50, default=10),
            "contactless": boolean("Leave the order at the door", default=False),
        },
    ),
    fn(
        "get_recipe",
        "Find a recipe for a dish, optionally matching a diet.",
        {"dish_name": text("Dish to cook")},
        {
            "diet": enum(
                "Dietary restriction", ["vegetarian", "vegan", "gluten_free", "keto", "halal"]
            ),
            "max_prep_minutes": integer("Longest acceptable preparation time", 5, 240),
            "servings": integer("Number of servings", 1, 12, default=4),
        },
    ),
    fn(
        "convert_cooking_units",
        "Convert a cooking quantity of an ingredient between kitchen units.",
        {
            "quantity": number("Quantity to convert", 0.1, 5000),
            "from_unit": enum("Unit of the quantity", _UNITS),
            "to_unit": enum("Unit to convert to", _UNITS),
            "ingredient": text("Ingredient being measured, e.g. flour"),
        },
    ),
    fn(
        "get_nutrition_facts",
        "Get calories, protein, fat and carbohydrates of a food serving.",
        {
            "food_item": text("Food to look up"),
            "serving_grams": number("Serving size in grams", 1, 1000),
        },
    ),
)
