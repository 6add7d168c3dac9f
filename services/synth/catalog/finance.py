"""Finance: quotes, currency conversion, transfers, balances, loans and interest."""

from __future__ import annotations

from services.synth.catalog._schema import boolean, date, enum, fn, integer, number, text

_CURRENCY = "^[A-Z]{3}$"
_ACCOUNT = "^[0-9]{10}$"

TOOLS = (
    fn(
        "get_stock_quote",
        "Get the latest trading price of a stock by its ticker symbol.",
        {"ticker": text("Stock ticker symbol, e.g. AAPL", pattern="^[A-Z]{1,5}$")},
        {
            "exchange": enum(
                "Stock exchange listing",
                ["NASDAQ", "NYSE", "LSE", "XETRA", "TSE"],
                default="NASDAQ",
            ),
            "include_after_hours": boolean("Include after-hours trading", default=False),
        },
    ),
    fn(
        "convert_currency",
        "Convert an amount of money from one currency to another at today's rate.",
        {
            "amount": number("Amount of money to convert", 0.01, 1000000),
            "from_currency": text("ISO 4217 code of the source currency", pattern=_CURRENCY),
            "to_currency": text("ISO 4217 code of the target currency", pattern=_CURRENCY),
        },
    ),
    fn(
        "transfer_money",
        "Transfer money from one of the user's bank accounts to another account.",
        {
            "from_account": text("10-digit number of the paying account", pattern=_ACCOUNT),
            "to_account": text("10-digit number of the receiving account", pattern=_ACCOUNT),
            "amount": number("Amount to transfer", 0.01, 50000),
            "currency": text("ISO 4217 currency code of the amount", pattern=_CURRENCY),
        },
        {
            "reference_note": text("Payment reference shown to the recipient"),
            "scheduled_date": date("Execute the transfer on this day instead of now"),
        },
    ),
    fn(
        "calculate_loan_payment",
        "Calculate the monthly payment of an amortising loan or mortgage.",
        {
            "principal": number("Amount borrowed", 1000, 5000000),
            "annual_interest_rate": number("Nominal yearly interest rate in percent", 0, 30),
            "term_months": integer("Length of the loan in months", 6, 480),
        },
        {"down_payment": number("Cash paid up front, deducted from the principal", 0, 1000000)},
    ),
    fn(
        "get_account_balance",
        "Get the current balance of a bank account.",
        {"account_number": text("10-digit bank account number", pattern=_ACCOUNT)},
        {"include_pending": boolean("Count pending card payments", default=False)},
    ),
    fn(
        "list_recent_transactions",
        "List recent transactions on a bank account, optionally by spending category.",
        {"account_number": text("10-digit bank account number", pattern=_ACCOUNT)},
        {
            "since_date": date("Only transactions booked on or after this day"),
            "category": enum(
                "Spending category",
                ["groceries", "dining", "transport", "shopping", "utilities", "travel"],
            ),
            "limit": integer("Most transactions to return", 1, 100, default=20),
        },
    ),
    fn(
        "get_exchange_rate_history",
        "Get daily exchange rates between two currencies over a date range.",
        {
            "base_currency": text("ISO 4217 code of the base currency", pattern=_CURRENCY),
            "quote_currency": text("ISO 4217 code of the quote currency", pattern=_CURRENCY),
            "start_date": date("First day of the range"),
            "end_date": date("Last day of the range"),
        },
    ),
    fn(
        "calculate_compound_interest",
        "Project the future value of savings with compound interest.",
        {
            "principal": number("Starting deposit", 1, 10000000),
            "annual_rate": number("Yearly interest rate in percent", 0, 25),
            "years": integer("Number of years the money is invested", 1, 50),
        },
        {
            "compounds_per_year": {
                "type": "integer",
                "enum": [1, 4, 12, 365],
                "default": 12,
                "description": "How often interest is compounded per year",
            }
        },
    ),
)
