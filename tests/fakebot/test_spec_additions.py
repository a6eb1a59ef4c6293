"""The strict spec covers what the installed aiogram can send, and additions.json is what the tool derives."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import aiogram
import aiogram.methods as am
import pytest
from aiogram.methods.base import TelegramMethod

from tests.fakebot.spec import ADDITIONS_PATH, Spec

ROOT = Path(__file__).resolve().parents[2]


def test_every_method_aiogram_has_is_in_the_spec_with_its_parameters() -> None:
    spec = Spec()
    for cls in vars(am).values():
        if not (isinstance(cls, type) and issubclass(cls, TelegramMethod)
                and isinstance(getattr(cls, "__api_method__", None), str)):
            continue
        name = spec.method_name(cls.__api_method__)
        assert name is not None, f"{cls.__api_method__} is missing from the spec"
        fields = {f["name"] for f in spec.methods[name].get("fields", [])}
        for field, info in cls.model_fields.items():
            extra = info.json_schema_extra
            if not (isinstance(extra, dict) and extra.get("deprecated")):
                assert (info.alias or field) in fields, f"{name}.{field} is missing from the spec"


def test_the_ephemeral_parts_are_strict() -> None:
    spec = Spec()
    params = {f["name"]: f for f in spec.types["EphemeralMessageParameters"]["fields"]}
    assert params["receiver_user_id"]["required"] and not params["callback_query_id"]["required"]
    edit = {f["name"]: f for f in spec.methods["editEphemeralMessageText"]["fields"]}
    assert all(edit[k]["required"] for k in ("chat_id", "receiver_user_id", "ephemeral_message_id"))
    assert spec.returns("deleteEphemeralMessage") == ["Boolean"]
    send = {f["name"] for f in spec.methods["sendMessage"]["fields"]}
    assert "ephemeral_message_parameters" in send and "receiver_user_id" not in send  # 10.2's form is gone
    reply = {f["name"]: f for f in spec.types["ReplyParameters"]["fields"]}
    assert not reply["message_id"]["required"] and "ephemeral_message_id" in reply


def test_additions_json_is_what_the_tool_derives_from_this_aiogram() -> None:
    recorded = json.loads(ADDITIONS_PATH.read_text(encoding="utf-8"))
    if not recorded["derived_from"].startswith(f"aiogram {aiogram.__version__} "):
        pytest.skip(f"additions.json was derived from another aiogram ({recorded['derived_from']}); "
                    "re-run tools/derive_botapi_spec.py after upgrading")
    loader = importlib.util.spec_from_file_location("derive_botapi_spec", ROOT / "tools" / "derive_botapi_spec.py")
    assert loader is not None and loader.loader is not None
    tool = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(tool)
    derived, _ = tool.derive()
    assert derived == recorded, "tests/fakebot/spec/additions.json is stale: run tools/derive_botapi_spec.py"
