# One image for every service; EXTRAS picks what it installs (verifier needs no torch).
FROM python:3.11-slim
ARG EXTRAS=all
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 REFINERY_DATA_DIR=/data
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY services services
COPY clients clients
COPY benchmarks benchmarks
RUN if [ "$EXTRAS" != "verifier" ]; then pip install torch==2.13.0; fi \
    && pip install ".[${EXTRAS}]"
COPY examples examples
VOLUME /data
