"""Clip pools and music for the brief-compiler benchmark, as an asset manager would tag them.

Each pool is a shoot: 10–30 clips with a caption, a handful of tags, a duration and an
orientation, and one or two music tracks with a bpm (beats are laid on the bpm's grid from
``first_beat_s``; every fourth beat is a downbeat). :func:`pool` turns one into the
``clips`` and ``music`` lists of a Task.1.
"""

from __future__ import annotations

from typing import Any

P, L = "portrait", "landscape"

# (caption, tags, duration_s, orientation, quality)
_Clip = tuple[str, str, float, str, float]
# (id, duration_s, bpm, first_beat_s, mood)
_Track = tuple[str, float, float, float, str]

POOLS: dict[str, dict[str, Any]] = {
    "wedding": {
        "clips": [
            ("the old barn venue from the drone at golden hour", "venue drone wide", 9.0, L, 0.9),
            ("string lights over the empty tables", "venue decor", 7.5, L, 0.7),
            ("bride getting her hair done, mirror reflection", "bride prep", 8.0, L, 0.8),
            ("groom fixing his tie with the best man", "groom prep", 6.5, L, 0.7),
            ("bridesmaids laughing in matching dresses", "bridesmaids prep", 7.0, L, 0.6),
            ("bride walks down the aisle with her father", "aisle bride ceremony", 10.0, L, 0.9),
            ("groom reading his vows, close-up", "vows groom closeup ceremony", 12.0, L, 0.9),
            ("bride reading her vows, tearful", "vows bride closeup ceremony", 11.0, L, 0.9),
            ("exchanging the rings, hands only", "rings closeup ceremony", 6.0, L, 0.9),
            ("first kiss as husband and wife", "kiss ceremony", 5.0, L, 1.0),
            ("guests throwing confetti outside", "confetti guests", 6.0, L, 0.8),
            ("toast by the maid of honour", "toast speech guests", 14.0, L, 0.6),
            ("cutting the three-tier cake", "cake", 7.0, L, 0.7),
            ("first dance under the lights, slow motion", "dance slowmo couple", 12.0, L, 0.9),
            ("guests dancing, handheld", "dance guests party", 9.0, L, 0.6),
            ("rings on the bouquet, macro", "rings detail flowers", 5.0, L, 0.8),
            ("couple walking through the field at sunset", "couple sunset", 10.0, L, 1.0),
            ("sparkler send-off at night", "sparklers exit night", 8.0, L, 0.8),
        ],
        "music": [("m-wed-1", 180.0, 96, 0.4, "romantic"), ("m-wed-2", 150.0, 124, 0.2, "upbeat")],
    },
    "surf": {
        "clips": [
            ("surfer paddles out past the break", "surfer paddle ocean", 8.0, P, 0.7),
            ("surfer drops into a big wave, wide", "surfer wave wide", 6.0, P, 0.9),
            ("barrel ride from the water, slow motion", "surfer wave slowmo", 5.0, P, 1.0),
            ("waves crashing on the reef from the drone", "wave drone ocean", 9.0, P, 0.8),
            ("empty beach at dawn", "beach dawn", 7.0, P, 0.7),
            ("waxing the board in the car park", "board prep", 6.0, P, 0.5),
            ("friends running into the water", "friends beach", 5.5, P, 0.7),
            ("sunset over the ocean, surfer silhouette", "sunset ocean surfer", 8.0, P, 1.0),
            ("camper van on the coast road", "van road", 7.0, P, 0.6),
            ("fish tacos at the beach shack", "food beach", 6.0, P, 0.6),
            ("wipeout close-up, spray everywhere", "wipeout closeup surfer", 4.0, P, 0.8),
            ("campfire on the sand at night", "campfire night beach", 9.0, P, 0.7),
            ("surfboards on the roof rack, landscape", "board van", 6.0, L, 0.5),
        ],
        "music": [("m-surf", 120.0, 118, 0.3, "upbeat")],
    },
    "cooking": {
        "clips": [
            ("chopping onions on a wooden board", "chopping onion prep closeup", 7.0, L, 0.8),
            ("garlic sizzling in olive oil, overhead", "pan garlic overhead", 6.0, L, 0.8),
            ("cracking eggs into a bowl", "eggs prep", 5.0, L, 0.6),
            ("kneading the pasta dough", "dough hands", 9.0, L, 0.7),
            ("rolling pasta through the machine", "pasta machine", 8.0, L, 0.8),
            ("fresh tagliatelle dusted with flour", "pasta closeup", 5.0, L, 0.9),
            ("tomato sauce bubbling, slow motion", "sauce slowmo", 6.0, L, 0.8),
            ("chef tastes the sauce and nods", "chef tasting", 5.0, L, 0.7),
            ("grating parmesan over the plate", "cheese plating closeup", 5.0, L, 0.9),
            ("the finished plate on the table, wide", "plating final dish", 7.0, L, 1.0),
            ("basil leaves torn by hand", "herbs basil closeup", 4.0, L, 0.7),
            ("kitchen logo on the apron", "branding logo", 3.0, L, 0.5),
            ("washing up in the sink", "dishes sink", 6.0, L, 0.3),
            ("pouring red wine into a glass", "wine drink", 5.0, L, 0.7),
            ("family eating at the table, laughing", "family eating table", 10.0, L, 0.8),
        ],
        "music": [("m-cook", 160.0, 100, 0.5, "warm")],
    },
    "basketball": {
        "clips": [
            ("players warming up, layup lines", "warmup players", 8.0, L, 0.6),
            ("tip-off from the rafters camera", "tipoff wide", 5.0, L, 0.8),
            ("crossover and a step-back three", "shot three dribble", 6.0, L, 0.9),
            ("fast break dunk, slow motion", "dunk slowmo", 5.0, L, 1.0),
            ("blocked shot at the rim", "block defense", 4.0, L, 0.8),
            ("coach shouting from the sideline", "coach sideline", 6.0, L, 0.6),
            ("crowd on their feet cheering", "crowd fans", 7.0, L, 0.8),
            ("the scoreboard in the last minute", "scoreboard", 4.0, L, 0.6),
            ("buzzer beater from half court", "buzzer shot", 6.0, L, 1.0),
            ("team piles on the court celebrating", "celebration team", 8.0, L, 0.9),
            ("locker room speech", "lockerroom coach", 12.0, L, 0.7),
            ("mascot dancing in the stands", "mascot crowd", 5.0, L, 0.5),
            ("free throw, close-up on the shooter", "freethrow closeup", 5.0, L, 0.7),
            ("trophy lifted, confetti", "trophy celebration", 7.0, L, 1.0),
            ("fans outside the arena before the game", "fans arena", 8.0, L, 0.6),
            ("bench players jumping", "bench celebration", 4.0, L, 0.7),
        ],
        "music": [("m-hoops-1", 140.0, 128, 0.25, "hype"), ("m-hoops-2", 120.0, 90, 0.6, "epic")],
    },
    "realestate": {
        "clips": [
            ("front of the house from the street", "exterior facade", 8.0, L, 0.8),
            ("drone pull-back over the roof and garden", "drone exterior aerial", 10.0, L, 0.9),
            ("open-plan kitchen with the island", "kitchen interior", 8.0, L, 0.9),
            ("living room with the fireplace", "livingroom interior fireplace", 9.0, L, 0.8),
            ("master bedroom, morning light", "bedroom interior", 8.0, L, 0.8),
            ("ensuite bathroom with freestanding tub", "bathroom interior", 7.0, L, 0.7),
            ("second bedroom set up as an office", "office bedroom interior", 6.0, L, 0.6),
            ("back garden with the patio", "garden patio exterior", 8.0, L, 0.8),
            ("pool at dusk with the lights on", "pool dusk exterior", 7.0, L, 1.0),
            ("agent talking to camera in the hallway", "agent talking", 15.0, L, 0.5),
            ("the neighbourhood park down the road", "neighbourhood park", 7.0, L, 0.6),
            ("garage with two cars", "garage", 5.0, L, 0.4),
            ("view from the balcony over the valley", "balcony view", 8.0, L, 0.9),
            ("floor plan graphic", "floorplan graphic", 5.0, L, 0.5),
        ],
        "music": [("m-home", 200.0, 84, 0.7, "calm")],
    },
    "product": {
        "clips": [
            ("the headphones rotating on a turntable", "product hero turntable", 8.0, P, 0.9),
            ("unboxing, lid lifting off", "unboxing box", 6.0, P, 0.8),
            ("macro of the ear cushion stitching", "detail macro", 4.0, P, 0.8),
            ("woman wearing them on the train", "lifestyle commute", 7.0, P, 0.7),
            ("runner with the headphones in the park", "lifestyle running", 6.0, P, 0.8),
            ("tapping the touch control", "feature touch closeup", 4.0, P, 0.7),
            ("app screen showing battery life", "app screen", 5.0, P, 0.6),
            ("folding them into the case", "case feature", 5.0, P, 0.7),
            ("logo on the headband, macro", "logo detail", 3.0, P, 0.8),
            ("the three colours side by side", "colors product", 5.0, P, 0.8),
            ("packshot on white with the price", "packshot endcard", 5.0, P, 0.9),
            ("competitor headphones on a desk", "competitor", 5.0, P, 0.4),
            ("studio lights setup behind the scenes", "bts studio", 6.0, L, 0.3),
        ],
        "music": [("m-prod", 90.0, 110, 0.1, "sleek")],
    },
    "concert": {
        "clips": [
            ("crowd queueing outside the venue", "queue crowd outside", 8.0, L, 0.6),
            ("stage lights sweeping over the crowd", "lights crowd", 6.0, L, 0.8),
            ("singer at the mic, close-up", "singer closeup", 6.0, L, 0.9),
            ("guitarist solo, low angle", "guitarist solo", 7.0, L, 0.9),
            ("drummer from behind the kit", "drummer", 6.0, L, 0.8),
            ("crowd singing along, hands up", "crowd singalong", 7.0, L, 0.9),
            ("confetti cannons over the pit", "confetti crowd", 5.0, L, 1.0),
            ("backstage, band in a huddle", "backstage band", 8.0, L, 0.7),
            ("pyro burst behind the band, slow motion", "pyro slowmo", 4.0, L, 1.0),
            ("wide of the stage from the back", "stage wide", 8.0, L, 0.8),
            ("bassist and singer share a mic", "bassist singer", 6.0, L, 0.7),
            ("merch stand with t-shirts", "merch", 5.0, L, 0.4),
            ("phone lights like stars in the crowd", "crowd lights phones", 7.0, L, 0.8),
            ("band bowing at the end", "bow band finale", 6.0, L, 0.9),
            ("crowd surfer carried over the front", "crowdsurf crowd", 5.0, L, 0.8),
        ],
        "music": [("m-live", 240.0, 132, 0.2, "loud")],
    },
    "city": {
        "clips": [
            ("skyline at sunrise from the bridge", "skyline sunrise", 9.0, P, 0.9),
            ("timelapse of traffic at night", "traffic timelapse night", 8.0, P, 0.8),
            ("subway doors closing", "subway transit", 5.0, P, 0.6),
            ("street food vendor flipping noodles", "food street vendor", 6.0, P, 0.8),
            ("crosswalk from above, people crossing", "crosswalk people aerial", 7.0, P, 0.8),
            ("neon signs in the rain", "neon night rain", 6.0, P, 0.9),
            ("rooftop bar at golden hour", "rooftop bar", 7.0, P, 0.7),
            ("cyclist weaving through traffic", "cyclist street", 5.0, P, 0.7),
            ("market stalls with fruit", "market food", 6.0, P, 0.7),
            ("old temple between towers", "temple landmark", 8.0, P, 0.8),
            ("tram passing the old town", "tram transit", 6.0, P, 0.6),
            ("skyline at night from the rooftop", "skyline night", 9.0, P, 1.0),
            ("busker playing saxophone", "busker music street", 7.0, P, 0.6),
            ("park with joggers in the morning", "park joggers", 6.0, P, 0.5),
            ("construction cranes", "construction", 5.0, P, 0.3),
            ("wide landscape shot of the harbour", "harbour water", 8.0, L, 0.7),
        ],
        "music": [("m-city-1", 180.0, 105, 0.3, "chill"), ("m-city-2", 150.0, 128, 0.1, "upbeat")],
    },
    "nature": {
        "clips": [
            ("misty pine forest at dawn", "forest mist dawn", 10.0, L, 0.9),
            ("the mountains above the clouds, drone", "mountain drone clouds", 12.0, L, 1.0),
            ("waterfall, slow shutter", "waterfall water", 8.0, L, 0.9),
            ("deer grazing in a meadow", "deer wildlife meadow", 7.0, L, 0.8),
            ("eagle circling overhead", "eagle bird wildlife", 6.0, L, 0.8),
            ("hiker on the ridge line", "hiker ridge", 8.0, L, 0.7),
            ("wildflowers in the wind, close-up", "flowers closeup", 5.0, L, 0.8),
            ("lake reflecting the peaks", "lake mountain reflection", 9.0, L, 1.0),
            ("stream over mossy rocks", "stream water moss", 7.0, L, 0.7),
            ("storm clouds rolling in, timelapse", "storm clouds timelapse", 8.0, L, 0.8),
            ("campsite tent at night under stars", "stars night camp", 10.0, L, 0.9),
            ("sunset behind the mountains", "sunset mountain", 9.0, L, 1.0),
            ("hiker's boots on the trail", "boots trail hiker closeup", 4.0, L, 0.6),
            ("fox trotting across the snow", "fox wildlife snow", 6.0, L, 0.9),
            ("car park at the trailhead", "carpark", 5.0, L, 0.2),
        ],
        "music": [("m-nature", 210.0, 72, 1.0, "ambient")],
    },
    "kidsparty": {
        "clips": [
            ("balloons being blown up", "balloons decor", 6.0, P, 0.6),
            ("kids arriving in costumes", "kids arrival costume", 7.0, P, 0.7),
            ("magician pulls a rabbit from a hat", "magician show", 8.0, P, 0.9),
            ("kids laughing at the magician", "kids laughing audience", 5.0, P, 0.9),
            ("bouncy castle chaos", "bouncycastle kids", 7.0, P, 0.8),
            ("face painting a tiger", "facepaint kids closeup", 6.0, P, 0.8),
            ("birthday cake with six candles", "cake candles", 5.0, P, 0.9),
            ("blowing out the candles", "candles cake birthday", 4.0, P, 1.0),
            ("opening presents on the rug", "presents gifts", 9.0, P, 0.7),
            ("piñata swing, slow motion", "pinata slowmo", 5.0, P, 0.9),
            ("parents chatting in the kitchen", "parents adults", 8.0, P, 0.3),
            ("party bags lined up", "partybags decor", 4.0, P, 0.5),
            ("kids dancing to music", "dancing kids", 7.0, P, 0.7),
            ("birthday girl hugging grandma", "hug family birthday", 5.0, P, 0.9),
            ("mess of wrapping paper after", "mess aftermath", 5.0, P, 0.4),
        ],
        "music": [("m-party", 100.0, 120, 0.5, "happy")],
    },
    "travel": {
        "clips": [
            ("plane wing above the clouds", "plane flight clouds", 6.0, L, 0.7),
            ("arrivals hall, suitcase rolling", "airport arrival", 5.0, L, 0.5),
            ("tuk-tuk ride through the old town", "tuktuk street", 7.0, L, 0.8),
            ("temple steps at sunrise", "temple sunrise", 8.0, L, 0.9),
            ("floating market boats", "market boats food", 8.0, L, 0.9),
            ("pad thai in a street stall", "food streetfood", 5.0, L, 0.8),
            ("snorkelling over the reef", "snorkel underwater reef", 7.0, L, 0.9),
            ("hammock on the beach", "beach hammock", 6.0, L, 0.7),
            ("longtail boat to the island", "boat island", 8.0, L, 0.8),
            ("elephant sanctuary bathing", "elephant wildlife", 9.0, L, 0.8),
            ("night market lanterns", "market night lanterns", 6.0, L, 0.9),
            ("hotel room tour", "hotel room", 10.0, L, 0.4),
            ("jungle waterfall swim", "waterfall swim jungle", 8.0, L, 0.9),
            ("sunset from the viewpoint, selfie", "sunset viewpoint selfie", 6.0, L, 0.8),
            ("packing the backpack", "packing backpack", 5.0, L, 0.5),
            ("cooking class with locals", "cooking class food", 9.0, L, 0.7),
            ("scooter along the coast", "scooter coast road", 7.0, L, 0.8),
            ("fire show on the beach at night", "fireshow night beach", 6.0, L, 0.9),
        ],
        "music": [("m-trip-1", 200.0, 112, 0.3, "upbeat"), ("m-trip-2", 180.0, 80, 0.8, "chill")],
    },
    "fitness": {
        "clips": [
            ("alarm at 5am, hand hits snooze", "alarm morning", 4.0, P, 0.5),
            ("tying running shoes", "shoes closeup prep", 4.0, P, 0.7),
            ("running up the stadium stairs", "stairs running", 6.0, P, 0.8),
            ("deadlift, side view", "deadlift lifting gym", 7.0, P, 0.9),
            ("battle ropes, slow motion", "ropes slowmo gym", 5.0, P, 0.9),
            ("boxing pads with the coach", "boxing coach", 8.0, P, 0.8),
            ("sweat dripping, close-up", "sweat closeup", 3.0, P, 0.8),
            ("protein shake in the blender", "shake nutrition", 4.0, P, 0.5),
            ("stretching on the mat", "stretch cooldown", 7.0, P, 0.6),
            ("pull-ups on the bar", "pullups gym", 5.0, P, 0.8),
            ("sprint on the track at sunrise", "sprint running sunrise", 6.0, P, 0.9),
            ("gym selfie in the mirror", "selfie mirror", 4.0, P, 0.3),
            ("finish line, arms raised", "finish celebration running", 5.0, P, 1.0),
            ("kettlebell swings", "kettlebell gym", 6.0, P, 0.7),
        ],
        "music": [("m-fit", 120.0, 140, 0.2, "intense")],
    },
}


def _grid(duration_s: float, bpm: float, first: float) -> tuple[list[float], list[float]]:
    period = 60.0 / bpm
    beats: list[float] = []
    t = first
    while t < duration_s:
        beats.append(round(t, 3))
        t += period
    return beats, beats[::4]


def pool(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``clips`` and ``music`` lists of pool ``name``, in Task.1 form."""
    spec = POOLS[name]
    clips = [
        {
            "id": f"{name[:4]}-{index:02d}",
            "uri": f"media/{name}/{index:02d}.mp4",
            "duration_s": duration,
            "caption": caption,
            "tags": tags.split(),
            "orientation": orientation,
            "quality": quality,
        }
        for index, (caption, tags, duration, orientation, quality) in enumerate(spec["clips"], 1)
    ]
    music = []
    for track_id, duration, bpm, first, mood in spec["music"]:
        beats, downbeats = _grid(duration, bpm, first)
        music.append(
            {
                "id": track_id,
                "uri": f"media/music/{track_id}.wav",
                "duration_s": duration,
                "bpm": bpm,
                "beats_s": beats,
                "downbeats_s": downbeats,
                "mood": mood,
            }
        )
    return clips, music
