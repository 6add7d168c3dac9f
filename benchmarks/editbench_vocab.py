"""EditBench vocabulary: themes (subjects and their actions, places, ambience, music moods),
shot types, defects and styles. Pure data; every tag is one lower-case word, and every place
phrase contains its tag so captions and tags agree."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    name: str
    subjects: dict[str, tuple[str, ...]]  # subject tag -> actions
    places: dict[str, str]  # place tag -> phrase used in captions
    ambience: tuple[str, ...]
    moods: tuple[str, ...]


def _theme(name: str, subjects: str, places: str, ambience: str, moods: str) -> Theme:
    """Parse ``"subject: action; action | …"`` and ``"tag: phrase | …"`` into a :class:`Theme`."""
    subject_map = {}
    for entry in subjects.split("|"):
        subject, actions = entry.split(":")
        subject_map[subject.strip()] = tuple(a.strip() for a in actions.split(";"))
    place_map = {}
    for entry in places.split("|"):
        tag, phrase = entry.split(":")
        place_map[tag.strip()] = phrase.strip()
    return Theme(name, subject_map, place_map, tuple(ambience.split()), tuple(moods.split()))


THEMES: tuple[Theme, ...] = (
    _theme(
        "surf trip",
        "surfer: rides a wave; paddles out; waxes a board; wipes out | dog: runs along the sand;"
        " shakes off water | friends: laugh around a fire; carry boards | waves: crash on the"
        " rocks; roll in | van: is parked by the road; rolls along the coast",
        "beach: on the beach | reef: over the reef | pier: by the pier | dunes: among the dunes"
        " | lineup: in the lineup",
        "sunset ocean sunrise spray golden",
        "upbeat chill sunny driving",
    ),
    _theme(
        "city night",
        "taxi: speeds past; waits at a light | pedestrians: cross the street; hurry home |"
        " skyline: glows; flickers in the haze | couple: shares an umbrella; walks arm in arm |"
        " train: pulls into the station; rushes by",
        "downtown: downtown | alley: in a narrow alley | rooftop: seen from a rooftop |"
        " bridge: on the bridge | subway: in the subway",
        "neon rain reflections lights fog",
        "dark electronic moody driving",
    ),
    _theme(
        "mountain hike",
        "hiker: climbs a ridge; crosses a stream; rests on a rock | goat: grazes on a ledge |"
        " eagle: circles above | tent: glows at dusk; flaps in the wind | waterfall: tumbles"
        " into a pool",
        "summit: at the summit | trail: on the trail | lake: by the lake | forest: in the"
        " forest | valley: over the valley",
        "fog snow pine clouds sunrise",
        "epic calm inspiring folk",
    ),
    _theme(
        "cooking",
        "chef: chops onions; stirs the pot; plates a dish; tastes the sauce | pan: sizzles;"
        " flips a pancake | dough: is kneaded; rises in a bowl | tomatoes: are sliced; simmer"
        " | knife: slices herbs",
        "kitchen: in the kitchen | counter: on the counter | stove: on the stove | market:"
        " at the market | table: on the table",
        "steam herbs spices flour garlic",
        "playful warm jazzy upbeat",
    ),
    _theme(
        "wedding",
        "bride: walks down the aisle; laughs with friends | groom: waits at the altar; adjusts"
        " his tie | rings: are exchanged | guests: throw petals; raise a toast | cake: is cut",
        "chapel: in the chapel | garden: in the garden | ballroom: in the ballroom | terrace:"
        " on the terrace | aisle: along the aisle",
        "flowers candles confetti lace champagne",
        "romantic tender joyful classical",
    ),
    _theme(
        "product launch",
        "speaker: presents on stage; answers questions | phone: spins on a turntable; lights"
        " up | audience: applauds; takes photos | engineer: assembles a prototype; solders a"
        " board | logo: appears on screen",
        "stage: on the stage | studio: in the studio | lab: in the lab | lobby: in the lobby |"
        " showroom: in the showroom",
        "spotlight screen minimal metal glow",
        "corporate driving electronic inspiring",
    ),
    _theme(
        "road trip",
        "car: drives along the coast; kicks up dust | driver: adjusts the mirror; waves out"
        " the window | map: is unfolded on the hood | passengers: sing along; sleep in the back"
        " | camper: is parked for the night",
        "desert: in the desert | canyon: through the canyon | highway: on the highway | motel:"
        " at the motel | coast: along the coast",
        "dust sunset asphalt cactus horizon",
        "driving indie upbeat nostalgic",
    ),
    _theme(
        "concert",
        "guitarist: plays a solo; tunes up | drummer: hits the cymbals; counts in | singer:"
        " sings into the mic; waves to the crowd | crowd: jumps; sings along | lights: sweep"
        " the stage",
        "arena: in the arena | backstage: backstage | pit: in the pit | festival: at the"
        " festival | mainstage: on the mainstage",
        "smoke lasers confetti strobe amps",
        "rock energetic anthemic electronic",
    ),
)

#: (tag, caption phrase). Tags stay one word so selectors, coverage and captions agree.
SHOT_TYPES: tuple[tuple[str, str], ...] = (
    ("wide", "wide shot"),
    ("closeup", "closeup"),
    ("aerial", "aerial view"),
    ("tracking", "tracking shot"),
    ("medium", "medium shot"),
    ("handheld", "handheld"),
    ("slowmo", "slowmo"),
    ("pov", "pov shot"),
)
#: Defects that decoy clips carry: (tag, caption phrase).
DEFECTS: tuple[tuple[str, str], ...] = (
    ("shaky", "shaky"),
    ("blurry", "blurry"),
    ("watermark", "watermark"),
    ("overexposed", "overexposed"),
)
STYLES: tuple[str, ...] = (
    "energetic",
    "upbeat",
    "dynamic",
    "calm",
    "cinematic",
    "relaxed",
    "documentary",
)
#: aspect ratio -> (clip orientation, what the brief calls the edit)
ASPECTS: dict[str, tuple[str, str]] = {
    "9:16": ("portrait", "vertical reel"),
    "16:9": ("landscape", "film"),
    "1:1": ("square", "square post"),
}
#: Every tag any theme can produce: the pool of candidates for tags a task's pool lacks.
ALL_TAGS: tuple[str, ...] = tuple(
    sorted(
        {tag for theme in THEMES for tag in (*theme.subjects, *theme.places, *theme.ambience)}
        | {tag for tag, _ in SHOT_TYPES}
        | {tag for tag, _ in DEFECTS}
    )
)
