#!/usr/bin/env python3
"""Independent executable model of SPEC.md §1-§6, §8 (R1/R2) and the Codex eras of §9 that a
single file can show (pre-envelope `codex-2025`), for the Codex and mini dialects (stdlib only).

Used as an oracle by scripts/difftest.py and to derive the expected outputs of the `real_*`
fixtures. Written from SPEC.md, /work/notes/conventions.md and the upstream facts transcribed in
/work/notes (Codex 343074d4), never from rollcall's sources. Not part of the shipped program.

    python3 scripts/model.py replay FILE
    python3 scripts/model.py repair-view [--modalities LIST] [--truncation tokens:N|bytes:N|none]
                                         [--no-resume-prep] FILE
    python3 scripts/model.py report FILE          # the keys of `rollcall replay --report --json`

Every item keeps the exact JSON text it had in its source line (a span of the line). Items the
program writes itself (synthetic outputs, legacy-compaction rebuilds, agent_messages made of
inter_agent_communication records) follow the byte conventions of conventions.md, and every change
to an existing item (R1 cut, R2 / §6 media placeholder, URL rewrite, model-switch strip) is a splice
over the changed value or part, every other byte staying as it was. So the model's output is meant
to be byte-exact.

Not modelled: Claude Code (§10), lineage / ordinals / homes (§9), the rendered report.
"""

import base64
import hashlib
import math
import json
import re
import struct
import sys
import uuid
from xml.parsers import expat
from decimal import Decimal
from fractions import Fraction

sys.setrecursionlimit(20000)  # deeply nested (valid) JSON must not look invalid

# ---------------------------------------------------------------------------------------------
# JSON with raw spans

JSON_WS = " \t\n\r"


def _reject_constant(name):
    raise ValueError(f"not JSON: {name}")


# Floats are kept exact (Decimal) so re-encoded items keep their numbers' values.
_DEC = json.JSONDecoder(parse_constant=_reject_constant, parse_float=Decimal)


def _ws(s, i):
    n = len(s)
    while i < n and s[i] in JSON_WS:
        i += 1
    return i


def parse_json_line(s):
    """Strict parse of one whole line. Returns the value or raises ValueError."""
    i = _ws(s, 0)
    try:
        val, end = _DEC.raw_decode(s, i)
    except RecursionError as e:  # pragma: no cover
        raise ValueError("nesting too deep") from e
    if _ws(s, end) != len(s):
        raise ValueError(f"trailing characters at column {end + 1}")
    return val


def walk_object(s, i):
    """s[i] == '{' of an already-validated object. Returns {key: (value, start, end)}, last wins."""
    i = _ws(s, i)
    assert s[i] == "{"
    out = {}
    i = _ws(s, i + 1)
    if s[i] == "}":
        return out
    while True:
        key, i = _DEC.raw_decode(s, i)
        i = _ws(s, i)
        assert s[i] == ":"
        i = _ws(s, i + 1)
        val, j = _DEC.raw_decode(s, i)
        out[key] = (val, i, j)
        i = _ws(s, j)
        if s[i] == ",":
            i = _ws(s, i + 1)
            continue
        assert s[i] == "}"
        return out


def walk_array(s, i):
    """s[i] == '[' of an already-validated array. Returns [(value, start, end)]."""
    i = _ws(s, i)
    assert s[i] == "["
    out = []
    i = _ws(s, i + 1)
    if s[i] == "]":
        return out
    while True:
        val, j = _DEC.raw_decode(s, i)
        out.append((val, i, j))
        i = _ws(s, j)
        if s[i] == ",":
            i = _ws(s, i + 1)
            continue
        assert s[i] == "]"
        return out


