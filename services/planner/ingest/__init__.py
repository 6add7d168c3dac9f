"""Media analysis for the planner: footage and music folders → Task.1 clips and tracks.

Pure domain modules (no FastAPI): :mod:`.probe` (header, orientation), :mod:`.decode`
(small frames from ffmpeg), :mod:`.shots` (PySceneDetect cuts and dissolves),
:mod:`.pixels` (shaky, dark, slowmo, quality), :mod:`.captions` (sidecar, vision model,
file name), :mod:`.video` (:func:`analyze_video`, all of it for one file), :mod:`.paths`
(which files a request covers) and :mod:`.music` (tempo, beats, downbeats, mood). Needs
the ``ingest`` extra (scenedetect, opencv, librosa).
"""
