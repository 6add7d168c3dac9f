# One image for every service; EXTRAS picks what it installs (verifier needs no torch).
FROM python:3.11-slim
ARG EXTRAS=all
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 REFINERY_DATA_DIR=/data
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocol protocol
COPY services services
COPY clients clients
COPY benchmarks benchmarks
# bfcl-eval ships BFCL's data and AST checker; its own dependencies are every vendor SDK
# its leaderboard calls, none of which the checker needs, hence --no-deps.
ARG BFCL_EVAL=2026.3.23
RUN case "$EXTRAS" in verifier|synth) ;; *) pip install torch==2.13.0 ;; esac \
    && pip install ".[${EXTRAS}]" \
    && case "$EXTRAS" in synth|all) pip install --no-deps "bfcl-eval==${BFCL_EVAL}" ;; esac
COPY examples examples
VOLUME /data
