-- Migration 6 (PostgreSQL): time controls, stored deadlines and user time preferences, as
-- bot/store/migrations/0006_clocks.sql (epoch seconds as DOUBLE PRECISION, JSON as text, flags as 0/1).
CREATE TABLE clocks (
    table_id     BIGINT PRIMARY KEY,
    per_move     DOUBLE PRECISION NOT NULL,
    bank         DOUBLE PRECISION NOT NULL DEFAULT 0,
    strikes      INTEGER NOT NULL DEFAULT 3,
    absent       TEXT NOT NULL DEFAULT 'ai',
    banks        TEXT NOT NULL DEFAULT '{}',
    missed       TEXT NOT NULL DEFAULT '{}',
    turn_version BIGINT,
    turn_seat    INTEGER,
    turn_start   DOUBLE PRECISION,
    deadline     DOUBLE PRECISION,
    due          DOUBLE PRECISION,
    stage        INTEGER NOT NULL DEFAULT 0,
    paused       INTEGER NOT NULL DEFAULT 0,
    time_left    DOUBLE PRECISION,
    votes        TEXT NOT NULL DEFAULT '[]',
    extended     BIGINT
);
CREATE INDEX clocks_due ON clocks(due) WHERE due IS NOT NULL;
CREATE TABLE user_prefs (
    user_id      BIGINT PRIMARY KEY,
    tz           TEXT NOT NULL DEFAULT 'UTC',
    quiet_from   INTEGER,
    quiet_to     INTEGER
);
