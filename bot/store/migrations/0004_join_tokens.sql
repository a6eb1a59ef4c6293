-- The secret in a table's Join link (t.me/<bot>?start=j<token>); a table id alone is guessable.
CREATE TABLE join_tokens (
    token       TEXT PRIMARY KEY,
    table_id    INTEGER NOT NULL UNIQUE
);
