-- Tournaments (a fixed field, rounds, tables, results) and players' vacations. Everything a round's
-- pairing needs is here (the seed, the entrants, who met whom, the results), so a restart pairs the
-- same round again. Settings and players lists are JSON text.
CREATE TABLE tournaments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id      INTEGER NOT NULL,
    thread_id    INTEGER NOT NULL DEFAULT 0,
    game         TEXT NOT NULL,
    options      TEXT NOT NULL DEFAULT '{}',  -- the game's house rules
    format       TEXT NOT NULL,               -- swiss | robin | knockout
    settings     TEXT NOT NULL DEFAULT '{}',  -- table size, rounds, points, bye, clock, withdrawal...
    status       TEXT NOT NULL,               -- registration | running | finished | cancelled
    creator_id   INTEGER NOT NULL,
    seed         INTEGER NOT NULL,
    round        INTEGER NOT NULL DEFAULT 0,  -- rounds started
    closes_at    REAL,                        -- the end of registration (epoch seconds)
    created_at   REAL NOT NULL,
    finished_at  REAL
);
CREATE INDEX tournaments_chat ON tournaments(chat_id, thread_id, status);
CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    name          TEXT NOT NULL,
    rating        REAL NOT NULL DEFAULT 0,
    joined_round  INTEGER NOT NULL DEFAULT 0, -- the first round they can be paired in
    withdrawn     INTEGER,                    -- the round from which they are out; NULL: in
    PRIMARY KEY (tournament_id, user_id)
);
CREATE TABLE tournament_boards (
    tournament_id INTEGER NOT NULL,
    round         INTEGER NOT NULL,
    board         INTEGER NOT NULL,           -- 0, 1, 2 ... the tables of the round; byes have kind 'bye'
    kind          TEXT NOT NULL DEFAULT 'table',
    players       TEXT NOT NULL,              -- user ids, as seated
    table_id      INTEGER,                    -- the game table (NULL for a bye, or before it is opened)
    PRIMARY KEY (tournament_id, round, board)
);
CREATE INDEX tournament_boards_table ON tournament_boards(table_id) WHERE table_id IS NOT NULL;
CREATE TABLE tournament_results (
    tournament_id INTEGER NOT NULL,
    round         INTEGER NOT NULL,
    board         INTEGER NOT NULL,
    player        INTEGER NOT NULL,
    place         INTEGER NOT NULL,           -- 1 the best; shared places are equal
    PRIMARY KEY (tournament_id, round, player)
);
CREATE TABLE vacations (
    user_id      INTEGER NOT NULL,
    year         INTEGER NOT NULL,
    days         REAL NOT NULL DEFAULT 0,    -- days taken this year
    PRIMARY KEY (user_id, year)
);
CREATE TABLE away (
    user_id      INTEGER PRIMARY KEY,
    since        REAL NOT NULL,
    until        REAL NOT NULL
);
-- A tournament's round opens several tables at once in one chat (or topic): they are marked with their
-- tournament and left out of "one open table per chat", which holds for the tables /new opens.
ALTER TABLE tables ADD COLUMN tournament_id INTEGER;
DROP INDEX one_open_table_per_chat;
CREATE UNIQUE INDEX one_open_table_per_chat ON tables(chat_id, thread_id)
    WHERE status IN ('lobby', 'playing') AND tournament_id IS NULL;
