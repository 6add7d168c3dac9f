"""Pools of realistic values (places, people, products, media…) that argument sampling draws.

``RULES`` maps parameter-name words to a pool label, first hit wins, so specific words
(``song``, ``restaurant``) come before generic ones (``title``, ``name``).
"""

from __future__ import annotations

import datetime as dt
import random
import re
import unicodedata
from collections.abc import Callable

from services.synth.catalog._schema import TIME_PATTERN

__all__ = [
    "FORMATS",
    "GENERATED",
    "INT_DEFAULTS",
    "KEYWORD_RULES",
    "NUMBER_DEFAULTS",
    "RULES",
    "STRINGS",
    "TIME_PATTERN",
]


def _split(text: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in text.split("|") if item.strip())


PEOPLE = _split(
    "Maria Silva|James Carter|Aiko Tanaka|Lukas Becker|Priya Sharma|Omar Haddad|Sofia Rossi|"
    "Chen Wei|Emma Johansson|Diego Fernández|Fatima Okafor|Noah Williams|Chloé Martin|"
    "Arjun Mehta|Hannah Schmidt|Mateo García|Yuki Sato|Olivia Brown|Ahmed Khan|Isabel Costa|"
    "Liam O'Connor|Zoe Papadopoulos|Ravi Patel|Grace Kim|Tom Nguyen|Elena Petrova"
)
EMAIL_DOMAINS = _split("gmail.com|outlook.com|proton.me|acme.io|northwind.com|fastmail.fm")
PHONE_PREFIXES: tuple[tuple[str, int], ...] = (
    ("+1415555", 4),
    ("+1212555", 4),
    ("+4477009", 5),
    ("+4915112", 6),
    ("+33612", 6),
    ("+8190123", 4),
    ("+61412", 6),
    ("+351912", 6),
)
SLUGS = _split("about|contact|menu|events/spring|docs/getting-started|shop/new")

SONG_ARTISTS: dict[str, str] = dict(
    pair.split(" / ")
    for pair in _split(
        "Bohemian Rhapsody / Queen|Blinding Lights / The Weeknd|Rolling in the Deep / Adele|"
        "Hotel California / Eagles|Levitating / Dua Lipa|Shape of You / Ed Sheeran|"
        "Smells Like Teen Spirit / Nirvana|As It Was / Harry Styles|Dancing Queen / ABBA|"
        "Bad Guy / Billie Eilish|Superstition / Stevie Wonder|Hey Jude / The Beatles|"
        "Flowers / Miley Cyrus|Africa / Toto|Anti-Hero / Taylor Swift|Get Lucky / Daft Punk|"
        "Clair de Lune / Claude Debussy|Redbone / Childish Gambino"
    )
)
"""Song title → its artist, so a sampled call never asks for Hey Jude by Adele."""

BOOK_AUTHORS: dict[str, str] = dict(
    pair.split(" / ")
    for pair in _split(
        "Project Hail Mary / Andy Weir|Sapiens / Yuval Noah Harari|Dune / Frank Herbert|"
        "Pride and Prejudice / Jane Austen|Norwegian Wood / Haruki Murakami|"
        "Beloved / Toni Morrison|1984 / George Orwell|Normal People / Sally Rooney|"
        "One Hundred Years of Solitude / Gabriel García Márquez|"
        "Americanah / Chimamanda Ngozi Adichie|The Midnight Library / Matt Haig"
    )
)

