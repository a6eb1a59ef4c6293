-- Migration 7 (PostgreSQL): tournaments and vacations, as bot/store/migrations/0007_tournaments.sql
-- (epoch seconds as DOUBLE PRECISION, JSON as text).
CREATE TABLE tournaments (
    id           BIGSERIAL PRIMARY KEY,
    chat_id      BIGINT NOT NULL,
    thread_id    BIGINT NOT NULL DEFAULT 0,
    game         TEXT NOT NULL,
    options      TEXT NOT NULL DEFAULT '{}',
    format       TEXT NOT NULL,
    settings     TEXT NOT NULL DEFAULT '{}',
    status       TEXT NOT NULL,
    creator_id   BIGINT NOT NULL,
    seed         BIGINT NOT NULL,
    round        INTEGER NOT NULL DEFAULT 0,
    closes_at    DOUBLE PRECISION,
    created_at   DOUBLE PRECISION NOT NULL,
    finished_at  DOUBLE PRECISION
);
CREATE INDEX tournaments_chat ON tournaments(chat_id, thread_id, status);
CREATE TABLE tournament_entrants (
    tournament_id BIGINT NOT NULL,
    user_id       BIGINT NOT NULL,
    name          TEXT NOT NULL,
    rating        DOUBLE PRECISION NOT NULL DEFAULT 0,
    joined_round  INTEGER NOT NULL DEFAULT 0,
    withdrawn     INTEGER,
    PRIMARY KEY (tournament_id, user_id)
);
CREATE TABLE tournament_boards (
    tournament_id BIGINT NOT NULL,
    round         INTEGER NOT NULL,
    board         INTEGER NOT NULL,
    kind          TEXT NOT NULL DEFAULT 'table',
    players       TEXT NOT NULL,
    table_id      BIGINT,
    PRIMARY KEY (tournament_id, round, board)
);
CREATE INDEX tournament_boards_table ON tournament_boards(table_id) WHERE table_id IS NOT NULL;
CREATE TABLE tournament_results (
    tournament_id BIGINT NOT NULL,
    round         INTEGER NOT NULL,
    board         INTEGER NOT NULL,
    player        BIGINT NOT NULL,
    place         INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, round, player)
);
CREATE TABLE vacations (
    user_id      BIGINT NOT NULL,
    year         INTEGER NOT NULL,
    days         DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, year)
);
CREATE TABLE away (
    user_id      BIGINT PRIMARY KEY,
    since        DOUBLE PRECISION NOT NULL,
    until        DOUBLE PRECISION NOT NULL
);
-- A tournament's round opens several tables at once in one chat (or topic): they are marked with their
-- tournament and left out of "one open table per chat", which holds for the tables /new opens.
ALTER TABLE tables ADD COLUMN tournament_id BIGINT;
DROP INDEX one_open_table_per_chat;
CREATE UNIQUE INDEX one_open_table_per_chat ON tables(chat_id, thread_id)
    WHERE status IN ('lobby', 'playing') AND tournament_id IS NULL;