def dumps(v):
    """Compact JSON, ASCII-escaped (for the report)."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, Decimal):
        return str(v)
    return json.dumps(v, ensure_ascii=True)


_SURR = re.compile("[\ud800-\udfff]")


def ENC(text):
    """serde_json::to_string of a str: \" \\ \\n \\r \\t \\b \\f short escapes, other C0 as \\u00xx
    (lower-case hex), everything else raw (a lone surrogate, which serde cannot hold, stays
    escaped)."""
    out = json.dumps(text, ensure_ascii=False)
    return _SURR.sub(lambda m: "\\u%04x" % ord(m.group(0)), out)


def fffd(text):
    """A lone surrogate reads as U+FFFD wherever text is decoded for a decision."""
    return _SURR.sub("\ufffd", text)


def blen(s):
    return len(fffd(s).encode("utf-8"))


def is_str(v):
    return isinstance(v, str)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, Decimal)


# ---------------------------------------------------------------------------------------------
# Items


class Item:
    """A history item: its parsed value and its exact JSON text.

    kind: 'v' verbatim source text, 's' written by the program, 'c' an edited source item.
    origin (which §8 passes apply): 'ri' a Codex response_item or codex-2025 bare item (R1 + R2),
    'rh' an item of a Codex compacted replacement_history (R2 only), 'cx' an item Codex builds
    itself (legacy rebuild, agent_message: R2 applies but finds nothing), 'mini' (neither).
    """

    __slots__ = ("value", "raw", "kind", "origin")

    def __init__(self, value, raw, kind="v", origin="mini"):
        self.value = value
        self.raw = raw
        self.kind = kind
        self.origin = origin

    def edited(self, edits):
        """Apply [(start, end, new_text)] to raw (disjoint spans). Returns a new Item."""
        if not edits:
            return self
        raw = self.raw
        for a, b, new in sorted(edits, key=lambda e: e[0], reverse=True):
            raw = raw[:a] + new + raw[b:]
        kind = "s" if self.kind == "s" else "c"
        return Item(parse_json_line(raw), raw, kind, self.origin)


def keep_item(v):
    """SPEC §4 (items appended from a record)."""
    if not isinstance(v, dict):
        return False
    t = v.get("type")
    if t == "ghost_snapshot":
        return False
    if t == "message" and v.get("role") == "system":
        return False
    return True


def replacement_items(s, arr_start, origin):
    """A replacement history: non-objects and ghost_snapshots dropped, nothing else (§4)."""
    out = []
    for val, a, b in walk_array(s, arr_start):
        if isinstance(val, dict) and val.get("type") != "ghost_snapshot":
            out.append(Item(val, s[a:b], "v", origin))
    return out


# ---------------------------------------------------------------------------------------------
# §2.1 contextual fragments and user-turn boundaries (Codex 343074d4)

# Unicode White_Space (what Rust's str::trim strips).
UNICODE_WS = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(s):
    return s.translate(_ASCII_LOWER)


def trim_start(s):
    return s.lstrip(UNICODE_WS)


def trim_end(s):
    return s.rstrip(UNICODE_WS)


def trim(s):
    return s.strip(UNICODE_WS)


def ci_prefix(text, marker):
    return ascii_lower(text[: len(marker)]) == ascii_lower(marker)


def ci_suffix(text, marker):
    return len(text) >= len(marker) and ascii_lower(text[len(text) - len(marker):]) == ascii_lower(marker)


MARKED_USER_FRAGMENTS = [
    ("# AGENTS.md instructions", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<recommended_plugins>", "</recommended_plugins>"),
]


def matches_marked(start, end, text):
    t = trim_start(text)
    return ci_prefix(t, start) and ci_suffix(trim_end(t), end)


def external_matches(t):
    if not t.startswith("<external_"):
        return False
    rest = t[len("<external_"):]
    if ">" not in rest:
        return False
    key, value_and_close = rest.split(">", 1)
    return value_and_close.endswith("</external_" + key + ">")


_SOURCE_RE = re.compile(r"[a-z][a-z0-9_]*\Z")


def internal_context_matches(t):
    if t.startswith("<goal_context>") and t.endswith("</goal_context>"):
        return True
    prefix = '<codex_internal_context source="'
    if not t.startswith(prefix):
        return False
    rest = t[len(prefix):]
    if '">' not in rest:
        return False
    source, body = rest.split('">', 1)
    return bool(_SOURCE_RE.match(source)) and body.endswith("</codex_internal_context>")


LEGACY_UNIFIED_EXEC = "Warning: The maximum number of unified exec processes you can keep open is"
LEGACY_APPLY_PATCH_START = "Warning: apply_patch was requested via "
LEGACY_APPLY_PATCH_END = "Use the apply_patch tool instead of exec_command."
LEGACY_CYBER = "Warning: Your account was flagged for potentially high-risk cyber activity"


def legacy_warning_matches(t):
    return (t.startswith(LEGACY_UNIFIED_EXEC)
            or (t.startswith(LEGACY_APPLY_PATCH_START) and t.endswith(LEGACY_APPLY_PATCH_END))
            or t.startswith(LEGACY_CYBER))


def hook_prompt_matches(text):
    """quick-xml serde parse of HookPromptXml (protocol/src/items.rs:650-658), approximated with a
    non-namespaced expat parse: after trim, declarations, comments and processing instructions are
    skipped; the root element (of any name) must have one non-blank `hook_run_id` attribute (a
    duplicated attribute is an error) and exactly one run of non-blank text (child elements are
    ignored; text on both sides of one would be a duplicate `$text`); nothing after the root's end
    tag is looked at."""
    t = trim(text)
    if not t.startswith("<") or "hook_run_id" not in t:
        return False
    p = expat.ParserCreate()
    st = {"depth": 0, "attrs": None, "runs": [], "cur": "", "done": False}

    def start(name, attrs):
        if st["depth"] == 0 and st["attrs"] is None:
            st["attrs"] = attrs
        elif st["depth"] == 1:
            st["runs"].append(st["cur"])
            st["cur"] = ""
        st["depth"] += 1

    def end(name):
        st["depth"] -= 1
        if st["depth"] == 0:
            st["runs"].append(st["cur"])
            st["done"] = True

    def chars(data):
        if st["depth"] == 1:
            st["cur"] += data

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    pos = 0
    try:
        while pos < len(t) and not st["done"]:
            nxt = t.find(">", pos)
            nxt = len(t) if nxt < 0 else nxt + 1
            p.Parse(t[pos:nxt], False)
            pos = nxt
    except expat.ExpatError:
        return False
    if not st["done"]:
        return False
    run_id = st["attrs"].get("hook_run_id")
    if run_id is None or trim(run_id) == "":
        return False
    runs = [r for r in st["runs"] if r.strip(" \t\r\n") != ""]
    return len(runs) == 1


def is_standard_contextual_text(text):
    if any(matches_marked(s, e, text) for s, e in MARKED_USER_FRAGMENTS):
        return True
    t = trim(text)
    return external_matches(t) or internal_context_matches(t) or legacy_warning_matches(t)


def is_contextual_part(part):
    if not isinstance(part, dict) or part.get("type") != "input_text" or not is_str(part.get("text")):
        return False
    text = part["text"]
    return is_standard_contextual_text(text) or hook_prompt_matches(text)


def content_list(v):
    c = v.get("content")
    return c if isinstance(c, list) else []


def is_contextual_user_content(content):
    return any(is_contextual_part(p) for p in content)


CONTEXTUAL_DEVELOPER_PREFIXES = [
    "<permissions instructions>", "Approved command prefix saved:", "<model_switch>",
    "<managed_developer_instructions>", "<apps_instructions>", "<collaboration_mode>",
    "<multi_agent_role>", "<multi_agent_mode>", "<environments_instructions>", "<git_attribution>",
    "<plugins_instructions>", "<realtime_conversation>", "<skills_instructions>", "<tools>",
    "<personality_spec>", "<token_budget>", "<context_window>", "<context_window_guidance>",
    "<rollout_budget>",
]


def is_contextual_dev_part(part):
    if not isinstance(part, dict) or part.get("type") != "input_text" or not is_str(part.get("text")):
        return False
    t = trim_start(part["text"])
    return any(ci_prefix(t, p) for p in CONTEXTUAL_DEVELOPER_PREFIXES)


def model_switch_matches(text):
    return matches_marked("<model_switch>", "</model_switch>", text)


# --- inter-agent communication (protocol/src/protocol.rs:744-868, agent_path.rs) --------------

_AGENT_NAME = re.compile(r"[a-z0-9_]+\Z")


def valid_agent_path(p):
    if not is_str(p):
        return False
    if p == "/morpheus":
        return True
    if not p.startswith("/root"):
        return False
    rest = p[len("/root"):]
    if rest == "":
        return True
    if not rest.startswith("/") or rest.endswith("/"):
        return False
    for name in rest[1:].split("/"):
        if name in ("root", ".", "..") or not _AGENT_NAME.match(name):
            return False
    return True


IAC_KEYS = {"id", "author", "recipient", "other_recipients", "content", "encrypted_content",
            "internal_chat_message_metadata_passthrough", "trigger_turn"}


class _Dup(Exception):
    pass


def _pairs_no_dup(keys):
    def hook(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen and k in keys:
                raise _Dup(k)
            seen.add(k)
        return dict(pairs)
    return hook


def iac_valid(obj):
    """Would serde read this object as an InterAgentCommunication?"""
    if not isinstance(obj, dict):
        return False
    for f in ("author", "recipient", "content", "trigger_turn"):
        if f not in obj:
            return False
    if not (valid_agent_path(obj["author"]) and valid_agent_path(obj["recipient"])):
        return False
    if not is_str(obj["content"]) or not isinstance(obj["trigger_turn"], bool):
        return False
    if "other_recipients" in obj:
        o = obj["other_recipients"]
        if not isinstance(o, list) or not all(valid_agent_path(x) for x in o):
            return False
    for f in ("id", "encrypted_content"):
        if obj.get(f) is not None and not is_str(obj[f]):
            return False
    pt = obj.get("internal_chat_message_metadata_passthrough")
    if pt is not None:
        if not isinstance(pt, dict):
            return False
        if pt.get("turn_id") is not None and not is_str(pt["turn_id"]):
            return False
        if pt.get("create_time") is not None and not is_num(pt["create_time"]):
            return False
    return True


def iac_from_text(text):
    try:
        obj = json.loads(text, object_pairs_hook=_pairs_no_dup(IAC_KEYS | {"turn_id", "create_time"}),
                         parse_float=Decimal)
    except (ValueError, _Dup, RecursionError):
        return False
    return iac_valid(obj)


def is_inter_agent_content(content):
    if len(content) != 1:
        return False
    p = content[0]
    if not isinstance(p, dict) or p.get("type") not in ("input_text", "output_text") or not is_str(p.get("text")):
        return False
    return iac_from_text(p["text"])


def is_boundary(v):
    """A user-turn boundary (core/src/context_manager/history.rs:920-934)."""
    if not isinstance(v, dict):
        return False
    t = v.get("type")
    if t == "agent_message":
        return True
    if t != "message":
        return False
    role = v.get("role")
    if role == "user":
        return not is_contextual_user_content(content_list(v))
    if role == "assistant":
        return is_inter_agent_content(content_list(v))
    return False


def turn_id_of_item(v):
    pt = v.get("internal_chat_message_metadata_passthrough")
    if isinstance(pt, dict) and is_str(pt.get("turn_id")) and pt["turn_id"] != "":
        return pt["turn_id"]
    return None


def rewrite_array(item, member, keep_idx):
    """Rewrite the array `member` of item as [kept elements joined by ','] (elements keep their
    bytes). Returns the edited item."""
    m = walk_object(item.raw, 0)
    _, a, b = m[member]
    elems = walk_array(item.raw, a)
    new = "[" + ",".join(item.raw[elems[i][1]:elems[i][2]] for i in keep_idx) + "]"
    return item.edited([(a, b, new)])


def drop_last_user_turns(history, n):
    """§2.1: drop the last n user turns, trim context updates above the cut, and on a first-turn
    cut strip the turn's <model_switch> parts."""
    pos = [i for i, it in enumerate(history) if is_boundary(it.value)]
    if not pos:
        return history
    first = pos[0]
    cut = first if n >= len(pos) else pos[len(pos) - n]
    while cut > first:
        prev = history[cut - 1].value
        if prev.get("type") == "message" and prev.get("role") == "developer" and any(
                is_contextual_dev_part(p) for p in content_list(prev)):
            cut -= 1
        elif prev.get("type") == "message" and prev.get("role") == "user" and is_contextual_user_content(
                content_list(prev)):
            cut -= 1
        else:
            break
    retained = history[:cut]
    tid = turn_id_of_item(history[first].value)
    if cut == first and tid is not None:
        out = []
        for it in retained:
            v = it.value
            if turn_id_of_item(v) == tid and v.get("type") == "message" and v.get("role") == "developer" \
                    and isinstance(v.get("content"), list):
                content = v["content"]
                keep = [i for i, p in enumerate(content)
                        if not (isinstance(p, dict) and p.get("type") == "input_text" and is_str(p.get("text"))
                                and model_switch_matches(p["text"]))]
                if not keep:
                    continue
                if len(keep) != len(content):
                    it = rewrite_array(it, "content", keep)
            out.append(it)
        retained = out
    return retained


