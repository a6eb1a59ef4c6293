"""Uploaded files: unique file_ids, PhotoSize lists, reuse counting, downloads."""

from __future__ import annotations

import io
import itertools
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, UnidentifiedImageError

from .errors import bad
from .spec import Upload

PHOTO_MAX_BYTES = 10 * 1024 * 1024
DOCUMENT_MAX_BYTES = 50 * 1024 * 1024
WRONG_FILE_ID = "wrong file identifier/HTTP URL specified"


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    kind: str  # photo / document
    data: bytes
    file_path: str
    width: int = 0
    height: int = 0
    file_name: str | None = None
    mime_type: str | None = None
    group: list[dict[str, Any]] = field(default_factory=list)  # photo: all sizes of this upload

    def to_api(self) -> dict[str, Any]:
        if self.kind == "photo":
            return {"file_id": self.file_id, "file_unique_id": self.file_unique_id, "width": self.width,
                    "height": self.height, "file_size": len(self.data)}
        out: dict[str, Any] = {"file_id": self.file_id, "file_unique_id": self.file_unique_id,
                               "file_size": len(self.data)}
        if self.file_name:
            out["file_name"] = self.file_name
        if self.mime_type:
            out["mime_type"] = self.mime_type
        return out


class FileStore:
    def __init__(self) -> None:
        self.by_id: dict[str, StoredFile] = {}
        self.by_path: dict[str, StoredFile] = {}
        self.uploads = 0  # files received as bytes
        self.reuses = 0  # files referenced by a file_id we returned earlier
        self.upload_log: list[tuple[str, str]] = []  # (kind, filename)
        self._seq = itertools.count(1)

    def _new(self, kind: str, data: bytes, ext: str, **kw: Any) -> StoredFile:
        n = next(self._seq)
        f = StoredFile(file_id=f"FAKE{kind[:3].upper()}{n:06d}AgADfake", file_unique_id=f"U{kind[:1]}{n:06d}",
                       kind=kind, data=data, file_path=f"{kind}s/file_{n}.{ext}", **kw)
        self.by_id[f.file_id] = f
        self.by_path[f.file_path] = f
        return f

    def resolve(self, value: Upload | str, kind: str) -> list[dict[str, Any]] | dict[str, Any]:
        """An upload or a previously returned file_id -> PhotoSize list (photo) or Document dict."""
        if isinstance(value, Upload):
            result = self._upload_photo(value) if kind == "photo" else self._upload_document(value)
            self.uploads += 1  # counted only when stored (rejected bytes do not count)
            self.upload_log.append((kind, value.filename))
            return result
        if value.startswith(("http://", "https://")):
            raise bad("failed to get HTTP URL content (the fake server has no internet; upload bytes instead)")
        f = self.by_id.get(value)
        if f is None:
            raise bad(WRONG_FILE_ID)
        if f.kind != kind:
            raise bad(f"can't use file of type {f.kind.capitalize()} as {kind.capitalize()}")
        self.reuses += 1
        return list(f.group) if kind == "photo" else f.to_api()

    def _upload_photo(self, up: Upload) -> list[dict[str, Any]]:
        if not up.data:
            raise bad("file must be non-empty")
        if len(up.data) > PHOTO_MAX_BYTES:
            raise bad("PHOTO_SAVE_FILE_INVALID")
        try:
            with Image.open(io.BytesIO(up.data)) as img:
                img.load()
                w, h = img.size
        except (UnidentifiedImageError, OSError, ValueError):
            raise bad("IMAGE_PROCESS_FAILED") from None
        if w + h > 10000 or max(w, h) > 20 * min(w, h):
            raise bad("PHOTO_INVALID_DIMENSIONS")
        sizes = []
        for side in (90, 320, 800, 1280):
            if max(w, h) > side:
                k = side / max(w, h)
                sizes.append((max(1, round(w * k)), max(1, round(h * k))))
        scale = min(1.0, 2560 / max(w, h))
        sizes.append((max(1, round(w * scale)), max(1, round(h * scale))))
        group: list[dict[str, Any]] = []
        for sw, sh in sizes:
            f = self._new("photo", up.data, "jpg", width=sw, height=sh)
            group.append(f.to_api())
        for item in group:
            self.by_id[item["file_id"]].group = group
        return list(group)

    def _upload_document(self, up: Upload) -> dict[str, Any]:
        if not up.data:
            raise bad("file must be non-empty")
        if len(up.data) > DOCUMENT_MAX_BYTES:
            raise bad("file is too big")
        ext = up.filename.rsplit(".", 1)[-1] if "." in up.filename else "bin"
        mime = up.content_type if up.content_type != "application/octet-stream" else None
        f = self._new("document", up.data, ext, file_name=up.filename, mime_type=mime)
        f.group = [f.to_api()]
        return f.to_api()
