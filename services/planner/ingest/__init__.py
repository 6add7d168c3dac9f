"""Media analysis for the planner: footage and music folders → Task.1 clips and tracks.

Pure domain modules (no FastAPI): :mod:`.probe` (header, orientation), :mod:`.shots`
(PySceneDetect cuts and dissolves), :mod:`.pixels` (shaky, dark, slowmo, quality),
:mod:`.captions` (sidecar, vision model, file name) and :mod:`.video` (:func:`analyze_video`,
all of it for one file). Needs the ``ingest`` extra (scenedetect, opencv, librosa).
"""
