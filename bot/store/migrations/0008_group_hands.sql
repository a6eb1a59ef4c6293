-- Hands in the group: where a chat's players see their hands (an admins' setting) and whether the
-- bot is an administrator there (learned from Telegram; an administrator may put a hand in front of
-- a player without their press).
ALTER TABLE chats ADD COLUMN hands TEXT NOT NULL DEFAULT 'group';  -- 'group' (in the group and DMs) | 'dm'
ALTER TABLE chats ADD COLUMN bot_admin INTEGER NOT NULL DEFAULT 0;
