-- Time controls and stored deadlines (one row per table that has a clock), and each
-- user's time zone and quiet hours. The scheduler reads only rows whose ``due`` has come
-- (clocks_due), never every table.
CREATE TABLE clocks (
    table_id     INTEGER PRIMARY KEY,
    per_move     REAL NOT NULL,               -- seconds a move may take; 0: no clock
    bank         REAL NOT NULL DEFAULT 0,     -- each seat's reserve at the start (Board Game Arena style)
    strikes      INTEGER NOT NULL DEFAULT 3,  -- missed deadlines before the seat is handed over; 0: never
    absent       TEXT NOT NULL DEFAULT 'ai',  -- after the strikes: 'ai' for the rest of the game, or 'replace'
    banks        TEXT NOT NULL DEFAULT '{}',  -- seat -> seconds of bank left
    missed       TEXT NOT NULL DEFAULT '{}',  -- seat -> deadlines missed
    turn_version INTEGER,                     -- the table version the running turn began at
    turn_seat    INTEGER,
    turn_start   REAL,                        -- epoch seconds
    deadline     REAL,                        -- epoch seconds the move is due; NULL: no human turn running
    due          REAL,                        -- the next thing to do (a reminder or the deadline)
    stage        INTEGER NOT NULL DEFAULT 0,  -- 0: nothing sent this turn, 1: half-time reminder, 2: last reminder
    paused       INTEGER NOT NULL DEFAULT 0,  -- paused by a vote: the clock does not run
    time_left    REAL,                        -- seconds the turn had left when paused
    votes        TEXT NOT NULL DEFAULT '[]',  -- user ids voting to pause (or, when paused, to resume)
    extended     INTEGER                      -- turn_version the creator extended (once per turn)
);
CREATE INDEX clocks_due ON clocks(due) WHERE due IS NOT NULL;
CREATE TABLE user_prefs (
    user_id      INTEGER PRIMARY KEY,
    tz           TEXT NOT NULL DEFAULT 'UTC', -- an IANA zone name or a fixed offset like +03:00
    quiet_from   INTEGER,                     -- minutes after local midnight; NULL: no quiet hours
    quiet_to     INTEGER
);
