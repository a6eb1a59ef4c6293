# Kozyr bot. Build: docker build -t kozyr .   Run: see docs/operations.md ("Docker").
# The base is pinned to a patch release; pin its digest too (FROM python:3.11.11-slim-bookworm@sha256:...)
# when you need byte-for-byte rebuilds.
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

# 1. Build the wheel from the source (the source never reaches the final image).
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
COPY games ./games
COPY assets ./assets
RUN pip wheel --no-deps --wheel-dir /wheels .

# 2. The runtime: tini as PID 1, a non-root user, dependencies in their own layer, then the wheel.
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite:////data/kozyr.sqlite3 \
    WEBHOOK_HOST=0.0.0.0
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin kozyr \
    && mkdir /data && chown kozyr:kozyr /data
# Dependencies first: this layer is rebuilt only when pyproject.toml changes, not on every code change.
# EXTRAS=postgres adds that optional extra's packages (docker-compose.yml: PostgreSQL and Redis).
ARG EXTRAS=""
COPY pyproject.toml /tmp/pyproject.toml
RUN EXTRAS="$EXTRAS" python -c "import os, tomllib; p = tomllib.load(open('/tmp/pyproject.toml', 'rb'))['project']; \
print('\n'.join(p['dependencies'] + [d for e in filter(None, os.environ['EXTRAS'].split(',')) for d in p['optional-dependencies'][e]]))" \
        > /tmp/requirements.txt \
    && pip install --no-compile -r /tmp/requirements.txt \
    && rm /tmp/pyproject.toml /tmp/requirements.txt
COPY --from=build /wheels /wheels
RUN pip install --no-deps --no-compile /wheels/*.whl && rm -rf /wheels

USER kozyr
WORKDIR /data
VOLUME ["/data"]
# Webhook mode only (WEBHOOK_URL set): Telegram's updates at /webhook and the health check at /healthz.
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["python", "-m", "bot"]
