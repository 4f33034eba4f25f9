#!/usr/bin/env python3
"""Independent executable model of SPEC.md §1-§6 and the JSON report of §7 (stdlib only).

Used as an oracle by scripts/difftest.py. Not part of the shipped program.

    python3 scripts/model.py replay FILE
    python3 scripts/model.py repair-view [--modalities LIST] FILE
    python3 scripts/model.py report FILE          # the keys of `rollcall replay --report --json`

Every item keeps the exact JSON text it had in its source line (a span of the line) unless the
prompt view really changes it; synthetic and changed items are re-encoded (compared by value).
"""

import hashlib
import json
import sys
import uuid
from decimal import Decimal

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
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dumps(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, Decimal):
        return str(v)
    return json.dumps(v, ensure_ascii=True)


# ---------------------------------------------------------------------------------------------
# Items


class Item:
    """A history item: parsed value + its source text (None when synthetic / re-encoded)."""

    __slots__ = ("value", "raw", "synthetic")

    def __init__(self, value, raw, synthetic=False):
        self.value = value
        self.raw = raw
        self.synthetic = synthetic

    def text(self):
        return self.raw if self.raw is not None else dumps(self.value)

    def verbatim(self):
        return self.raw is not None


def is_str(v):
    return isinstance(v, str)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def keep_item(v):
    """SPEC §4."""
    if not isinstance(v, dict):
        return False
    t = v.get("type")
    if t == "ghost_snapshot":
        return False
    if t == "message" and v.get("role") == "system":
        return False
    return True


def filtered_array(s, arr_start):
    out = []
    for val, a, b in walk_array(s, arr_start):
        if keep_item(val):
            out.append(Item(val, s[a:b]))
    return out


# ---------------------------------------------------------------------------------------------
# §2.1 user turns

FRAGMENT_MARKERS = [
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
]

# Unicode White_Space (what Rust's str::trim strips).
UNICODE_WS = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(s):
    return s.translate(_ASCII_LOWER)


def is_fragment(text):
    t = ascii_lower(text.strip(UNICODE_WS))
    for start, end in FRAGMENT_MARKERS:
        if t.startswith(ascii_lower(start)) and t.endswith(ascii_lower(end)):
            return True
    return False


def is_user_turn_message(v):
    if not isinstance(v, dict) or v.get("type") != "message" or v.get("role") != "user":
        return False
    content = v.get("content")
    if isinstance(content, list):
        for part in content:
            if (
                isinstance(part, dict)
                and part.get("type") == "input_text"
                and is_str(part.get("text"))
                and is_fragment(part["text"])
            ):
                return False
    return True


def drop_last_user_turns(history, n):
    pos = [i for i, it in enumerate(history) if is_user_turn_message(it.value)]
    if not pos:
        return history
    if n >= len(pos):
        return history[: pos[0]]
    return history[: pos[len(pos) - n]]


# ---------------------------------------------------------------------------------------------
# §1-§3 loading and replay

CODEX_ONLY = {
    "response_item",
    "event_msg",
    "turn_context",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "world_state",
    "token_usage_record",
    "retained_context",
    "security_risk_score",
    "realtime_item",
}
SHARED = {"session_meta", "compacted"}
MINI_ONLY = {"item", "rolled_back", "turn_started", "turn_completed", "turn_aborted"}


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


def turn_id_of(obj):
    # Decision: a turn_id that is not a string (absent, null, number, ...) means "no id".
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


def legacy_compaction(st, message):
    kept = [it for it in st.history if is_user_turn_message(it.value)]
    summary = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": message}]}
    st.history = kept + [Item(summary, None, synthetic=True)]


def apply_record(st, s, lineno):
    """s is the decoded line text (valid UTF-8, trailing \\r removed)."""
    try:
        val = parse_json_line(s)
    except ValueError as e:
        raise ParseError(f"invalid JSON: {e}")
    if not isinstance(val, dict):
        raise ParseError("not a JSON object")
    kind = val.get("type")
    if not is_str(kind):
        raise ParseError("no string `type`")
    if kind not in CODEX_ONLY and kind not in SHARED and kind not in MINI_ONLY:
        st.unknown += 1
        return
    top = walk_object(s, _ws(s, 0))
    has_payload = "payload" in val
    if kind in CODEX_ONLY or (kind in SHARED and has_payload):
        if not has_payload:
            raise ParseError(f"`{kind}` record without payload")
        payload = val["payload"]
        if not isinstance(payload, dict):
            raise ParseError(f"`{kind}` payload is not an object")
        st.dialects.add("codex")
        _, pa, _ = top["payload"]
        apply_codex(st, kind, payload, s, pa, lineno)
    else:
        st.dialects.add("mini")
        apply_mini(st, kind, val, s, top, lineno)


