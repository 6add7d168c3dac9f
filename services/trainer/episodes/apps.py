"""The content of the synthetic phone: apps, settings, people, places, search catalogues.

Plain data, kept apart from the flows so that adding an app or a phrasing touches no logic.
"""

from __future__ import annotations

LAUNCHER_APPS = (
    "Phone", "Messages", "Chrome", "Camera", "Gmail", "Maps", "Photos", "Calendar",
    "Clock", "Settings", "Contacts", "Files", "Music", "Video", "Shop", "Recipes",
    "Podcasts", "Weather", "Notes", "Calculator", "Mail", "Pulse", "Drive", "News",
)  # fmt: skip

# Settings: section -> (summary, toggles, sub-pages {name: toggles}, plain distractor items)
SETTINGS: dict[str, tuple[str, tuple[str, ...], dict[str, tuple[str, ...]], tuple[str, ...]]] = {
    "Network & internet": (
        "Wi-Fi, mobile, data usage, hotspot",
        ("Wi-Fi", "Airplane mode", "Mobile data"),
        {"Hotspot & tethering": ("Wi-Fi hotspot", "USB tethering")},
        ("SIMs", "Data Saver", "Private DNS"),
    ),
    "Connected devices": (
        "Bluetooth, pairing",
        ("Bluetooth",),
        {"Connection preferences": ("NFC", "Nearby Share", "Android Auto")},
        ("Pair new device", "Previously connected devices"),
    ),
    "Display": (
        "Dark theme, font size, brightness",
        ("Dark theme", "Adaptive brightness", "Auto-rotate screen"),
        {"Screen timeout": ("Screen attention",)},
        ("Brightness level", "Font size", "Colors"),
    ),
    "Sound & vibration": (
        "Volume, haptics, Do Not Disturb",
        ("Do Not Disturb", "Vibrate for calls"),
        {"Live Caption": ("Live Caption",)},
        ("Media volume", "Ring volume", "Phone ringtone"),
    ),
    "Battery": (
        "100% - Full",
        ("Battery Saver", "Battery percentage"),
        {"Adaptive preferences": ("Adaptive Battery", "Adaptive charging")},
        ("Battery usage",),
    ),
    "Location": (
        "On - 3 apps have access",
        ("Use location",),
        {"Location services": ("Wi-Fi scanning", "Bluetooth scanning")},
        ("App location permissions", "Recent access"),
    ),
    "Notifications": (
        "Notification history, conversations",
        ("Notification dot on app icon",),
        {"Lock screen": ("Sensitive notifications",)},
        ("App notifications", "Notification history"),
    ),
    "Accessibility": (
        "Display, interaction, audio",
        ("Color inversion", "Extra dim"),
        {"Magnification": ("Magnification shortcut",)},
        ("TalkBack", "Select to Speak"),
    ),
}
SETTINGS_FILLER = (
    ("Apps", "Assistant, recent apps, default apps"),
    ("Storage", "42% used - 74 GB free"),
    ("Security & privacy", "App security, device lock"),
    ("Passwords & accounts", "Saved passwords, autofill"),
    ("Digital Wellbeing", "Screen time, app timers"),
    ("System", "Languages, gestures, time, backup"),
    ("About phone", "Pixel 8"),
    ("Wallpaper & style", "Colors, themed icons"),
)

FIRST_NAMES = (
    "Ada", "Grace", "Alan", "Maya", "Omar", "Lena", "Kenji", "Priya", "Lucas", "Sofia",
    "Noah", "Amara", "Tomas", "Ingrid", "Ravi", "Chloe", "Mateo", "Yuki", "Zara", "Felix",
)  # fmt: skip
LAST_NAMES = (
    "Lovelace", "Hopper", "Turing", "Okafor", "Haddad", "Novak", "Tanaka", "Sharma",
    "Moreau", "Rossi", "Berg", "Mensah", "Silva", "Larsen", "Iyer", "Dubois", "Kowalski",
)  # fmt: skip
COMPANIES = ("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Studio", "Wayne Foods")
DOMAINS = ("example.com", "mail.test", "inbox.example.org")
STREETS = (
    "Maple Avenue", "Harbour Road", "King Street", "Elm Court", "Station Lane",
    "Orchard Way", "Mill Street", "Park Terrace", "Bridge Road", "Cedar Drive",
)  # fmt: skip
CITIES = ("Springfield", "Riverton", "Lakeside", "Fairview", "Greenville", "Bristol", "Oakland")

