"""The group sees pictures: the table edited in place, the score grid per deal, the standings."""

from __future__ import annotations

import random

import pytest
from PIL import Image

from tests.bot.harness import find, play_out, settle
from tests.fakebot.ratelimit import RateLimits
from tests.fakebot.server import FakeTelegram


def _png_size(fake: FakeTelegram, file_id: str) -> tuple[int, int]:
    import io

    return Image.open(io.BytesIO(fake.files.by_id[file_id].data)).size


@pytest.mark.fake(limits=RateLimits.loose())
@pytest.mark.bot(KOZYR_PICTURES=True)
async def test_a_game_with_pictures_and_file_reuse(fake, app, db, open_table):
    alice = fake.user(first_name="Алиса 🃏", language_code="ru")
    group = fake.group("Карты", members=[alice], creator=alice)
    await open_table("carnival", [alice], ais=2, options="quarters=1", group=group)
    await play_out(fake, app, group, [alice], random.Random(7))
    await settle(fake, app)

    photos = [m for m in group.messages() if m.kind == "photo"]
    tables = [m for m in photos if "Карнавал" in m.content and "сдача" in m.content]
    grids = [m for m in photos if m not in tables and "🏁" not in m.content]
    assert len(tables) == 3, "one live table picture per deal"
    order = [("grid" if m in grids else "table") for m in photos if m in grids or m in tables]
    assert order == ["table", "grid", "table", "grid", "table", "grid"], "a deal's sheet before the next deal"
    assert sum(m.edit_count for m in tables) > 0, "table pictures are edited in place"
    assert fake.calls_of("editMessageMedia"), "edits go through editMessageMedia"
    assert len(grids) == 3, "a score grid after each of the 3 deals"
    standings = find(group, "🏁")
    assert standings is not None and standings.kind == "photo"
    assert "Алиса 🃏" in standings.content
    width, height = _png_size(fake, tables[0].photo_file_id)
    assert width >= 600 and height >= 400
    assert all(len(m.content) <= 1024 for m in photos)

    uploads = fake.stats["uploads"]
    await alice.send(group, "/score")
    await settle(fake, app)
    await alice.send(group, "/score")
    await settle(fake, app)
    assert fake.stats["file_reuses"] >= 2, "an unchanged grid is sent by file_id, not uploaded again"
    assert fake.stats["uploads"] == uploads, "the final grid was uploaded already"