# ---------------------------------------------------------------------------------------------
# R1 truncation arithmetic (utils/string/src/truncate.rs, utils/output-truncation; 343074d4)


def _split_string(s, left, right):
    b = s.encode("utf-8")
    n = len(b)
    tail_start_target = max(0, n - right)
    prefix_end = 0
    suffix_start = n
    removed = 0
    started = False
    idx = 0
    for ch in s:
        end = idx + len(ch.encode("utf-8"))
        if end <= left:
            prefix_end = end
        elif idx >= tail_start_target:
            if not started:
                suffix_start = idx
                started = True
        else:
            removed += 1
        idx = end
    if suffix_start < prefix_end:
        suffix_start = prefix_end
    return removed, b[:prefix_end].decode("utf-8"), b[suffix_start:].decode("utf-8")


def _marker(use_tokens, n):
    return "\u2026%d tokens truncated\u2026" % n if use_tokens else "\u2026%d chars truncated\u2026" % n


def _truncate_with_byte_estimate(s, max_bytes, use_tokens):
    if s == "":
        return ""
    n = len(s.encode("utf-8"))
    if max_bytes == 0:
        return _marker(use_tokens, (n + 3) // 4 if use_tokens else len(s))
    if n <= max_bytes:
        return s
    left = max_bytes // 2
    removed, head, tail = _split_string(s, left, max_bytes - left)
    return head + _marker(use_tokens, (n - max_bytes + 3) // 4 if use_tokens else removed) + tail


def truncate_text(s, mode, limit):
    """truncate_text(s, Tokens(limit) | Bytes(limit))."""
    s = fffd(s)
    if mode == "bytes":
        return _truncate_with_byte_estimate(s, limit, False)
    if s == "":
        return ""
    if limit > 0 and len(s.encode("utf-8")) <= 4 * limit:
        return s
    return _truncate_with_byte_estimate(s, 4 * limit, True)


def approx_tokens(s):
    return (blen(s) + 3) // 4


def mul_1_2(n):
    return (6 * n + 4) // 5


# --- audio (utils/audio/src/lib.rs) ------------------------------------------------------------

AUDIO_MIME = {
    "audio/wav": "audio/wav", "audio/x-wav": "audio/wav", "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav", "audio/mpeg": "audio/mpeg", "audio/mp3": "audio/mpeg",
    "audio/mp4": "audio/mp4", "audio/m4a": "audio/mp4", "audio/x-m4a": "audio/mp4",
    "audio/webm": "audio/webm", "audio/ogg": "audio/ogg",
}
_B64_RE = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\Z")
_B64_VAL = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def b64_strict(payload):
    """BASE64_STANDARD.decode (canonical padding, no trailing bits). None when invalid."""
    if not _B64_RE.match(payload):
        return None
    if payload.endswith("=="):
        if _B64_VAL[payload[-3]] & 0x0F:
            return None
    elif payload.endswith("="):
        if _B64_VAL[payload[-2]] & 0x03:
            return None
    return base64.b64decode(payload)


def wav_duration(data):
    """Seconds of a PCM WAV, or None."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    i = 12
    rate = block = None
    while i + 8 <= len(data):
        cid = data[i:i + 4]
        size = struct.unpack("<I", data[i + 4:i + 8])[0]
        body = data[i + 8:i + 8 + size]
        if cid == b"fmt " and len(body) >= 16:
            _, ch, rate, _, block, _ = struct.unpack("<HHIIHH", body[:16])
        elif cid == b"data":
            if not rate or not block:
                return None
            frames = min(size, len(data) - (i + 8)) // block
            return Fraction(frames, rate)
        i += 8 + size + (size & 1)
    return None


def audio_tokens(url):
    """estimate_audio_token_count: duration × 10 tokens/s when known, else ceil(len(url)/4)."""
    d = None
    if "," in url:
        meta, payload = url.split(",", 1)
        parts = meta[5:].split(";")
        canonical = AUDIO_MIME.get(ascii_lower(parts[0]))
        if canonical and any(ascii_lower(p) == "base64" for p in parts[1:]):
            data = b64_strict(payload)
            if data is not None and canonical == "audio/wav":
                d = wav_duration(data)
    if d is None:
        return approx_tokens(url)
    return math.ceil(d * 10)


# --- R1 on one item ----------------------------------------------------------------------------

TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def r1_item(it, policy):
    """Returns (item, changed)."""
    mode, limit = policy
    v = it.value
    if v.get("type") not in TOOL_OUTPUTS or "output" not in v:
        return it, False
    lim = mul_1_2(limit)
    m = walk_object(it.raw, 0)
    out, a, b = m["output"]
    if is_str(out):
        cut = truncate_text(out, mode, lim)
        if cut == fffd(out):
            return it, False
        return it.edited([(a, b, ENC(cut))]), True
    if not isinstance(out, list):
        return it, False
    elems = walk_array(it.raw, a)
    remaining = lim
    pieces = []
    changed = False
    om_text = om_audio = 0
    for val, ea, eb in elems:
        raw_el = it.raw[ea:eb]
        t = val.get("type") if isinstance(val, dict) else None
        if t == "input_text":
            # An input_text whose `text` is missing or not a string counts as an empty text.
            text = val["text"] if is_str(val.get("text")) else ""
            if remaining == 0:
                om_text += 1
                changed = True
                continue
            cost = blen(text) if mode == "bytes" else approx_tokens(text)
            if cost <= remaining:
                pieces.append(raw_el)
                remaining -= cost
            else:
                snip = truncate_text(text, mode, remaining)
                changed = True
                if snip == "":
                    om_text += 1
                else:
                    em = walk_object(raw_el, 0)
                    _, ta, tb = em["text"]
                    pieces.append(raw_el[:ta] + ENC(snip) + raw_el[tb:])
                remaining = 0
        elif t == "input_audio":
            url = val.get("audio_url")
            tok = audio_tokens(url if is_str(url) else "")
            cost = 4 * tok if mode == "bytes" else tok
            if cost <= remaining:
                pieces.append(raw_el)
                remaining -= cost
            else:
                om_audio += 1
                changed = True
        else:
            pieces.append(raw_el)
    if not changed:
        return it, False
    if om_text:
        pieces.append('{"type":"input_text","text":"[omitted %d text items ...]"}' % om_text)
    if om_audio:
        pieces.append('{"type":"input_text","text":"[omitted %d audio items ...]"}' % om_audio)
    return it.edited([(a, b, "[" + ",".join(pieces) + "]")]), True


# --- R2 media preparation ----------------------------------------------------------------------

IMG_REMOTE = "image content omitted because remote image URLs are not supported"
IMG_LOW = "image content omitted because detail 'low' is not supported; use 'high', 'original', or 'auto'"
IMG_PROCESS = "image content omitted because it could not be processed"
IMG_TOO_LARGE = "image content omitted because it exceeded the supported size limit; use a smaller image"
AUD_PROCESS = "audio content omitted because it could not be processed"
AUD_FORMAT = "audio content omitted because its format is not supported; use wav, mp3, m4a, webm, or ogg"
AUD_TOO_LARGE = "audio content omitted because it exceeded the supported size limit; use a smaller audio file"
GIB = 1 << 30


def image_header(data):
    """(mime, width, height) read from the header of a PNG / JPEG / GIF / WebP, or None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) >= 24 and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return "image/png", w, h
        return None
    if data[:6] in (b"GIF87a", b"GIF89a"):
        if len(data) >= 10:
            w, h = struct.unpack("<HH", data[6:10])
            return "image/gif", w, h
        return None
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        c = data[12:16]
        if c == b"VP8 " and len(data) >= 30:
            w, h = struct.unpack("<HH", data[26:30])
            return "image/webp", w & 0x3FFF, h & 0x3FFF
        if c == b"VP8L" and len(data) >= 25:
            bits = int.from_bytes(data[21:25], "little")
            return "image/webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if c == b"VP8X" and len(data) >= 30:
            return "image/webp", int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
        return None
    if data[:3] == b"\xff\xd8\xff":
        i = 2
        while i + 4 <= len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            if marker == 0xFF:
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            seg = struct.unpack(">H", data[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                if i + 9 > len(data):
                    return None
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return "image/jpeg", w, h
            if marker in (0xD9, 0xDA):
                return None
            i += 2 + seg
        return None
    return None


def would_resize(w, h, detail):
    maxdim, maxpatch = (6000, 10000) if detail == "original" else (2048, 2500)
    w, h = max(w, 1), max(h, 1)
    return w > maxdim or h > maxdim or (-(-w // 32)) * (-(-h // 32)) > maxpatch


def prepare_image(url, detail):
    """Returns None (unchanged), ('text', placeholder) or ('url', new_url); and a resize flag."""
    head = url.split(":", 1)[0] if ":" in url else None
    if head is not None and ascii_lower(head) in ("http", "https"):
        return ("text", IMG_REMOTE), False
    if ascii_lower(url[:5]) != "data:":
        return None, False
    if detail == "low":
        return ("text", IMG_LOW), False
    rest = url[5:]
    if "," not in rest:
        return ("text", IMG_PROCESS), False
    meta, payload = rest.split(",", 1)
    if not any(ascii_lower(p) == "base64" for p in meta.split(";")):
        return ("text", IMG_PROCESS), False
    if len(payload.encode("utf-8", "surrogatepass")) > GIB:
        return ("text", IMG_TOO_LARGE), False
    data = b64_strict(payload)
    if data is None:
        return ("text", IMG_PROCESS), False
    hdr = image_header(data)
    if hdr is None:
        return ("text", IMG_PROCESS), False
    mime, w, h = hdr
    resize = would_resize(w, h, detail)
    new = "data:" + mime + ";base64," + payload
    if new != url:
        return ("url", new), resize
    return None, resize


def prepare_audio(url):
    if ascii_lower(url[:5]) != "data:" or "," not in url:
        return ("text", AUD_PROCESS)
    meta, payload = url.split(",", 1)
    parts = meta[5:].split(";")
    if parts[0] == "":
        return ("text", AUD_PROCESS)
    canonical = AUDIO_MIME.get(ascii_lower(parts[0]))
    if canonical is None:
        return ("text", AUD_FORMAT)
    if not any(ascii_lower(p) == "base64" for p in parts[1:]):
        return ("text", AUD_PROCESS)
    if len(payload) > 69_905_068:
        return ("text", AUD_TOO_LARGE)
    data = b64_strict(payload)
    if data is None:
        return ("text", AUD_PROCESS)
    if len(data) > 52_428_800:
        return ("text", AUD_TOO_LARGE)
    new = "data:" + canonical + ";base64," + payload
    return ("url", new) if new != url else None


def placeholder(text):
    return '{"type":"input_text","text":' + ENC(text) + "}"


def media_parts(it):
    """[(parts_member_name, [(value, start, end)])] of the part lists media passes look at."""
    v = it.value
    t = v.get("type")
    if t == "message" and isinstance(v.get("content"), list):
        name = "content"
    elif t in TOOL_OUTPUTS and isinstance(v.get("output"), list):
        name = "output"
    else:
        return []
    m = walk_object(it.raw, 0)
    return [(name, walk_array(it.raw, m[name][1]))]


def r2_item(it, counts):
    edits = []
    for _, parts in media_parts(it):
        for val, a, b in parts:
            if not isinstance(val, dict):
                continue
            t = val.get("type")
            if t == "input_image":
                url = val.get("image_url")
                detail = val.get("detail")
                res, resize = prepare_image(url if is_str(url) else "", detail if is_str(detail) else None)
                counts["resize"] += resize
                key = "image_url"
            elif t == "input_audio":
                url = val.get("audio_url")
                res = prepare_audio(url if is_str(url) else "")
                key = "audio_url"
            else:
                continue
            if res is None:
                continue
            if res[0] == "text":
                edits.append((a, b, placeholder(res[1])))
                counts["replaced"] += 1
            else:
                pm = walk_object(it.raw, a)
                _, ua, ub = pm[key]
                edits.append((ua, ub, ENC(res[1])))
                counts["rewrites"] += 1
    return it.edited(edits)


# ---------------------------------------------------------------------------------------------
# §2.2 legacy compaction (core/src/compact.rs:528-717)

SUMMARY_PREFIX = ("Another language model started to solve this problem and produced a summary "
                  "of its thinking process. You also have access to the state of the tools that "
                  "were used by that language model. Use this to build on the work that has "
                  "already been done and avoid duplicating work. Here is the summary produced by "
                  "the other language model, use the information in this summary to assist with "
                  "your own analysis:")
COMPACT_BUDGET = 20_000


def _label_open(t, kind):
    return t == "<%s>" % kind or (t.startswith("<%s name=" % kind) and t[len("<%s name=" % kind):].endswith(">"))


def user_message_text(content):
    out = []
    for idx, p in enumerate(content):
        if not isinstance(p, dict) or p.get("type") != "input_text" or not is_str(p.get("text")):
            continue
        t = p["text"]
        nxt = content[idx + 1].get("type") if idx + 1 < len(content) and isinstance(content[idx + 1], dict) else None
        prv = content[idx - 1].get("type") if idx > 0 and isinstance(content[idx - 1], dict) else None
        if (_label_open(t, "image") and nxt == "input_image") or (idx > 0 and t == "</image>" and prv == "input_image"):
            continue
        if (_label_open(t, "audio") and nxt == "input_audio") or (idx > 0 and t == "</audio>" and prv == "input_audio"):
            continue
        out.append(t)
    return "".join(out)


def passthrough_raw(it):
    """',"internal_chat_message_metadata_passthrough":{...}' reduced to turn_id / create_time, or ''."""
    pt = it.value.get("internal_chat_message_metadata_passthrough")
    if not isinstance(pt, dict):
        return ""
    m = walk_object(it.raw, 0)
    _, a, _ = m["internal_chat_message_metadata_passthrough"]
    pm = walk_object(it.raw, a)
    keys = []
    for k in ("turn_id", "create_time"):
        if k in pm and pm[k][0] is not None:
            keys.append('"%s":%s' % (k, it.raw[pm[k][1]:pm[k][2]]))
    return ',"internal_chat_message_metadata_passthrough":{' + ",".join(keys) + "}"


def user_text_item(text, pt_raw=""):
    raw = '{"type":"message","role":"user","content":[{"type":"input_text","text":' + ENC(text) + "}]" + pt_raw + "}"
    return Item(parse_json_line(raw), raw, "s", "cx")


def legacy_compaction(history, message):
    collected = []
    for it in history:
        v = it.value
        if v.get("type") != "message" or v.get("role") != "user":
            continue
        content = content_list(v)
        if is_contextual_user_content(content):
            continue
        text = user_message_text(content)
        if text.startswith(SUMMARY_PREFIX + "\n"):
            continue
        collected.append((text, passthrough_raw(it)))
    selected = []
    remaining = COMPACT_BUDGET
    for text, pt in reversed(collected):
        if remaining == 0:
            break
        tokens = approx_tokens(text)
        if tokens <= remaining:
            selected.append((text, pt))
            remaining -= tokens
        else:
            selected.append((truncate_text(text, "tokens", remaining), pt))
            break
    selected.reverse()
    # Choices where the spec is silent (a lone surrogate escape, which serde_json cannot hold): a
    # collected text is decoded text, where a lone surrogate reads as U+FFFD; the summary is the
    # record's `message` as it is, its lone surrogates written as \uXXXX escapes.
    out = [user_text_item(fffd(t), pt) for t, pt in selected]
    out.append(user_text_item(message if message != "" else "(no summary available)"))
    return out


# ---------------------------------------------------------------------------------------------
# §1-§3, §9 loading and replay

CODEX_ONLY = {
    "response_item", "event_msg", "turn_context", "inter_agent_communication",
    "inter_agent_communication_metadata", "world_state", "token_usage_record", "retained_context",
    "security_risk_score", "realtime_item",
}
SHARED = {"session_meta", "compacted"}
MINI_ONLY = {"item", "rolled_back", "turn_started", "turn_completed", "turn_aborted"}
KNOWN = CODEX_ONLY | SHARED | MINI_ONLY


class ParseError(Exception):
    pass


class UnusableInput(Exception):
    pass


class State:
    def __init__(self):
        self.thread_id = None
        self.history = []
        self.open_turn = None  # (turn_id or None, line)
        self.abandoned = []
        self.parse_errors = []  # (line, reason)
        self.unknown = 0
        self.compactions = 0
        self.rollbacks = 0
        self.lines = 0
        self.torn_tail = False
        self.dialects = set()
        self.known_records = 0
        self.pre_envelope = False


def turn_id_of(obj):
    # A turn_id that is not a string (absent, null, number, ...) means "no id".
    t = obj.get("turn_id")
    return t if is_str(t) else None


def turn_start(st, tid, line):
    if st.open_turn is not None:
        st.abandoned.append(st.open_turn)
    st.open_turn = (tid, line)


def turn_end(st, tid):
    if st.open_turn is None:
        return
    open_tid = st.open_turn[0]
    if tid is None or open_tid is None or tid == open_tid:
        st.open_turn = None


def apply_record(st, s, lineno):
    """s is the decoded line text (valid UTF-8, trailing \\r removed)."""
    try:
        val = parse_json_line(s)
    except ValueError as e:
        raise ParseError(f"invalid JSON: {e}")
    if not isinstance(val, dict):
        raise ParseError("not a JSON object")
    if st.pre_envelope:
        return apply_pre_envelope(st, val, s)
    kind = val.get("type")
    if not is_str(kind):
        raise ParseError("no string `type`")
    if kind not in KNOWN:
        st.unknown += 1
        return
    st.known_records += 1
    top = walk_object(s, 0)
    has_payload = "payload" in val
    if kind in CODEX_ONLY or (kind in SHARED and has_payload):
        if not has_payload:
            raise ParseError(f"`{kind}` record without payload")
        payload = val["payload"]
        if not isinstance(payload, dict):
            raise ParseError(f"`{kind}` payload is not an object")
        st.dialects.add("codex")
        _, pa, pb = top["payload"]
        apply_codex(st, kind, payload, s, pa, pb, lineno)
    else:
        st.dialects.add("mini")
        apply_mini(st, kind, val, s, top, lineno)


def apply_pre_envelope(st, val, s):
    """§9 codex-2025: after the bare session line, state lines are skipped, typed objects are items."""
    if not is_str(val.get("type")) and val.get("record_type") == "state":
        st.known_records += 1
        return
    if not is_str(val.get("type")) and is_str(val.get("record_type")):
        st.unknown += 1  # another record_type: a kind this program does not know
        return
    if not is_str(val.get("type")):
        raise ParseError("no string `type`")
    st.known_records += 1
    if keep_item(val):
        st.history.append(Item(val, s[_ws(s, 0):len(s.rstrip(JSON_WS))], "v", "ri"))


def apply_codex(st, kind, p, s, pa, pb, lineno):
    if kind == "session_meta":
        if not (is_str(p.get("id")) and p["id"] != ""):
            raise ParseError("session_meta payload without a non-empty string `id`")
        if st.thread_id is None:
            st.thread_id = p["id"]
    elif kind == "response_item":
        if not is_str(p.get("type")):
            raise ParseError("response_item payload has no string `type`")
        if keep_item(p):
            st.history.append(Item(p, s[pa:pb], "v", "ri"))
    elif kind == "inter_agent_communication":
        st.history.append(agent_message_item(p, s[pa:pb]))
    elif kind == "compacted":
        if not is_str(p.get("message")):
            raise ParseError("compacted payload has no string `message`")
        rh = p.get("replacement_history")
        if rh is not None and not isinstance(rh, list):
            raise ParseError("compacted `replacement_history` is not an array")
        if rh is None:
            st.history = legacy_compaction(st.history, p["message"])
        else:
            members = walk_object(s, pa)
            _, ra, _ = members["replacement_history"]
            st.history = replacement_items(s, ra, "rh")
        st.compactions += 1
    elif kind == "event_msg":
        et = p.get("type")
        if not is_str(et):
            raise ParseError("event_msg payload has no string `type`")
        if et in ("task_started", "turn_started"):
            turn_start(st, turn_id_of(p), lineno)
        elif et in ("task_complete", "turn_complete", "turn_aborted"):
            turn_end(st, turn_id_of(p))
        elif et == "thread_rolled_back":
            n = p.get("num_turns")
            if is_int(n) and n > 0:
                st.history = drop_last_user_turns(st.history, n)
                st.rollbacks += 1
    # turn_context & co: no effect on history


def agent_message_item(p, praw):
    """inter_agent_communication → the agent_message Codex makes of it (to_model_input_item)."""
    try:
        checked = json.loads(praw, object_pairs_hook=_pairs_no_dup(IAC_KEYS | {"turn_id", "create_time"}),
                             parse_float=Decimal)
    except _Dup as e:
        raise ParseError(f"inter_agent_communication payload repeats `{e}`")
    if not iac_valid(checked):
        raise ParseError("inter_agent_communication payload Codex cannot read")
    m = walk_object(praw, 0)

    def raw(k):
        return praw[m[k][1]:m[k][2]]

    out = ['{"type":"agent_message"']
    if is_str(p.get("id")):
        out.append(',"id":' + raw("id"))
    out.append(',"author":' + raw("author") + ',"recipient":' + raw("recipient") + ',"content":[')
    if is_str(p.get("encrypted_content")):
        header = "Message Type: %s\nTask name: %s\nSender: %s\nPayload:\n" % (
            "NEW_TASK" if p["trigger_turn"] else "MESSAGE", p["recipient"], p["author"])
        out.append('{"type":"input_text","text":' + ENC(header) + '},{"type":"encrypted_content","encrypted_content":'
                   + raw("encrypted_content") + "}")
    else:
        out.append('{"type":"input_text","text":' + raw("content") + "}")
    out.append("]")
    pt = p.get("internal_chat_message_metadata_passthrough")
    if isinstance(pt, dict):
        pm = walk_object(praw, m["internal_chat_message_metadata_passthrough"][1])
        keys = ['"%s":%s' % (k, praw[pm[k][1]:pm[k][2]]) for k in ("turn_id", "create_time")
                if k in pm and pm[k][0] is not None]
        out.append(',"internal_chat_message_metadata_passthrough":{' + ",".join(keys) + "}")
    out.append("}")
    text = "".join(out)
    return Item(parse_json_line(text), text, "s", "cx")


def apply_mini(st, kind, val, s, top, lineno):
    if kind == "session_meta":
        tid = val.get("thread_id")
        if not (is_str(tid) and tid != ""):
            raise ParseError("session_meta without a non-empty string `thread_id`")
        if st.thread_id is None:
            st.thread_id = tid
    elif kind == "item":
        it = val.get("item")
        if not (isinstance(it, dict) and is_str(it.get("type"))):
            raise ParseError("item record without an item object with a string `type`")
        if keep_item(it):
            _, a, b = top["item"]
            st.history.append(Item(it, s[a:b], "v", "mini"))
    elif kind in ("compacted", "rolled_back"):
        rh = val.get("replacement_history")
        if not isinstance(rh, list):
            raise ParseError(f"{kind} without a `replacement_history` array")
        _, ra, _ = top["replacement_history"]
        st.history = replacement_items(s, ra, "mini")
        if kind == "compacted":
            st.compactions += 1
        else:
            st.rollbacks += 1
    elif kind == "turn_started":
        turn_start(st, turn_id_of(val), lineno)
    elif kind in ("turn_completed", "turn_aborted"):
        turn_end(st, turn_id_of(val))


def is_blank(b):
    """Blank = empty or only whitespace (Unicode White_Space when the line is UTF-8)."""
    try:
        t = b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return t.strip(UNICODE_WS) == ""


def pre_envelope_header(s):
    """The 2025 bare session line (line 1): an object with an `id` and no `type` or `payload`.
    (Choice where SPEC §9 is silent: `timestamp` is not required; an `id` that is not a non-empty
    string leaves the thread id unset and makes the line a parse error.)"""
    try:
        v = parse_json_line(s)
    except ValueError:
        return None
    if isinstance(v, dict) and "type" not in v and "payload" not in v and "id" in v:
        return v
    return None


def replay_bytes(data):
    st = State()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    parts = data.split(b"\n")
    ends_with_nl = data.endswith(b"\n")
    if ends_with_nl:
        parts = parts[:-1]  # the empty remainder after the final newline is not a line
    st.lines = len(parts)
    nonblank = 0
    for idx, raw in enumerate(parts):
        lineno = idx + 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if is_blank(raw):
            continue
        nonblank += 1
        try:
            try:
                s = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ParseError(f"invalid UTF-8: {e.reason}")
            if lineno == 1:
                hdr = pre_envelope_header(s)
                if hdr is not None:
                    st.pre_envelope = True
                    st.dialects.add("codex-2025")
                    st.known_records += 1
                    if not (is_str(hdr["id"]) and hdr["id"] != ""):
                        raise ParseError("pre-envelope session line without a non-empty string `id`")
                    st.thread_id = hdr["id"]
                    continue
            apply_record(st, s, lineno)
        except ParseError as e:
            st.parse_errors.append((lineno, str(e)))
            if lineno == len(parts) and not ends_with_nl:
                st.torn_tail = True
    if nonblank == 0:
        raise UnusableInput("empty rollout")
    if st.known_records == 0:
        raise UnusableInput("not a rollout: no record of a known kind")
    return st


# ---------------------------------------------------------------------------------------------
# §8 resume preparation and §6 prompt view

NS = uuid.UUID("90d38d3e-6a5b-4d52-bfe2-2f1e634bfac4")


def uuid5(name):
    h = hashlib.sha1(NS.bytes + name.encode("utf-8", "surrogatepass")).digest()
    return str(uuid.UUID(bytes=h[:16], version=5))


def synthetic_id(prefix, call_id_field):
    return prefix + "_" + uuid5(prefix + ":" + call_id_field)


# call type -> (output type, id prefix)
CALLS = {
    "function_call": ("function_call_output", "fco"),
    "local_shell_call": ("function_call_output", "fco"),
    "custom_tool_call": ("custom_tool_call_output", "ctco"),
    "tool_search_call": ("tool_search_output", "tso"),
}
OUTPUT_CALLS = {
    "function_call_output": ("function_call", "local_shell_call"),
    "custom_tool_call_output": ("custom_tool_call",),
    "tool_search_output": ("tool_search_call",),
}

IMAGE_TEXT = "image content omitted because you do not support image input"
AUDIO_TEXT = "audio content omitted because you do not support audio input"


def synthetic_output(call):
    v = call.value
    out_type, prefix = CALLS[v["type"]]
    m = walk_object(call.raw, 0)
    s = '{"type":"%s"' % out_type
    cid = v.get("id")
    if is_str(cid) and cid != "":
        s += ',"id":"%s"' % synthetic_id(prefix, cid)
    s += ',"call_id":' + call.raw[m["call_id"][1]:m["call_id"][2]]
    if out_type == "tool_search_output":
        s += ',"status":"completed","execution":"client","tools":[]}'
    else:
        s += ',"output":"aborted"}'
    return Item(parse_json_line(s), s, "s", "cx")


def prepare(history, policy, counts):
    """§8 R1 then R2 on the items of Codex records."""
    out = []
    for it in history:
        if policy is not None and it.origin == "ri":
            it, changed = r1_item(it, policy)
            counts["truncated"] += changed
        if it.origin in ("ri", "rh", "cx"):
            it = r2_item(it, counts)
        out.append(it)
    return out


def normalize(history, modalities, repairs=None):
    """§6 passes 1-5. Returns a new list of Items; repairs collects missing / orphan call ids."""
    items = list(history)
    answered = {k: set() for k in OUTPUT_CALLS}
    for it in items:
        t = it.value.get("type")
        if t in answered and is_str(it.value.get("call_id")):
            answered[t].add(it.value["call_id"])
    out = []
    for it in items:
        out.append(it)
        v = it.value
        t = v.get("type")
        if t in CALLS:
            cid = v.get("call_id")
            # Only a string call_id pairs; missing / null / other types get nothing.
            if is_str(cid) and cid not in answered[CALLS[t][0]]:
                out.append(synthetic_output(it))
                if repairs is not None:
                    repairs["missing_outputs"].append(cid)
    items = out

    calls = {k: set() for k in CALLS}
    for it in items:
        t = it.value.get("type")
        if t in calls and is_str(it.value.get("call_id")):
            calls[t].add(it.value["call_id"])
    out = []
    for it in items:
        v = it.value
        t = v.get("type")
        if t in OUTPUT_CALLS and "call_id" in v and v["call_id"] is not None:
            cid = v["call_id"]
            matched = is_str(cid) and any(cid in calls[c] for c in OUTPUT_CALLS[t])
            server = t == "tool_search_output" and v.get("execution") == "server"
            if not matched and not server:
                if repairs is not None:
                    repairs["orphan_outputs"].append(cid)
                continue
        out.append(it)
    items = out

    drop = []
    if "image" not in modalities:
        drop.append(("input_image", IMAGE_TEXT))
    if "audio" not in modalities:
        drop.append(("input_audio", AUDIO_TEXT))
    if drop:
        items = [strip_media(it, dict(drop), "image" not in modalities, repairs) for it in items]
    return items


def strip_media(it, drop, images, repairs):
    edits = []
    for _, parts in media_parts(it):
        for val, a, b in parts:
            if isinstance(val, dict) and val.get("type") in drop:
                edits.append((a, b, placeholder(drop[val["type"]])))
                if repairs is not None:
                    repairs["images_replaced" if val["type"] == "input_image" else "audio_replaced"] += 1
    v = it.value
    if v.get("type") == "image_generation_call" and images and "result" in v and v["result"] != "":
        # Only an existing `result` key is blanked; a missing one is not added.
        m = walk_object(it.raw, 0)
        edits.append((m["result"][1], m["result"][2], '""'))
    return it.edited(edits)


# ---------------------------------------------------------------------------------------------
# CLI-shaped entry point (also used in-process by difftest.py)

VALID_MODALITIES = ("text", "image", "audio")


def parse_modalities(s):
    parts = s.split(",")
    if not parts or any(p not in VALID_MODALITIES for p in parts):
        raise ValueError(f"invalid --modalities {s!r}: expected a comma list from text,image,audio")
    return set(parts)


def parse_truncation(s):
    if s == "none":
        return None
    m = re.match(r"(tokens|bytes):([0-9]+)\Z", s)
    if not m:
        raise ValueError(f"invalid --truncation {s!r}: expected tokens:N, bytes:N or none")
    return (m.group(1), int(m.group(2)))


DEFAULT_POLICY = ("tokens", 10000)


def dialect_name(st):
    d = st.dialects
    if "codex-2025" in d:
        return "codex-2025"
    if d == {"codex"}:
        return "codex"
    if d == {"mini"}:
        return "mini"
    return "mixed" if d else "none"


def report_dict(st):
    repairs = {"missing_outputs": [], "orphan_outputs": [], "images_replaced": 0, "audio_replaced": 0}
    counts = {"truncated": 0, "replaced": 0, "rewrites": 0, "resize": 0}
    normalize(prepare(st.history, DEFAULT_POLICY, counts), {"text", "image"}, repairs)
    inc = None
    if st.open_turn is not None:
        inc = {"turn_id": st.open_turn[0], "line": st.open_turn[1]}
    return {
        "thread_id": st.thread_id,
        "parse_errors": len(st.parse_errors),
        "error_lines": [ln for ln, _ in st.parse_errors],
        "history_items": len(st.history),
        "incomplete_turn": inc,
        "incomplete_turn_id": st.open_turn[0] if st.open_turn else None,
        "repairs": repairs,
        # extra, informational
        "dialect": dialect_name(st),
        "unknown_records": st.unknown,
        "abandoned_turns": [{"turn_id": t, "line": ln} for t, ln in st.abandoned],
        "compactions": st.compactions,
        "rollbacks": st.rollbacks,
        "torn_tail": st.torn_tail,
        "lines": st.lines,
        "errors": [{"line": ln, "reason": r} for ln, r in st.parse_errors],
        "resume_prep": counts,
    }


def run(argv, data=None):
    """Returns (exit_code, stdout_lines: list[str], kinds: list['v'|'s'|'c'], stderr: str).

    kinds per output line: 'v' verbatim source text, 's' written by the program, 'c' an edited
    source item. For `report`, stdout_lines holds one JSON text and kinds is ['s'].
    """
    if not argv:
        return 2, [], [], "usage: model.py replay|repair-view|report FILE"
    cmd, rest = argv[0], argv[1:]
    modalities = {"text", "image"}
    policy = DEFAULT_POLICY
    prep = True
    path = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in ("--modalities", "--truncation") and cmd == "repair-view" and i + 1 < len(rest):
            try:
                if a == "--modalities":
                    modalities = parse_modalities(rest[i + 1])
                else:
                    policy = parse_truncation(rest[i + 1])
            except ValueError as e:
                return 2, [], [], f"rollcall: {e}"
            i += 2
            continue
        if a == "--no-resume-prep" and cmd == "repair-view":
            prep = False
            i += 1
            continue
        if path is not None:
            return 2, [], [], "usage: too many arguments"
        path = a
        i += 1
    if cmd not in ("replay", "repair-view", "report") or path is None:
        return 2, [], [], "usage: model.py replay|repair-view|report FILE"
    if data is None:
        try:
            if path == "-":
                data = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as f:
                    data = f.read()
        except OSError as e:
            return 1, [], [], f"rollcall: {path}: {e.strerror}"
    try:
        st = replay_bytes(data)
    except UnusableInput as e:
        return 1, [], [], f"rollcall: {path}: {e}"
    if cmd == "replay":
        return 0, [it.raw for it in st.history], [it.kind for it in st.history], ""
    if cmd == "report":
        return 0, [dumps(report_dict(st))], ["s"], ""
    hist = st.history
    if prep:
        hist = prepare(hist, policy, {"truncated": 0, "replaced": 0, "rewrites": 0, "resize": 0})
    view = normalize(hist, modalities)
    return 0, [it.raw for it in view], [it.kind for it in view], ""


def main():
    code, lines, _, err = run(sys.argv[1:])
    out = sys.stdout.buffer
    for ln in lines:
        out.write(ln.encode("utf-8", "surrogatepass") + b"\n")
    out.flush()
    if err:
        print(err, file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
