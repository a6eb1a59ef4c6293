# Kozyr bot: slim Python, a non-root user, the SQLite database on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite:////data/kozyr.sqlite3

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
COPY assets ./assets
RUN pip install --no-compile . \
    && useradd --system --uid 10001 --home-dir /app kozyr \
    && mkdir -p /data && chown kozyr /data

USER kozyr
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
