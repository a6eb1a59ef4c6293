"""Telegram text formatting: HTML and MarkdownV2 parsing into (plain text, entities).

Why: limits (4096 / 1024) count characters *after* entity parsing, and malformed markup must be
rejected with "can't parse entities" exactly where Telegram would.  The HTML parser is deliberately
stricter than tdlib in one point documented by the Bot API: every ``<``, ``>`` and ``&`` that is not
part of a tag or entity must be escaped (tdlib tolerates a stray ``&``/``>``; we do not, so a bot
that passes here is safe there).  Entity offsets/lengths are in UTF-16 code units, like Telegram.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import bad

HTML_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline", "ins": "underline",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough", "span": "spoiler",
    "tg-spoiler": "spoiler", "a": "text_link", "tg-emoji": "custom_emoji", "code": "code", "pre": "pre",
    "blockquote": "blockquote", "tg-time": "date_time",
}
_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_NAME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*")
_ATTR_RE = re.compile(r"""\s*([a-zA-Z][a-zA-Z0-9_-]*)\s*(?:=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?""")


def u16len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def _err(msg: str) -> Exception:
    return bad(f"can't parse entities: {msg}")


def _decode_entity(m: re.Match[str]) -> str:
    name = m.group(1)
    if name in _NAMED:
        return _NAMED[name]
    code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return chr(code)


def _unescape_attr(value: str) -> str:
    if value[:1] in "\"'":
        value = value[1:-1]
    return _ENTITY_RE.sub(_decode_entity, value)


class _Out:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0  # UTF-16 offset

    def add(self, s: str) -> None:
        self.parts.append(s)
        self.pos += u16len(s)

    def text(self) -> str:
        return "".join(self.parts)


def parse_html(src: str) -> tuple[str, list[dict[str, Any]]]:
    out = _Out()
    stack: list[tuple[str, int, dict[str, str], int]] = []
    entities: list[dict[str, Any]] = []
    i, n = 0, len(src)

    def boff(k: int) -> int:
        return len(src[:k].encode("utf-8"))

    while i < n:
        c = src[i]
        if c == "&":
            m = _ENTITY_RE.match(src, i)
            if not m:
                raise _err(f'Character "&" at byte offset {boff(i)} must be escaped as &amp; (it starts no entity)')
            out.add(_decode_entity(m))
            i = m.end()
            continue
        if c == ">":
            raise _err(f'Character ">" at byte offset {boff(i)} must be escaped as &gt;')
        if c != "<":
            j = i
            while j < n and src[j] not in "&<>":
                j += 1
            out.add(src[i:j])
            i = j
            continue
        start = i
        if src.startswith("</", i):
            m = _NAME_RE.match(src, i + 2)
            end = src.find(">", i)
            if end == -1:
                raise _err(f"Unclosed end tag at byte offset {boff(start)}")
            name = (m.group(0) if m else "").lower()
            if not m or src[m.end():end].strip():
                raise _err(f"Unclosed end tag at byte offset {boff(start)}")
            if not stack:
                raise _err(f'Unexpected end tag at byte offset {boff(start)}')
            top = stack[-1][0]
            if name != top:
                raise _err(f'Unmatched end tag at byte offset {boff(start)}, expected "</{top}>", found "</{name}>"')
            tag, ent_start, attrs, _ = stack.pop()
            _close(tag, attrs, ent_start, out.pos, entities, stack)
            i = end + 1
            continue
        m = _NAME_RE.match(src, i + 1)
        if not m:
            raise _err(f'Unsupported start tag "" at byte offset {boff(start)}')
        name = m.group(0).lower()
        if name not in HTML_TAGS:
            raise _err(f'Unsupported start tag "{name}" at byte offset {boff(start)}')
        j = m.end()
        attrs: dict[str, str] = {}
        while True:
            while j < n and src[j].isspace():
                j += 1
            if j >= n:
                raise _err(f'Unclosed start tag at byte offset {boff(start)}')
            if src[j] == ">":
                break
            am = _ATTR_RE.match(src, j)
            if not am or am.end() == j:
                raise _err(f'Empty attribute name in the tag "{name}" at byte offset {boff(start)}')
            attrs[am.group(1).lower()] = _unescape_attr(am.group(2) or "")
            j = am.end()
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise _err(f'Tag "span" must have class "tg-spoiler" at byte offset {boff(start)}')
        if name == "tg-emoji" and not attrs.get("emoji-id", "").isdigit():
            raise _err(f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset {boff(start)}')
        stack.append((name, out.pos, attrs, boff(start)))
        i = j + 1
    if stack:
        raise _err(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return out.text(), entities


def _close(tag: str, attrs: dict[str, str], start: int, end: int, entities: list, stack: list) -> None:
    if end <= start:
        return
    kind = HTML_TAGS[tag]
    ent: dict[str, Any] = {"type": kind, "offset": start, "length": end - start}
    if tag == "a":
        href = attrs.get("href", "")
        if not href:
            return
        m = re.match(r"tg://user\?id=(\d+)$", href)
        if m:
            ent = {"type": "text_mention", "offset": start, "length": end - start, "user": {"id": int(m.group(1))}}
        else:
            ent["url"] = href
    elif tag == "blockquote" and "expandable" in attrs:
        ent["type"] = "expandable_blockquote"
    elif tag == "tg-emoji":
        ent["custom_emoji_id"] = attrs["emoji-id"]
    elif tag == "tg-time":
        ent["unix_time"] = int(attrs.get("unix", "0") or 0) if attrs.get("unix", "0").isdigit() else 0
    elif tag == "code" and stack and stack[-1][0] == "pre" and attrs.get("class", "").startswith("language-"):
        # <pre><code class="language-x"> becomes a single pre entity with a language.
        entities.append({"type": "pre", "offset": start, "length": end - start,
                         "language": attrs["class"][len("language-"):]})
        stack[-1] = (stack[-1][0], stack[-1][1], {**stack[-1][2], "_merged": "1"}, stack[-1][3])
        return
    elif tag == "pre" and attrs.get("_merged"):
        return
    entities.append(ent)


# ---------------------------------------------------------------------------------- MarkdownV2
_MD_SPECIAL = set("_*[]()~`>#+-=|{}.!\\")
_MD_MARKS = [("||", "spoiler"), ("__", "underline"), ("*", "bold"), ("_", "italic"), ("~", "strikethrough")]


def parse_markdown_v2(src: str) -> tuple[str, list[dict[str, Any]]]:
    """A faithful-enough MarkdownV2 parser: reserved characters must be escaped with a backslash."""
    out = _Out()
    entities: list[dict[str, Any]] = []
    stack: list[tuple[str, int, int]] = []  # (mark, utf16 start, char offset)
    i, n = 0, len(src)
    line_start = True
    quote_start: int | None = None
    while i < n:
        c = src[i]
        if c == "\\":
            if i + 1 < n and 0 < ord(src[i + 1]) < 127:
                out.add(src[i + 1])
                i += 2
                line_start = False
                continue
            raise _err(f"Character '\\' is reserved and must be escaped with the preceding '\\' (offset {i})")
        if c == "\n":
            out.add(c)
            i += 1
            line_start = True
            if quote_start is not None and not src.startswith(">", i):
                entities.append({"type": "blockquote", "offset": quote_start, "length": out.pos - 1 - quote_start})
                quote_start = None
            continue
        if c == ">" and line_start:
            if quote_start is None:
                quote_start = out.pos
            i += 1
            line_start = False
            continue
        line_start = False
        if c == "`":
            if src.startswith("```", i):
                end = src.find("```", i + 3)
                if end == -1:
                    raise _err(f"Can't find end of Pre entity at byte offset {i}")
                body = src[i + 3:end]
                lang = ""
                if "\n" in body and body.split("\n", 1)[0] and " " not in body.split("\n", 1)[0]:
                    lang, body = body.split("\n", 1)
                start = out.pos
                out.add(_md_code_unescape(body))
                ent: dict[str, Any] = {"type": "pre", "offset": start, "length": out.pos - start}
                if lang:
                    ent["language"] = lang
                entities.append(ent)
                i = end + 3
                continue
            end = src.find("`", i + 1)
            if end == -1:
                raise _err(f"Can't find end of Code entity at byte offset {i}")
            start = out.pos
            out.add(_md_code_unescape(src[i + 1:end]))
            entities.append({"type": "code", "offset": start, "length": out.pos - start})
            i = end + 1
            continue
        if c == "[" or (c == "!" and src.startswith("![", i)):
            stack.append(("[" if c == "[" else "![", out.pos, i))
            i += 1 if c == "[" else 2
            continue
        if c == "]" and stack and stack[-1][0] in ("[", "!["):
            mark, start, _ = stack.pop()
            if not src.startswith("(", i + 1):
                raise _err(f"Can't find end of a URL at byte offset {i}")
            end = i + 2
            url_chars: list[str] = []
            while end < n and src[end] != ")":
                if src[end] == "\\" and end + 1 < n:
                    end += 1
                url_chars.append(src[end])
                end += 1
            if end >= n:
                raise _err(f"Can't find end of a URL at byte offset {i}")
            url = "".join(url_chars)
            if out.pos > start:
                if mark == "![":
                    m = re.match(r"tg://emoji\?id=(\d+)$", url)
                    if not m:
                        raise _err("Custom emoji entity must contain a tg://emoji URL")
                    entities.append({"type": "custom_emoji", "offset": start, "length": out.pos - start,
                                     "custom_emoji_id": m.group(1)})
                else:
                    entities.append({"type": "text_link", "offset": start, "length": out.pos - start, "url": url})
            i = end + 1
            continue
        for mark, kind in _MD_MARKS:
            if src.startswith(mark, i):
                if stack and stack[-1][0] == mark:
                    _, start, _ = stack.pop()
                    if out.pos > start:
                        entities.append({"type": kind, "offset": start, "length": out.pos - start})
                else:
                    stack.append((mark, out.pos, i))
                i += len(mark)
                break
        else:
            if c in _MD_SPECIAL:
                raise _err(f"Character '{c}' is reserved and must be escaped with the preceding '\\'")
            out.add(c)
            i += 1
    if quote_start is not None and out.pos > quote_start:
        entities.append({"type": "blockquote", "offset": quote_start, "length": out.pos - quote_start})
    if stack:
        mark, _, off = stack[-1]
        raise _err(f"Can't find end of the entity starting at byte offset {len(src[:off].encode())}")
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return out.text(), entities


def _md_code_unescape(body: str) -> str:
    return re.sub(r"\\([`\\])", r"\1", body)


# ---------------------------------------------------------------------------------- entry point
def format_text(text: str, parse_mode: str | None, entities: list[dict] | None) -> tuple[str, list[dict[str, Any]]]:
    """Apply parse_mode (or explicit entities), then trim surrounding whitespace like Telegram does."""
    mode = (parse_mode or "").lower()
    if mode and entities:
        mode = ""  # explicit entities win; Telegram ignores parse_mode then
    if mode == "html":
        plain, ents = parse_html(text)
    elif mode == "markdownv2":
        plain, ents = parse_markdown_v2(text)
    elif mode == "markdown":
        plain, ents = _parse_markdown_legacy(text)
    elif mode:
        raise bad(f"unsupported parse_mode \"{parse_mode}\"")
    else:
        plain, ents = text, [dict(e) for e in entities or []]
        total = u16len(plain)
        for e in ents:
            if e["offset"] < 0 or e["length"] <= 0 or e["offset"] + e["length"] > total:
                raise bad("can't parse entities: entity is out of the text bounds")
    return _trim(plain, ents)


def _parse_markdown_legacy(src: str) -> tuple[str, list[dict[str, Any]]]:
    marks = {"*": "bold", "_": "italic", "`": "code"}
    out = _Out()
    entities: list[dict[str, Any]] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in marks:
            end = src.find(c, i + 1)
            if end == -1:
                raise _err(f"Can't find end of the entity starting at byte offset {len(src[:i].encode())}")
            start = out.pos
            out.add(src[i + 1:end])
            if out.pos > start:
                entities.append({"type": marks[c], "offset": start, "length": out.pos - start})
            i = end + 1
            continue
        out.add(c)
        i += 1
    return out.text(), entities


def _trim(plain: str, ents: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    stripped = plain.strip()
    if stripped == plain:
        return plain, ents
    lead = u16len(plain[: len(plain) - len(plain.lstrip())])
    total = u16len(stripped)
    out = []
    for e in ents:
        start = max(0, e["offset"] - lead)
        end = min(total, e["offset"] + e["length"] - lead)
        if end > start:
            out.append({**e, "offset": start, "length": end - start})
    return stripped, out
