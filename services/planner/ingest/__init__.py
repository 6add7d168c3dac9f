"""From footage, music and a brief to a Task.1: media analysis and the brief compiler.

Pure domain modules (no FastAPI): :mod:`.probe` (header, orientation), :mod:`.decode`
(small frames from ffmpeg), :mod:`.shots` (PySceneDetect cuts and dissolves),
:mod:`.pixels` (shaky, dark, slowmo, quality), :mod:`.captions` (sidecar, vision model,
file name), :mod:`.video` (:func:`analyze_video`, all of it for one file), :mod:`.paths`
(which files a request covers), :mod:`.music` (tempo, beats, downbeats, mood) and
:mod:`.brief` (the brief compiler: rules and llm). Media analysis needs the ``ingest``
extra (scenedetect, opencv, librosa); the brief compiler needs nothing more.
"""
