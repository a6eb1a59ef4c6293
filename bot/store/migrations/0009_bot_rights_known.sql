-- Whether chats.bot_admin was learned from Telegram (a my_chat_member update, or asked once): until then
-- /new asks getChatMember; after, the bot's membership updates keep it current and nothing is asked.
ALTER TABLE chats ADD COLUMN bot_rights_known INTEGER NOT NULL DEFAULT 0;
-- Paid broadcasts (allow_paid_broadcast, 0.1 Star a message): messages paid per clock hour, so a restart
-- does not give the hour's Stars budget back (bot/services/paid.py).
CREATE TABLE paid_spend (
    hour     INTEGER PRIMARY KEY,  -- Unix time // 3600
    messages INTEGER NOT NULL
);
