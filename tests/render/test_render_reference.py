"""The pictures look as they did: each one is compared pixel by pixel with a reference rendering.

The references (tests/render/reference/*.png) were drawn by the plain drawing path that the cached
parts replaced (commit 6d89526: every shape and text drawn in place), each stored with a 256-colour
palette of its own. Quantizing leaves small differences; a changed digit, card, colour or position
leaves far more pixels far off than the tolerance. ``python tests/render/test_render_reference.py``
rewrites the references from the code in the tree, for a change of layout made on purpose.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.render import examples as ex  # noqa: E402
from bot.render.layout import Layout  # noqa: E402
from bot.render.standings import layout_standings  # noqa: E402
from bot.render.table import layout_table  # noqa: E402
from games.carnival.grid import layout_grid  # noqa: E402

REFERENCE = Path(__file__).with_name("reference")
PLAIN = ["Ann", "Борис", "Chen", "Dora", "Екатерина", "Frank", "Gus"]
PICTURES: dict[str, Callable[[], Layout]] = {
    "table3_joker": lambda: layout_table(ex.table_example(3), PLAIN[:3]),
    "table7": lambda: layout_table(ex.table_example(7), PLAIN),
    "table6_carnival_emoji": lambda: layout_table(ex.table_example(6, carnival=True), ex.NAMES_6, pair_kind=ex.PAIR),
    "table4_last_trick": lambda: layout_table(ex.last_trick_example(4), ex.NAMES_6[:4]),
    "grid6_full_emoji": lambda: layout_grid(ex.sheet_example(6, 24), ex.NAMES_6, None),
    "grid3_current_deal": lambda: layout_grid(ex.sheet_example(3, 5), ex.NAMES_6[:3], current_deal=6),
    "standings6": lambda: layout_standings(PLAIN[:6], ex.sheet_example(6, 24)["totals"]),
}
FAR = 40  # grey levels: quantizing moves no pixel this far
MAX_FAR = 8  # pixels; one changed digit moves more than that (test_a_changed_digit_is_seen)


def far_pixels(image: Image.Image, reference: Image.Image) -> tuple[int, float]:
    """How many pixels differ by more than ``FAR`` grey levels, and the mean difference per channel."""
    diff = ImageChops.difference(image.convert("RGB"), reference.convert("RGB"))
    return sum(diff.convert("L").histogram()[FAR + 1:]), sum(ImageStat.Stat(diff).mean) / 3


@pytest.mark.parametrize("name", PICTURES)
def test_picture_matches_its_reference(name: str) -> None:
    """The drawing, and the PNG the group gets (our palette adds its own small differences)."""
    layout = PICTURES[name]()
    reference = Image.open(REFERENCE / f"{name}.png")
    assert layout.image.size == reference.size
    far, mean = far_pixels(layout.image, reference)
    assert far <= MAX_FAR and mean < 0.5, (name, far, mean)
    far, mean = far_pixels(Image.open(io.BytesIO(layout.png())), reference)
    assert far <= MAX_FAR and mean < 1.5, (name, far, mean)


def test_a_changed_digit_is_seen() -> None:
    """The tolerance is tight enough: one seat's score 10 -> 16 (one digit of 960x700) fails the comparison."""
    view = ex.table_example(3)
    assert view["scores"][1] == 10
    view["scores"][1] = 16
    far, _ = far_pixels(layout_table(view, PLAIN[:3]).image, Image.open(REFERENCE / "table3_joker.png"))
    assert far > MAX_FAR


def write_references() -> None:
    REFERENCE.mkdir(exist_ok=True)
    for name, make in PICTURES.items():
        image = make().image.convert("RGB")
        image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE, kmeans=5).save(
            REFERENCE / f"{name}.png", optimize=True)


if __name__ == "__main__":
    write_references()