STRINGS: dict[str, tuple[str, ...]] = {
    "city": _split(
        "Lisbon|Tokyo|Chicago|Berlin|Barcelona|Seattle|Melbourne|Toronto|Singapore|Cape Town|"
        "Buenos Aires|Amsterdam|Seoul|Dubai|Vienna|Mexico City|Istanbul|Copenhagen|Austin|"
        "Edinburgh|Kyoto|Prague|Vancouver|Nairobi|Reykjavik|Marrakesh|Osaka|Denver"
    ),
    "country": _split(
        "Portugal|Japan|Canada|Germany|Brazil|India|Australia|Kenya|Mexico|Norway|Thailand|"
        "Italy|South Africa|Vietnam|Argentina|Ireland|Morocco|New Zealand|Peru|Greece|Egypt"
    ),
    "airport": _split(
        "JFK|LHR|CDG|HND|SFO|LAX|FRA|AMS|SIN|DXB|LIS|MAD|BCN|ORD|SEA|YYZ|SYD|ICN|MUC|ZRH|BOS|MEX"
    ),
    "flight": _split("LH400|BA117|UA901|AF1380|DL44|EK202|NH7|QF12|TP1351|KL641|SQ26|AA100"),
    "station": _split(
        "Berlin Hauptbahnhof|Paris Gare de Lyon|London King's Cross|Milano Centrale|"
        "Amsterdam Centraal|Zürich HB|Madrid Atocha|Wien Hauptbahnhof|Brussels Midi|"
        "Frankfurt Hauptbahnhof|Lyon Part-Dieu|München Hauptbahnhof|Roma Termini"
    ),
    "address": _split(
        "221B Baker Street, London|1600 Amphitheatre Parkway, Mountain View|"
        "350 Fifth Avenue, New York|Rua Augusta 24, Lisbon|Friedrichstraße 43, Berlin|"
        "12 Rue de Rivoli, Paris|1 Harbour Street, Sydney|88 Queen Street West, Toronto|"
        "Shibuya Crossing, Tokyo|500 Pike Street, Seattle|Plaça de Catalunya 9, Barcelona|"
        "Union Station, Denver|Calle Florida 650, Buenos Aires|Nyhavn 17, Copenhagen"
    ),
    "street": _split(
        "742 Evergreen Terrace|15 Maple Avenue|Rua Garrett 80|Hauptstraße 12|"
        "27 Rue Oberkampf|400 Market Street|9 Kingsway|Calle Mayor 31"
    ),
    "postal": _split("10115|94103|75011|1100-148|SW1A 1AA|M5V 2T6|2000|160-0022|08002"),
    "road": _split(
        "I-95|Autobahn A9|M25 London Orbital|Highway 101|Ring Road|Avenida Paulista|"
        "Golden Gate Bridge|Lake Shore Drive|Ponte 25 de Abril|Brooklyn-Queens Expressway"
    ),
    "person": PEOPLE,
    "currency": _split("USD|EUR|GBP|JPY|CHF|CAD|AUD|SEK|INR|BRL|MXN|SGD|NOK|ZAR"),
    "ticker": _split("AAPL|MSFT|NVDA|TSLA|AMZN|GOOGL|META|NFLX|SAP|ASML|IBM|KO|DIS|V"),
    "product": _split(
        "Sony WH-1000XM5 headphones|Kindle Paperwhite|Nintendo Switch OLED|Dyson V15 vacuum|"
        "Instant Pot Duo 7-in-1|Apple AirPods Pro|Logitech MX Master 3S mouse|"
        "Patagonia Nano Puff jacket|Garmin Forerunner 265|LEGO Millennium Falcon|"
        "Nespresso Vertuo coffee machine|Samsung 55-inch QLED TV|Yeti Rambler tumbler"
    ),
    "product_keywords": _split(
        "wireless headphones|running shoes|espresso machine|mechanical keyboard|yoga mat|"
        "standing desk|kids bike helmet|noise cancelling earbuds|air fryer|hiking backpack"
    ),
    "song": tuple(SONG_ARTISTS),
    "artist": tuple(dict.fromkeys(SONG_ARTISTS.values())),
    "author": tuple(dict.fromkeys(BOOK_AUTHORS.values())),
    "book": tuple(BOOK_AUTHORS),
    "movie": _split(
        "Dune: Part Two|Oppenheimer|Spirited Away|The Grand Budapest Hotel|Inception|"
        "Everything Everywhere All at Once|Parasite|Past Lives|Mad Max: Fury Road|Arrival"
    ),
    "movie_keywords": _split(
        "space heist|time travel romance|haunted lighthouse|bank robbery in Madrid|"
        "robot uprising|coming of age summer|detective in Tokyo|mountain rescue"
    ),
    "playlist": _split(
        "Sunday Morning Coffee|Road Trip 2026|Deep Focus|Workout Bangers|Rainy Day Jazz|"
        "Summer Throwbacks|Dinner Party|Late Night Drive"
    ),
    "restaurant": _split(
        "Trattoria da Enzo|Sakura Sushi Bar|La Taquería|Bombay Spice|The Green Table|"
        "Le Petit Bistro|Thai Orchid|Burger Foundry|Casa Lisboa|Noodle House 88"
    ),
    "dish": _split(
        "margherita pizza|chicken tikka masala|pad thai|beef bourguignon|shakshuka|"
        "mushroom risotto|fish tacos|ramen|falafel wrap|lemon tart|vegetable lasagna"
    ),
    "food": _split(
        "oatmeal|banana|greek yogurt|grilled chicken|brown rice|avocado toast|salmon|"
        "apple|almonds|flour|olive oil|spinach salad|scrambled eggs|butter"
    ),
    "medication": _split(
        "ibuprofen|paracetamol|amoxicillin|cetirizine|omeprazole|metformin|loratadine|aspirin"
    ),
    "hotel": _split("Hotel Adlon|The Ritz|Park Hyatt|Ace Hotel|Pestana Palace|Hotel Sacher"),
    "channel": _split("#general|#design-team|#release-notes|#oncall|#marketing|#random"),
    "group": _split(
        "Family Chat|Ski Trip 2026|Book Club|Project Phoenix|Saturday Football|Flat 4B"
    ),
    "subject": _split(
        "Quarterly report draft|Dinner on Friday?|Invoice #4821|Updated travel plans|"
        "Welcome to the team|Contract renewal|Photos from the weekend|Agenda for Monday"
    ),
    "title": _split(
        "Team stand-up|Dentist appointment|Quarterly planning|Lunch with Sofia|Yoga class|"
        "Product demo|Parent-teacher meeting|1:1 with manager|Board review|Sprint retro"
    ),
    "message": _split(
        "Running 10 minutes late, start without me.|Can you send me the slides before noon?|"
        "Happy birthday! Hope you have a great day.|The build is green again, thanks all.|"
        "Dinner is at 8, bring a dessert if you can.|I'm out of office until Monday.|"
        "Reminder: the report is due tomorrow.|Landed safely, see you at the hotel."
    ),
    "reminder": _split(
        "Call the plumber|Renew passport|Pay the electricity bill|Pick up dry cleaning|"
        "Water the plants|Submit expense report|Book car service"
    ),
    "description": _split(
        "Vegetarian guest, no nuts please|Celebrating a birthday|Songs for long runs|"
        "Planning the summer trip|Weekly updates for the team|Window seat if possible"
    ),
    "reference": _split(
        "Rent May 2026|Invoice 4821|Dinner split|Birthday gift for Sofia|Utility bill March|"
        "Deposit for the flat|Concert tickets"
    ),
    "reason": _split(
        "Change of plans|Flight was cancelled|Family emergency|Found a better rate|"
        "Trip postponed to next month"
    ),
    "topic": _split(
        "climate science|personal finance|history of Rome|machine learning|marathon training|"
        "true crime|startup founders|space exploration|mindfulness|Japanese cooking"
    ),
    "inbox_keywords": _split(
        "invoice|flight confirmation|meeting notes|password reset|tax return|offer letter"
    ),
    "language": _split("English|Spanish|German|French|Japanese|Portuguese"),
    "language_code": _split("en|es|de|fr|ja|pt|it|nl|sv|ko|zh|ar|hi|pl"),
    "color": _split("red|blue|green|warm white|teal|amber"),
    "room": _split("living room|kitchen|bedroom|office|bathroom|hallway"),
    "handle": _split("@maria_s|@jcarter|@aiko.t|@lukasb|@priya_codes"),
    "generic": _split("alpha|harbour view|north wing|blue edition|standard plan|main hall"),
}

