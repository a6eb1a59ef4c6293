"""Validation of Bot API requests against the machine-readable spec in ``spec/api.json``.

Why: the fake must reject what Telegram rejects (missing/mistyped parameters, malformed nested
objects), so a bot that passes here does not explode against the real server.  Values arriving as
form fields are strings (aiogram JSON-encodes everything that is not a string), so coercion follows
Telegram's own leniency: ``"123"`` is an Integer, ``"true"`` a Boolean, a JSON text an object.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ApiError

SPEC_PATH = Path(__file__).with_name("spec") / "api.json"
# What later Bot API versions added, derived from aiogram's models by tools/derive_botapi_spec.py.
ADDITIONS_PATH = SPEC_PATH.with_name("additions.json")

# Parameters Telegram still accepts although they left the docs (aiogram 3 may send them).
LEGACY_PARAMS = {"reply_to_message_id", "allow_sending_without_reply", "disable_web_page_preview"}

_INT_RE = re.compile(r"^-?\d+$")


@dataclass
class Upload:
    """A file part of a multipart request."""

    field: str
    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


class Spec:
    """The parsed api.json plus discriminator maps for abstract (union) types."""

    def __init__(self, path: Path = SPEC_PATH, additions: Path | None = ADDITIONS_PATH) -> None:
        raw = json.loads(path.read_text(encoding="utf-8"))
        self.version: str = raw["version"]
        self.base_version: str = raw["version"]
        self.methods: dict[str, dict] = raw["methods"]
        self.types: dict[str, dict] = raw["types"]
        if additions is not None and additions.exists():
            self._merge(json.loads(additions.read_text(encoding="utf-8")))
        self._lower = {name.lower(): name for name in self.methods}
        # abstract type -> {discriminator field: {value: subtype}}
        self.discriminators: dict[str, tuple[str, dict[str, str]]] = {}
        for name, t in self.types.items():
            subs = t.get("subtypes")
            if not subs:
                continue
            for field in ("type", "source", "status"):
                mapping: dict[str, str] = {}
                for sub in subs:
                    for f in self.types.get(sub, {}).get("fields", []):
                        m = re.search(r"(?:must be|always) [“\"]?([a-z_]+)", f["description"])
                        if f["name"] == field and m:
                            mapping[m.group(1)] = sub
                if len(mapping) == len(subs):
                    self.discriminators[name] = (field, mapping)
                    break

    def _merge(self, add: dict[str, Any]) -> None:
        """Apply additions.json: new methods and types, fields added to (or made optional in) existing ones."""
        self.version = add["version"]
        self.methods.update(add["methods"])
        self.types.update(add["types"])
        for table, patches in ((self.methods, add["method_fields"]), (self.types, add["type_fields"])):
            for name, fields in patches.items():
                entry = table[name].setdefault("fields", [])
                for f in fields:
                    at = next((i for i, old in enumerate(entry) if old["name"] == f["name"]), None)
                    if at is None:
                        entry.append(f)
                    else:
                        entry[at] = f
        for name, subtypes in add.get("type_subtypes", {}).items():
            self.types[name]["subtypes"] = subtypes

    def method_name(self, name: str) -> str | None:
        """Telegram matches method names case-insensitively."""
        return self._lower.get(name.lower())

    def returns(self, method: str) -> list[str]:
        return self.methods[method].get("returns", [])


@lru_cache(maxsize=1)
def load_spec() -> Spec:
    return Spec()


class Validator:
    """Coerces and checks one method call; collects ignored (unknown) parameter names."""

    def __init__(self, spec: Spec, files: dict[str, Upload]) -> None:
        self.spec = spec
        self.files = files
        self.unknown: list[str] = []

    # -- entry point -------------------------------------------------------------------------
    def method_params(self, method: str, raw: dict[str, Any], from_form: bool) -> dict[str, Any]:
        fields = {f["name"]: f for f in self.spec.methods[method].get("fields", [])}
        out: dict[str, Any] = {}
        for name, value in raw.items():
            if name not in fields:
                if name in LEGACY_PARAMS:
                    out[name] = value
                else:
                    self.unknown.append(name)
        for name, f in fields.items():
            if name not in raw or raw[name] is None or (from_form and raw[name] == ""):
                if f["required"]:
                    raise ApiError(400, f"Bad Request: {_missing(name)}")
                out.pop(name, None)
                continue
            out[name] = self.value(raw[name], f["types"], name, from_form, top=True)
        return out

    # -- values ------------------------------------------------------------------------------
    def value(self, value: Any, types: list[str], path: str, from_form: bool, top: bool = False) -> Any:
        errors: list[ApiError] = []
        for t in types:
            try:
                return self._one(value, t, path, from_form, top)
            except ApiError as e:
                errors.append(e)
        # Prefer the most specific (deepest) complaint.
        raise max(errors, key=lambda e: e.description.count('"'))

    def _one(self, value: Any, t: str, path: str, from_form: bool, top: bool) -> Any:
        if t.startswith("Array of "):
            inner = t[len("Array of "):]
            if isinstance(value, str) and from_form and top:
                value = _json(value, path)
            if not isinstance(value, list):
                raise _type_error(path, "Array")
            return [self.value(v, [inner], f"{path}[{i}]", from_form) for i, v in enumerate(value)]
        if t == "Integer":
            if isinstance(value, bool):
                raise _type_error(path, t)
            if isinstance(value, int):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)
            if isinstance(value, str) and _INT_RE.match(value.strip()):
                return int(value.strip())
            raise _type_error(path, t)
        if t == "Float":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            if isinstance(value, str):
                try:
                    return float(value)
                except ValueError:
                    pass
            raise _type_error(path, t)
        if t == "Boolean":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
                return value.lower() in ("true", "1")
            if isinstance(value, int) and value in (0, 1):
                return bool(value)
            raise _type_error(path, t)
        if t == "String":
            if isinstance(value, str):
                return value
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return str(value)
            raise _type_error(path, t)
        if t == "InputFile":
            if isinstance(value, Upload):
                return value
            if isinstance(value, str) and value.startswith("attach://"):
                key = value[len("attach://"):]
                if key not in self.files:
                    raise ApiError(400, f"Bad Request: file attach://{key} not found in the request")
                return self.files[key]
            raise _type_error(path, t)
        if isinstance(value, Upload):
            raise _type_error(path, t)
        if t not in self.spec.types:
            return value  # unknown type name in the spec: accept as is
        if isinstance(value, str) and from_form and top:
            value = _json(value, path)
        return self.obj(value, t, path, from_form)

    def obj(self, value: Any, t: str, path: str, from_form: bool) -> dict:
        if not isinstance(value, dict):
            raise ApiError(400, f"Bad Request: can't parse {path}: object expected as {t}")
        tdef = self.spec.types[t]
        if t in self.spec.discriminators:
            field, mapping = self.spec.discriminators[t]
            sub = mapping.get(str(value.get(field, "")))
            if sub is None:
                raise ApiError(400, f'Bad Request: can\'t parse {path}: unsupported {t} {field} "{value.get(field)}"')
            return self.obj(value, sub, path, from_form)
        if tdef.get("subtypes"):
            errors = []
            for sub in tdef["subtypes"]:
                try:
                    return self.obj(value, sub, path, from_form)
                except ApiError as e:
                    errors.append(e)
            raise errors[0]
        out = dict(value)
        for f in tdef.get("fields", []):
            name = f["name"]
            sub_path = f"{path}.{name}"
            if name not in value or value[name] is None:
                if f["required"]:
                    raise ApiError(400, f'Bad Request: can\'t parse {path}: field "{name}" is required in {t}')
                continue
            out[name] = self.value(value[name], f["types"], sub_path, from_form)
        known = {f["name"] for f in tdef.get("fields", [])}
        self.unknown.extend(f"{path}.{k}" for k in value if k not in known)
        return out


def _json(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise ApiError(400, f"Bad Request: can't parse {path} JSON object") from None


def _type_error(path: str, t: str) -> ApiError:
    return ApiError(400, f'Bad Request: field "{path}" must be of type {t}')


def _missing(name: str) -> str:
    special = {
        "chat_id": "chat_id is empty",
        "text": "message text is empty",
        "photo": "there is no photo in the request",
        "document": "there is no document in the request",
        "callback_query_id": "query is too old and response timeout expired or query ID is invalid",
        "message_id": "message identifier is not specified",
    }
    return special.get(name, f'parameter "{name}" is required')
