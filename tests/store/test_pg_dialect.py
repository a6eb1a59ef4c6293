"""The SQLite-flavoured SQL the league, retention and the inbox send becomes PostgreSQL by a closed list of
rewrites (bot/store/pg_dialect.py); each one here, and the league's and retention's own queries run on a
real PostgreSQL database in tests/store/test_bot_on_postgres.py."""

from __future__ import annotations

from bot.store.pg_dialect import translate


def test_placeholders_are_numbered():
    assert translate("SELECT * FROM x WHERE a = ? AND b = ?") == ("SELECT * FROM x WHERE a = $1 AND b = $2", False)


def test_insert_or_ignore_does_nothing_on_conflict():
    sql, _ = translate("INSERT OR IGNORE INTO league_excluded(chat_id, topic, player) VALUES (?, ?, ?)")
    assert sql == "INSERT INTO league_excluded(chat_id, topic, player) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"


def test_insert_or_replace_upserts_on_the_primary_key():
    sql, _ = translate("INSERT OR REPLACE INTO slots(slot, chat_id, message_id) VALUES (?, ?, ?)")
    assert sql.endswith("ON CONFLICT (slot) DO UPDATE SET chat_id = excluded.chat_id, "
                        "message_id = excluded.message_id")


def test_an_insert_into_a_table_with_an_id_returns_it():
    sql, returning = translate("INSERT INTO league_log(chat_id, at) VALUES (?, ?)")
    assert returning and sql.endswith("RETURNING id")
    assert translate("INSERT INTO league_seats(match_id) VALUES (?)")[1] is False


def test_json_functions_and_rowid():
    sql, _ = translate("UPDATE tables SET ui = json_set(ui, '$.slots_pruned', 1) WHERE id = ?")
    assert sql == "UPDATE tables SET ui = (ui::jsonb || jsonb_build_object('slots_pruned', 1))::text WHERE id = $1"
    sql, _ = translate("SELECT id FROM tables WHERE json_extract(ui, '$.slots_pruned') IS NULL")
    assert "(ui::jsonb ->> 'slots_pruned') IS NULL" in sql
    sql, _ = translate("DELETE FROM blobs WHERE rowid IN (SELECT rowid FROM blobs WHERE length(data) = 0)")
    assert sql == "DELETE FROM blobs WHERE key IN (SELECT key FROM blobs WHERE octet_length(data) = 0)"