FIRST_DAY = dt.date(2026, 1, 1)
LAST_DAY = dt.date(2027, 12, 31)
_SPAN = (LAST_DAY - FIRST_DAY).days + 1


def _date(rng: random.Random) -> str:
    return (FIRST_DAY + dt.timedelta(days=rng.randrange(_SPAN))).isoformat()


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(6, 21):02d}:{rng.choice((0, 15, 30, 45)):02d}"


def _email(rng: random.Random) -> str:
    """``maria.silva@gmail.com`` style: ASCII letters only, whatever the person's name."""
    ascii_name = unicodedata.normalize("NFKD", rng.choice(PEOPLE)).encode("ascii", "ignore")
    first, last = (
        re.sub(r"[^a-z]", "", part) for part in ascii_name.decode().lower().split(" ", 1)
    )
    user = rng.choice((f"{first}.{last}", f"{first[0]}{last}", f"{first}_{last}"))
    return f"{user}@{rng.choice(EMAIL_DOMAINS)}"


def _phone(rng: random.Random) -> str:
    prefix, digits = rng.choice(PHONE_PREFIXES)
    return prefix + "".join(rng.choice("0123456789") for _ in range(digits))


GENERATED: dict[str, Callable[[random.Random], str]] = {  # labels drawn, not picked
    "date": _date,
    "clock": _clock,
    "datetime": lambda rng: f"{_date(rng)}T{_clock(rng)}:00Z",
    "time": lambda rng: f"{_clock(rng)}:00Z",
    "email": _email,
    "phone": _phone,
    "url": lambda rng: f"https://www.{rng.choice(EMAIL_DOMAINS)}/{rng.choice(SLUGS)}",
    "ipv4": lambda rng: f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
    "hostname": lambda rng: f"{rng.choice(('api', 'www', 'mail'))}.{rng.choice(EMAIL_DOMAINS)}",
    "uuid": lambda rng: "-".join(
        f"{rng.getrandbits(bits):0{bits // 4}x}" for bits in (32, 16, 16, 16, 48)
    ),
}
FORMATS = {"date": "date", "date-time": "datetime", "time": "time", "email": "email"}
FORMATS |= {"idn-email": "email", "uri": "url", "uri-reference": "url", "uuid": "uuid"}
FORMATS |= {"ipv4": "ipv4", "hostname": "hostname", "idn-hostname": "hostname"}
"""JSON Schema ``format`` → the generated label whose values satisfy it."""