def apply_codex(st, kind, p, s, pa, lineno):
    if kind == "session_meta":
        if not (is_str(p.get("id")) and p["id"] != ""):
            raise ParseError("session_meta payload without a non-empty string `id`")
        if st.thread_id is None:
            st.thread_id = p["id"]
    elif kind == "response_item":
        if not is_str(p.get("type")):
            raise ParseError("response_item payload has no string `type`")
        if keep_item(p):
            _, a, b = walk_object_span(s, pa)
            st.history.append(Item(p, s[a:b]))
    elif kind == "compacted":
        if not is_str(p.get("message")):
            raise ParseError("compacted payload has no string `message`")
        rh = p.get("replacement_history")
        # Decision: `"replacement_history": null` is the same as absent (legacy compaction).
        if rh is not None and not isinstance(rh, list):
            raise ParseError("compacted `replacement_history` is not an array")
        if rh is None:
            legacy_compaction(st, p["message"])
        else:
            members = walk_object(s, pa)
            _, ra, _ = members["replacement_history"]
            st.history = filtered_array(s, ra)
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
    else:
        pass  # turn_context & co: no effect on history


def walk_object_span(s, start):
    val, end = _DEC.raw_decode(s, start)
    return val, start, end


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
            st.history.append(Item(it, s[a:b]))
    elif kind in ("compacted", "rolled_back"):
        rh = val.get("replacement_history")
        if not isinstance(rh, list):
            raise ParseError(f"{kind} without a `replacement_history` array")
        _, ra, _ = top["replacement_history"]
        st.history = filtered_array(s, ra)
        if kind == "compacted":
            st.compactions += 1
        else:
            st.rollbacks += 1
    elif kind == "turn_started":
        turn_start(st, turn_id_of(val), lineno)
    elif kind in ("turn_completed", "turn_aborted"):
        turn_end(st, turn_id_of(val))


def is_blank(b):
    """Blank = empty or only whitespace. Decision: Unicode White_Space when the line is UTF-8."""
    try:
        t = b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return t.strip(UNICODE_WS) == ""


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
            apply_record(st, s, lineno)
        except ParseError as e:
            st.parse_errors.append((lineno, str(e)))
            if lineno == len(parts) and not ends_with_nl:
                st.torn_tail = True
    if nonblank == 0:
        raise UnusableInput("empty rollout")
    if st.thread_id is None:
        raise UnusableInput("no session_meta record: cannot tell which thread this is")
    return st


# ---------------------------------------------------------------------------------------------
# §6 prompt view

NS = uuid.UUID("90d38d3e-6a5b-4d52-bfe2-2f1e634bfac4")


def uuid5(name):
    h = hashlib.sha1(NS.bytes + name.encode("utf-8", "surrogatepass")).digest()
    return str(uuid.UUID(bytes=h[:16], version=5))


def synthetic_id(prefix, call_id_field):
    return prefix + "_" + uuid5(prefix + ":" + call_id_field)


# call type -> (output type, id prefix, call_id must be string)
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
    t = call["type"]
    out_type, prefix = CALLS[t]
    o = {"type": out_type}
    cid = call.get("id")
    if is_str(cid) and cid != "":
        o["id"] = synthetic_id(prefix, cid)
    o["call_id"] = call["call_id"]
    if out_type == "tool_search_output":
        o.update({"status": "completed", "execution": "client", "tools": []})
    else:
        o["output"] = "aborted"
    return o


