"""PNG bytes of a palette image, written here rather than by Pillow's PNG plugin.

Deflating the rows is most of a picture's cost (~2.3 ms of a grid's ~3.5). Pillow deflates with zlib's
memLevel 9, whose 64K-entry hash table zlib slides every 32 KB of input: on our ~0.7-0.9 MB of rows, and
even on a blank image, that sliding is most of level 2's time. memLevel 7 (16K entries) deflated the same
rows ~15-20% faster, to within 0.5% of the bytes (bench/render.py, encoding table). Writing the four chunks
here also skips the plugin's per-save work. The pixels and the palette are the image's: it decodes to the
same indices.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

LEVEL = 2  # zlib level: see layout.to_png for the levels measured
MEM_LEVEL = 7  # zlib's default is 8, Pillow's 9
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def rows(pal: Image.Image) -> bytes:
    """The image's rows as PNG filters them: each row led by its filter type, 0 (none), as Pillow
    writes palette images. Pasted one pixel in on a zeroed image one pixel wider: one copy in C."""
    width, height = pal.size
    framed = Image.new("P", (width + 1, height), 0)
    framed.im.paste(pal.im, (1, 0, width + 1, height))
    return framed.tobytes()


def encode(pal: Image.Image, level: int = LEVEL, mem_level: int = MEM_LEVEL) -> bytes:
    """A colour-type-3 (palette), 8-bit PNG of ``pal``: IHDR, PLTE, one IDAT, IEND (the zlib settings
    are parameters for bench/render.py's comparison)."""
    if pal.mode != "P":
        raise ValueError(f"a palette image is needed, not {pal.mode}")
    width, height = pal.size
    palette = bytes(pal.getpalette() or [0, 0, 0])[: 3 * 256]
    squeeze = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS, mem_level)
    data = squeeze.compress(rows(pal)) + squeeze.flush()
    return b"".join((
        SIGNATURE,
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
        _chunk(b"PLTE", palette),
        _chunk(b"IDAT", data),
        _chunk(b"IEND", b""),
    ))