RULES: tuple[tuple[frozenset[str], str], ...] = tuple(
    (frozenset(words.split()), label)
    for words, label in (
        ("email mail", "email"),
        ("phone mobile", "phone"),
        ("currency", "currency"),
        ("ticker symbol", "ticker"),
        ("airport iata", "airport"),
        ("flight", "flight"),
        ("country citizenship nationality", "country"),
        ("station", "station"),
        ("city town", "city"),
        ("street", "street"),
        ("postal zip postcode", "postal"),
        ("address location origin destination", "address"),
        ("road highway", "road"),
        ("artist band performer", "artist"),
        ("author writer", "author"),
        ("song track", "song"),
        ("playlist", "playlist"),
        ("movie film", "movie"),
        ("book audiobook", "book"),
        ("restaurant", "restaurant"),
        ("dish recipe", "dish"),
        ("food foods ingredient", "food"),
        ("medication drug medicine", "medication"),
        ("hotel", "hotel"),
        ("product", "product"),
        ("reference", "reference"),
        ("description note notes requests comment", "description"),
        ("group", "group"),
        ("channel", "channel"),
        ("subject", "subject"),
        ("reminder", "reminder"),
        ("title event meeting", "title"),
        ("message body text reply", "message"),
        ("reason", "reason"),
        ("query keywords search", "keywords"),
        ("topic", "topic"),
        ("time bedtime", "clock"),
        ("date day", "date"),
        ("url website link", "url"),
        ("username handle", "handle"),
        ("language", "language"),
        ("color colour", "color"),
        ("room", "room"),
        ("name contact member attendee patient passenger sender recipient", "person"),
    )
)
"""Name words → pool label; the first rule whose words meet the parameter's name wins."""

KEYWORD_RULES: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"product", "products", "store", "shop", "headphones"}), "product_keywords"),
    (frozenset({"movie", "movies", "plot", "film"}), "movie_keywords"),
    (frozenset({"email", "inbox", "subject", "body"}), "inbox_keywords"),
)
"""Description words → pool for free-text search queries."""

INT_DEFAULTS: dict[str, tuple[int, int]] = {
    "year": (2026, 2027),
    "limit": (5, 50),
    "results": (5, 50),
    "minutes": (15, 120),
    "count": (1, 10),
    "age": (18, 80),
    "quantity": (1, 5),
}
"""Integer ranges by name word, used only where the schema leaves a bound open."""

NUMBER_LABELS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"latitude", "lat"}), "latitude"),
    (frozenset({"longitude", "lon", "lng"}), "longitude"),
    (frozenset({"amount", "price", "principal", "payment", "budget", "fare", "cost"}), "money"),
    (frozenset({"rate", "percent", "interest"}), "percent"),
)
NUMBER_DEFAULTS: dict[str, tuple[float, float]] = {
    "latitude": (-90.0, 90.0),
    "longitude": (-180.0, 180.0),
    "money": (5.0, 5000.0),
    "percent": (0.5, 15.0),
    "generic": (0.0, 100.0),
}