def normalize(history, modalities, repairs=None):
    """Returns a new list of Items. repairs (dict) collects missing_outputs / orphan_outputs."""
    items = list(history)
    vals = [it.value for it in items]

    # 1. missing outputs
    answered = {k: set() for k in OUTPUT_CALLS}
    for v in vals:
        t = v.get("type")
        if t in answered and is_str(v.get("call_id")):
            answered[t].add(v["call_id"])
    out = []
    for it in items:
        out.append(it)
        v = it.value
        t = v.get("type")
        if t in CALLS:
            cid = v.get("call_id")
            # Decision: only a string call_id pairs; missing / null / other types get nothing.
            if is_str(cid) and cid not in answered[CALLS[t][0]]:
                out.append(Item(synthetic_output(v), None, synthetic=True))
                if repairs is not None:
                    repairs["missing_outputs"].append(cid)
    items = out

    # 3. orphan outputs
    calls = {k: set() for k in CALLS}
    for it in items:
        v = it.value
        t = v.get("type")
        if t in calls and is_str(v.get("call_id")):
            calls[t].add(v["call_id"])
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

    # 4./5. media
    drop = []
    if "image" not in modalities:
        drop.append(("input_image", IMAGE_TEXT))
    if "audio" not in modalities:
        drop.append(("input_audio", AUDIO_TEXT))
    if drop:
        items = [strip_media(it, drop, "image" not in modalities) for it in items]
    return items


def _strip_parts(parts, drop):
    changed = False
    new = []
    for p in parts:
        rep = None
        if isinstance(p, dict):
            for ptype, text in drop:
                if p.get("type") == ptype:
                    rep = {"type": "input_text", "text": text}
        if rep is not None:
            new.append(rep)
            changed = True
        else:
            new.append(p)
    return new, changed


def strip_media(it, drop, images):
    v = it.value
    t = v.get("type")
    nv = None
    if t == "message" and isinstance(v.get("content"), list):
        parts, changed = _strip_parts(v["content"], drop)
        if changed:
            nv = dict(v)
            nv["content"] = parts
    elif t in ("function_call_output", "custom_tool_call_output") and isinstance(v.get("output"), list):
        parts, changed = _strip_parts(v["output"], drop)
        if changed:
            nv = dict(v)
            nv["output"] = parts
    elif t == "image_generation_call" and images:
        # Decision: only an existing `result` key is blanked; a missing one is not added.
        if "result" in v and v["result"] != "":
            nv = dict(v)
            nv["result"] = ""
    if nv is None:
        return it
    return Item(nv, None, synthetic=False)


# ---------------------------------------------------------------------------------------------
# CLI-shaped entry point (also used in-process by difftest.py)

VALID_MODALITIES = ("text", "image", "audio")


def parse_modalities(s):
    parts = s.split(",")
    if not parts or any(p not in VALID_MODALITIES for p in parts):
        raise ValueError(f"invalid --modalities {s!r}: expected a comma list from text,image,audio")
    return set(parts)


def report_dict(st):
    repairs = {"missing_outputs": [], "orphan_outputs": []}
    normalize(st.history, {"text", "image"}, repairs)
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
        "unknown_records": st.unknown,
        "abandoned_turns": [{"turn_id": t, "line": ln} for t, ln in st.abandoned],
        "compactions": st.compactions,
        "rollbacks": st.rollbacks,
        "torn_tail": st.torn_tail,
        "lines": st.lines,
        "errors": [{"line": ln, "reason": r} for ln, r in st.parse_errors],
    }


def run(argv, data=None):
    """Returns (exit_code, stdout_lines: list[str], kinds: list['v'|'s'|'c'], stderr: str).

    kinds per output line: 'v' verbatim source text, 's' synthetic, 'c' changed (re-encoded).
    For `report`, stdout_lines holds one JSON text and kinds is ['s'].
    """
    if not argv:
        return 2, [], [], "usage: model.py replay|repair-view|report FILE"
    cmd, rest = argv[0], argv[1:]
    modalities = {"text", "image"}
    path = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--modalities" and cmd == "repair-view" and i + 1 < len(rest):
            try:
                modalities = parse_modalities(rest[i + 1])
            except ValueError as e:
                return 2, [], [], f"rollcall: {e}"
            i += 2
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
        return 0, [it.text() for it in st.history], ["v" if it.verbatim() else "s" for it in st.history], ""
    if cmd == "report":
        return 0, [dumps(report_dict(st))], ["s"], ""
    view = normalize(st.history, modalities)
    kinds = ["v" if it.verbatim() else ("s" if it.synthetic else "c") for it in view]
    return 0, [it.text() for it in view], kinds, ""


def main():
    code, lines, _, err = run(sys.argv[1:])
    out = sys.stdout.buffer
    for ln in lines:
        out.write(ln.encode("utf-8") + b"\n")
    out.flush()
    if err:
        print(err, file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