# Search apps: app -> (search hint, detail actions, catalogue of (title, subtitle))
SEARCH_APPS: dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "Music": (
        "Search songs, artists, albums",
        ("Play", "Shuffle", "Add to library"),
        (
            ("Blue in Green", "Miles Davis · 5:37"),
            ("Feeling Good", "Nina Simone · 2:53"),
            ("Clair de Lune", "Claude Debussy · 5:10"),
            ("Bohemian Rhapsody", "Queen · 5:55"),
            ("Redbone", "Childish Gambino · 5:27"),
            ("Lo-fi Study Beats", "Chillhop · 1:02:11"),
            ("Take Five", "Dave Brubeck · 5:24"),
            ("Dreams", "Fleetwood Mac · 4:14"),
        ),
    ),
    "Video": (
        "Search videos",
        ("Subscribe", "Save", "Share"),
        (
            ("How to make sourdough bread", "Baking Basics · 1.2M views"),
            ("Beginner yoga in 20 minutes", "Calm Studio · 860K views"),
            ("Learn Python in one hour", "Code Camp · 3.4M views"),
            ("Tiny house tour", "Living Small · 540K views"),
            ("Fix a flat bike tyre", "Ride Well · 210K views"),
            ("Watercolor sunset tutorial", "Paint Daily · 95K views"),
        ),
    ),
    "Maps": (
        "Search here",
        ("Directions", "Save", "Call"),
        (
            ("Central Library", "Library · 0.8 km"),
            ("Blue Bottle Coffee", "Cafe · 1.2 km"),
            ("City Hospital", "Hospital · 2.5 km"),
            ("Riverside Park", "Park · 0.4 km"),
            ("Union Station", "Train station · 3.1 km"),
            ("Golden Wok", "Restaurant · 1.7 km"),
        ),
    ),
    "Shop": (
        "Search products",
        ("Add to cart", "Buy now", "Add to wish list"),
        (
            ("Wireless earbuds", "$49.99 · 4.5 stars"),
            ("USB-C charger 30W", "$19.99"),
            ("Running shoes", "$89.00 · 4.2 stars"),
            ("Stainless water bottle", "$24.50"),
            ("Yoga mat", "$29.99 · 4.7 stars"),
            ("Desk lamp", "$34.00 · 4.1 stars"),
        ),
    ),
    "Recipes": (
        "Search recipes",
        ("Save recipe", "Start cooking", "Share"),
        (
            ("Chicken tikka masala", "45 min · Indian"),
            ("Vegan chili", "1 h · Mexican"),
            ("Banana bread", "1 h 10 min · Baking"),
            ("Pad thai", "30 min · Thai"),
            ("Greek salad", "15 min · Mediterranean"),
            ("Mushroom risotto", "40 min · Italian"),
        ),
    ),
    "Podcasts": (
        "Search podcasts",
        ("Follow", "Play latest episode", "Download"),
        (
            ("The Daily", "The New York Times"),
            ("Radiolab", "WNYC Studios"),
            ("Hidden Brain", "Shankar Vedantam"),
            ("Science Vs", "Spotify Studios"),
            ("99% Invisible", "Roman Mars"),
            ("Planet Money", "NPR"),
        ),
    ),
}
SEARCH_EXTRA = ("live", "remix", "guide", "near me", "review", "best of", "easy", "part 2")

# Navigation apps: app -> (menu button, {section: {subsection: leaf items}})
NAV_APPS: dict[str, tuple[str, dict[str, dict[str, tuple[str, ...]]]]] = {
    "Files": (
        "Open navigation drawer",
        {
            "Downloads": {
                "Documents": ("report.pdf", "budget.xlsx", "notes.txt", "contract.docx"),
                "Images": ("beach.jpg", "receipt.png", "scan_04.jpg"),
            },
            "Internal storage": {
                "Music": ("demo.mp3", "voice_memo.m4a"),
                "DCIM": ("IMG_2041.jpg", "IMG_2042.jpg", "VID_0007.mp4"),
            },
            "Recent": {"This week": ("slides.pptx", "invoice_332.pdf", "photo.heic")},
        },
    ),
    "Mail": (
        "Open navigation drawer",
        {
            "Labels": {
                "Receipts": ("Your order has shipped", "Invoice #4821", "Payment received"),
                "Travel": ("Boarding pass", "Hotel confirmation", "Trip itinerary"),
            },
            "Folders": {
                "Starred": ("Quarterly plan", "Lunch on Friday?"),
                "Drafts": ("Re: project update", "Thank you note"),
            },
        },
    ),
    "Drive": (
        "Open navigation drawer",
        {
            "My Drive": {
                "Work": ("Roadmap 2025", "Team offsite", "Hiring plan"),
                "Personal": ("Tax return", "Recipes", "Packing list"),
            },
            "Shared with me": {"Family": ("Holiday photos", "Wedding budget")},
        },
    ),
    "Notes": (
        "More options",
        {
            "Folders": {
                "Ideas": ("App idea", "Gift ideas", "Blog topics"),
                "Lists": ("Groceries", "Books to read", "Movies"),
            },
            "Archive": {"2023": ("Old budget", "Moving checklist")},
        },
    ),
}
