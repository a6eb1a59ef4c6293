-- The league (bot/league): matches are the log, ratings are derived from them (python -m bot.league recompute).
-- Every statement is idempotent; the store runs it at start after schema.sql.
CREATE TABLE IF NOT EXISTS league_config (
    chat_id     INTEGER PRIMARY KEY,
    season_kind TEXT NOT NULL DEFAULT 'month',  -- month | quarter | none | days
    season_days INTEGER NOT NULL DEFAULT 30,    -- length of a 'days' season
    anchor      REAL NOT NULL DEFAULT 0,        -- day one of 'days' seasons (unix time, UTC midnight)
    per_topic   INTEGER NOT NULL DEFAULT 0      -- a league per forum topic instead of one per chat
);
CREATE TABLE IF NOT EXISTS league_matches (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- the order ratings are computed in
    table_id    INTEGER NOT NULL UNIQUE,
    chat_id     INTEGER NOT NULL,
    topic       INTEGER NOT NULL DEFAULT 0,     -- forum topic when the chat keeps a league per topic, else 0
    season      TEXT NOT NULL,                  -- the season the match ended in (bot/league/seasons.py)
    game        TEXT NOT NULL,
    finished_at REAL NOT NULL,
    options     TEXT NOT NULL DEFAULT '{}',
    teams       TEXT NOT NULL,                  -- JSON: the seats rated together, e.g. [[0,2],[1,3]]
    deal_teams  TEXT NOT NULL DEFAULT '[]',     -- JSON: per deal, partnerships that change every deal (Variety's
                                                -- auction partners, Calabrasella's soloist against two); not rated
    record      TEXT NOT NULL DEFAULT '{}',     -- the game record (engine/record.py)
    removed     INTEGER NOT NULL DEFAULT 0,     -- an admin removed it (league_log says who and why)
    removed_reason TEXT
);
CREATE INDEX IF NOT EXISTS league_matches_scope ON league_matches(chat_id, topic, season, id);
CREATE TABLE IF NOT EXISTS league_seats (
    match_id    INTEGER NOT NULL REFERENCES league_matches(id),
    seat        INTEGER NOT NULL,
    player      INTEGER NOT NULL,               -- the Telegram user id; AI seats: a negative id per AI level
    name        TEXT NOT NULL,
    team        INTEGER NOT NULL,               -- index into league_matches.teams
    score       INTEGER NOT NULL,
    place       INTEGER NOT NULL,               -- 1 = best; ties share a place
    mu          REAL,                           -- the game rating after this match (NULL: not rated)
    sigma       REAL,
    mu_all      REAL,                           -- the all-games rating after this match
    sigma_all   REAL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS league_seats_player ON league_seats(player, match_id);
CREATE TABLE IF NOT EXISTS league_ratings (
    chat_id     INTEGER NOT NULL,
    topic       INTEGER NOT NULL,
    season      TEXT NOT NULL,
    game        TEXT NOT NULL,                  -- a game id, or '*' for all games together
    player      INTEGER NOT NULL,
    name        TEXT NOT NULL,
    mu          REAL NOT NULL,
    sigma       REAL NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    shown       REAL NOT NULL,                  -- mu - k*sigma, what /top sorts by
    PRIMARY KEY (chat_id, topic, season, game, player)
);
CREATE INDEX IF NOT EXISTS league_ratings_top ON league_ratings(chat_id, topic, season, game, shown DESC);
CREATE TABLE IF NOT EXISTS league_excluded (
    chat_id     INTEGER NOT NULL,
    topic       INTEGER NOT NULL,
    player      INTEGER NOT NULL,
    PRIMARY KEY (chat_id, topic, player)
);
CREATE TABLE IF NOT EXISTS league_seasons (    -- seasons archived (their final table was posted)
    chat_id     INTEGER NOT NULL,
    topic       INTEGER NOT NULL,
    season      TEXT NOT NULL,
    closed_at   REAL NOT NULL,
    PRIMARY KEY (chat_id, topic, season)
);
CREATE TABLE IF NOT EXISTS league_log (        -- what admins did to the league, and why
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,
    topic       INTEGER NOT NULL,
    at          REAL NOT NULL,
    admin_id    INTEGER NOT NULL,
    action      TEXT NOT NULL,                  -- exclude | include | remove | season | topics | recompute
    target      TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT ''
);
