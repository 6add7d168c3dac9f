# One image for every service; EXTRAS picks what it installs (verifier needs no torch).
FROM python:3.11-slim
ARG EXTRAS=all
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 REFINERY_DATA_DIR=/data
WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY protocol protocol
COPY services services
COPY clients clients
COPY benchmarks benchmarks
# bfcl-eval ships BFCL's data and AST checker; its own dependencies are every vendor SDK
# its leaderboard calls, none of which the checker needs, hence --no-deps.
ARG BFCL_EVAL=2026.3.23
RUN case "$EXTRAS" in verifier|synth) ;; *) pip install -c constraints.txt torch==2.13.0 ;; esac \
    && pip install -c constraints.txt ".[${EXTRAS}]" \
    && case "$EXTRAS" in synth|all) pip install -c constraints.txt --no-deps "bfcl-eval==${BFCL_EVAL}" ;; esac
COPY examples examples
VOLUME /data
