"""Commerce: product search, cart, orders, shipping, returns, prices and reviews."""

from __future__ import annotations

from services.synth.catalog._schema import array, boolean, enum, fn, integer, number, obj, text

_SKU = "^SKU-[0-9]{6}$"
_SKU_TEXT = text("Product SKU, e.g. SKU-204811", pattern=_SKU)

TOOLS = (
    fn(
        "search_products",
        "Search the online store's products by keywords, category and price.",
        {"query": text("Search keywords, e.g. wireless headphones")},
        {
            "category": enum(
                "Product category",
                ["electronics", "home", "fashion", "sports", "toys", "books", "beauty"],
            ),
            "min_price": number("Lowest price in USD", 0, 10000),
            "max_price": number("Highest price in USD", 0, 10000),
            "sort_by": enum(
                "Result order",
                ["relevance", "price_asc", "price_desc", "rating"],
                default="relevance",
            ),
            "in_stock_only": boolean("Hide sold-out products", default=True),
        },
    ),
    fn(
        "add_to_cart",
        "Add a quantity of a product to the shopping cart.",
        {"product_id": _SKU_TEXT, "quantity": integer("Number of units", 1, 20)},
        {"gift_wrap": boolean("Gift-wrap the item", default=False)},
    ),
    fn(
        "place_order",
        "Place an order for several products and ship it to an address.",
        {
            "items": array(
                "Products and quantities to order",
                obj(
                    "One order line",
                    {"product_id": _SKU_TEXT, "quantity": integer("Number of units", 1, 10)},
                ),
                max_items=5,
            ),
            "shipping_address": obj(
                "Where to deliver",
                {
                    "street": text("Street and house number"),
                    "city": text("City"),
                    "postal_code": text("Postal or ZIP code"),
                    "country": text("Country"),
                },
            ),
            "payment_method": enum(
                "How to pay", ["credit_card", "paypal", "apple_pay", "bank_transfer"]
            ),
        },
        {
            "express_shipping": boolean("Ship with next-day delivery", default=False),
            "coupon_code": text("Discount code, e.g. SAVE20", pattern="^[A-Z]{4,8}[0-9]{2}$"),
        },
    ),
    fn(
        "track_package",
        "Track a parcel's delivery progress by its tracking number.",
        {"tracking_number": text("Carrier tracking number", pattern="^1Z[A-Z0-9]{16}$")},
        {"carrier": enum("Shipping carrier", ["ups", "fedex", "dhl", "usps"], default="ups")},
    ),
    fn(
        "request_return",
        "Start a return and refund for a product from a past order.",
        {
            "order_id": text("Order number, e.g. ORD-20260114", pattern="^ORD-[0-9]{8}$"),
            "product_id": _SKU_TEXT,
            "reason": enum(
                "Why it is returned",
                ["damaged", "wrong_item", "not_as_described", "no_longer_needed", "too_small"],
            ),
        },
        {
            "refund_method": enum(
                "Where the refund goes",
                ["original_payment", "store_credit"],
                default="original_payment",
            )
        },
    ),
    fn(
        "compare_prices",
        "Compare a product's price across several retailers.",
        {"product_name": text("Name of the product to compare")},
        {
            "retailers": array(
                "Retailers to include",
                {"type": "string", "enum": ["amazon", "walmart", "target", "bestbuy", "ebay"]},
                max_items=5,
                unique=True,
            ),
            "max_results": integer("Most offers to return", 1, 20, default=5),
        },
    ),
    fn(
        "get_product_reviews",
        "Read customer reviews and star ratings of a product.",
        {"product_id": _SKU_TEXT},
        {
            "min_rating": integer("Only reviews with at least this many stars", 1, 5),
            "sort_by": enum("Review order", ["newest", "most_helpful", "lowest", "highest"]),
            "limit": integer("Most reviews to return", 1, 50, default=10),
        },
    ),
)
