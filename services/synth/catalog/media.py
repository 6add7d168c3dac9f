"""Media: music playback, playlists, lyrics, movies, showtimes, podcasts, concerts."""

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
)

TOOLS = (
    fn(
        "play_song",
        "Play a song by an artist on one of the user's speakers.",
        {"song_title": text("Title of the song"), "artist": text("Performing artist or band")},
        {
            "volume": integer("Playback volume in percent", 0, 100, default=50),
            "device": enum(
                "Speaker to play on",
                ["living_room", "kitchen", "bedroom", "phone"],
                default="phone",
            ),
        },
    ),
    fn(
        "create_playlist",
        "Create a music playlist from a list of songs.",
        {
            "playlist_name": text("Name of the new playlist"),
            "songs": array(
                "Songs to add, in order",
                obj(
                    "One song",
                    {"song_title": text("Song title"), "artist": text("Song artist")},
                ),
                max_items=10,
            ),
        },
        {
            "public": boolean("Make the playlist visible to everyone", default=False),
            "description": text("Description shown under the playlist name"),
        },
    ),
    fn(
        "search_movies",
        "Search movies by keywords, genre, release year and critic rating.",
        {"query": text("Keywords from the title or plot")},
        {
            "genre": enum(
                "Movie genre",
                ["action", "comedy", "drama", "horror", "sci_fi", "animation", "documentary"],
            ),
            "release_year": integer("Year the movie came out", 1950, 2027),
            "min_rating": number("Lowest critic rating out of 10", 0, 10),
        },
    ),
    fn(
        "get_movie_showtimes",
        "Get cinema showtimes for a movie in a city on a day.",
        {
            "movie_title": text("Title of the movie"),
            "city": text("City of the cinema"),
            "date": date("Day of the screening"),
        },
        {"screen_format": enum("Screen format", ["2d", "3d", "imax"], default="2d")},
    ),
    fn(
        "recommend_podcasts",
        "Recommend podcast episodes about a topic.",
        {"topic": text("Subject the user wants to hear about")},
        {
            "max_episode_minutes": integer("Longest acceptable episode in minutes", 5, 240),
            "language": enum(
                "Episode language", ["english", "spanish", "german", "french"], default="english"
            ),
        },
    ),
    fn(
        "get_song_lyrics",
        "Get the lyrics of a song by an artist.",
        {"song_title": text("Title of the song"), "artist": text("Performing artist or band")},
    ),
    fn(
        "buy_concert_tickets",
        "Buy tickets for an artist's concert in a city on a date.",
        {
            "artist": text("Artist or band performing"),
            "city": text("City of the concert"),
            "event_date": date("Day of the concert"),
            "tickets": integer("Number of tickets", 1, 8),
        },
        {
            "seating": enum(
                "Seating area", ["standing", "floor", "balcony", "vip"], default="standing"
            )
        },
    ),
    fn(
        "find_audiobook",
        "Find an audiobook edition of a book.",
        {"book_title": text("Title of the book")},
        {
            "author": text("Author of the book"),
            "max_length_hours": number("Longest acceptable runtime in hours", 1, 60),
        },
    ),
)
