#!/usr/bin/env python3
"""Generate small Claude Code transcripts for the live check (scripts/live/claude.py).

Usage:
    python3 scripts/live/gen_claude.py OUTDIR [--seed N]

Writes OUTDIR/<case>/<session id>.jsonl (one folder per case, so claude.py can name its results by
case) and OUTDIR/cases.tsv (case, session id, one-line description). Deterministic for a seed.
The entries copy the field layout of the real transcripts in fixtures/claude/real_* (user and
assistant entries with parentUuid/isSidechain/userType/cwd/sessionId/version/gitBranch, one
assistant entry per content block sharing message.id, tool results with toolUseResult and
sourceToolAssistantUUID, attachments, compact boundaries with logicalParentUuid).

Families (each in several seeded variants): clean sessions, branches (written-last vs latest
timestamp vs last-prompt.leafUuid), dangling parents, duplicate uuids, unanswered tool calls and
orphan tool results at start/middle/end, compaction boundaries, inline sidechains, attachments,
thinking with and without a model change, huge numbers, `Task` tool names, whitespace-only
assistant text, consecutive user entries, system entries, synthetic API-error replies,
SendMessage inputs, tool references, flagged (isMeta, ...) entries.
Stdlib only.
"""

import argparse
import datetime
import json
import os
import random
import uuid as uuidlib

CWD = "/home/dev/src/tidepool"
VERSION = "2.1.97"
CUR_MODEL = "claude-opus-4-6"       # a model the client still serves (kept on resume)
OLD_MODEL = "claude-opus-4-5-20251101"
RETIRED_MODEL = "claude-sonnet-4-20250514"  # retired: the client resumes with its default


class Session:
    def __init__(self, rng, model=CUR_MODEL):
        self.rng = rng
        self.sid = self.uuid()
        self.lines = []
        self.last = None
        self.t = datetime.datetime(2026, 3, 2, 9, 14, 20, tzinfo=datetime.timezone.utc)
        self.model = model

    def uuid(self):
        return str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))

    def msg_id(self):
        return "msg_01" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789")
                                  for _ in range(22))

    def tool_id(self):
        return "toolu_01" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789")
                                    for _ in range(22))

    def ts(self, at=None):
        if at is not None:
            return at
        self.t += datetime.timedelta(milliseconds=self.rng.randint(300, 4000))
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (self.t.microsecond // 1000)

    def base(self, parent, sidechain=False):
        return {"parentUuid": self.last if parent == "auto" else parent, "isSidechain": sidechain,
                "userType": "external", "cwd": CWD, "sessionId": self.sid, "version": VERSION,
                "gitBranch": "main"}

    def add(self, e, raw=None):
        self.lines.append(raw if raw is not None else json.dumps(e, ensure_ascii=False, separators=(",", ":")))
        if e is not None and e.get("uuid"):
            self.last = e["uuid"]
        return e.get("uuid") if e else None

    def user(self, content, parent="auto", at=None, sidechain=False, uid=None, **extra):
        e = self.base(parent, sidechain)
        e.update({"type": "user", "message": {"role": "user", "content": content},
                  "uuid": uid or self.uuid(), "timestamp": self.ts(at)})
        e.update(extra)
        return self.add(e)

    def assistant(self, blocks, parent="auto", model=None, at=None, sidechain=False, mid=None,
                  stop="end_turn", **extra):
        """One entry per block, sharing message.id (as Claude Code writes them). Returns the uuids."""
        mid = mid or self.msg_id()
        uuids = []
        for i, b in enumerate(blocks):
            e = self.base(parent if i == 0 else "auto", sidechain)
            e.update({"message": {"model": model or self.model, "id": mid, "type": "message",
                                  "role": "assistant", "content": [b],
                                  "stop_reason": stop if i == len(blocks) - 1 else None,
                                  "stop_sequence": None,
                                  "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1184,
                                            "cache_read_input_tokens": 18230, "output_tokens": 96,
                                            "service_tier": "standard"}},
                      "requestId": "req_011C" + mid[6:20], "type": "assistant",
                      "uuid": self.uuid(), "timestamp": self.ts(at)})
            e.update(extra)
            uuids.append(self.add(e))
        return uuids

    def result(self, tool_id, text="ok", parent="auto", is_error=False, at=None, sidechain=False,
               extra_blocks=(), uid=None):
        blocks = [{"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": is_error}]
        blocks += list(extra_blocks)
        e = self.base(parent, sidechain)
        e.update({"type": "user", "message": {"role": "user", "content": blocks},
                  "uuid": uid or self.uuid(), "timestamp": self.ts(at),
                  "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False, "isImage": False},
                  "sourceToolAssistantUUID": self.last if parent == "auto" else parent})
        return self.add(e)

    def attachment(self, att, parent="auto", at=None):
        e = self.base(parent)
        e.update({"attachment": att, "type": "attachment", "uuid": self.uuid(), "timestamp": self.ts(at),
                  "entrypoint": "cli"})
        return self.add(e)

    def system(self, subtype, content, parent="auto", at=None, **extra):
        e = self.base(parent)
        e.update({"type": "system", "subtype": subtype, "content": content, "isMeta": False,
                  "timestamp": self.ts(at), "uuid": self.uuid(), "level": "info"})
        e.update(extra)
        return self.add(e)

    def meta(self, e):
        e.setdefault("sessionId", self.sid)
        return self.add(e)

    def tool(self, name="Bash", inp=None):
        return {"type": "tool_use", "id": self.tool_id(), "name": name,
                "input": inp if inp is not None else {"command": "ls", "description": "List files"}}

    def text(self, s):
        return {"type": "text", "text": s}

    def snapshot(self):
        mid = self.uuid()
        self.lines.append(json.dumps({"type": "file-history-snapshot", "messageId": mid, "snapshot": {
            "messageId": mid, "trackedFileBackups": {}, "timestamp": self.ts()}, "isSnapshotUpdate": False},
            separators=(",", ":")))

    def turn(self, prompt, reply, tools=0):
        """A complete turn: prompt, optional tool round trip, final text."""
        self.user(prompt)
        if tools:
            calls = [self.tool("Read", {"file_path": "%s/src/f%d.rs" % (CWD, i)}) for i in range(tools)]
            ids = self.assistant([self.text("Reading.")] + calls, stop="tool_use")
            for c in calls:
                self.result(c["id"], "     1→fn f() {}\n", parent=ids[-1])
        self.assistant([self.text(reply)])


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def words(rng, n=4):
    return " ".join(rng.choice(WORDS) for _ in range(n))


# ---------------------------------------------------------------------------------------------
# Case families. Each takes (rng, variant) and returns (Session, description).


def c_clean(rng, v):
    s = Session(rng)
    s.snapshot()
    for i in range(1 + v % 3):
        s.turn("Question %d: %s?" % (i, words(rng)), "Answer %d: %s." % (i, words(rng)), tools=(v + i) % 3)
    return s, "clean session, %d turns" % (1 + v % 3)


def c_branch(rng, v):
    """Two leaves from one fork point; which is written last, which is latest, last-prompt."""
    s = Session(rng)
    s.turn("Write a haiku about rust.", "Iron oxide blooms...")
    fork = s.last
    base_t = s.t
    t_a = (base_t + datetime.timedelta(seconds=10 if v % 2 == 0 else 100)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    t_b = (base_t + datetime.timedelta(seconds=100 if v % 2 == 0 else 10)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    a1 = s.user("Branch A: make it rhyme.", parent=fork, at=t_a)
    a2 = s.assistant([s.text("Branch A reply.")], at=t_a)[-1]
    b1 = s.user("Branch B: make it about metal.", parent=fork, at=t_b)
    b2 = s.assistant([s.text("Branch B reply.")], at=t_b)[-1]
    desc = "two leaves: A written first (%s), B written last (%s)" % (
        "earlier" if v % 2 == 0 else "later", "later" if v % 2 == 0 else "earlier")
    lp = (v // 2) % 3
    if lp == 1:
        s.meta({"type": "last-prompt", "lastPrompt": "Branch A: make it rhyme.", "leafUuid": a2})
        desc += "; last-prompt.leafUuid = A"
    elif lp == 2:
        s.meta({"type": "last-prompt", "lastPrompt": "Branch B: make it about metal.", "leafUuid": b2})
        desc += "; last-prompt.leafUuid = B"
    if (v // 6) % 2 == 1:
        # a progress/attachment leaf hanging off branch A, written last
        s.attachment({"type": "hook_success", "hookName": "Stop", "toolUseID": s.uuid(), "hookEvent": "Stop",
                      "content": "", "stdout": "", "stderr": "", "exitCode": 0, "command": "true",
                      "durationMs": 5}, parent=a2, at=t_a)
        desc += "; attachment leaf under A written last"
    return s, desc


def c_branch_len(rng, v):
    """A short branch written last vs a long branch with the latest timestamp."""
    s = Session(rng)
    s.turn("Start.", "Started.")
    fork = s.last
    s.user("Long branch 1.", parent=fork)
    s.assistant([s.text("L1.")])
    s.user("Long branch 2.")
    s.assistant([s.text("L2.")])
    late = s.t
    if v % 2 == 0:
        at = (late - datetime.timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    else:
        at = (late + datetime.timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    s.user("Short branch.", parent=fork, at=at)
    s.assistant([s.text("S1.")], at=at)
    return s, "long branch then short branch written last, short is %s" % ("older" if v % 2 == 0 else "newer")


def c_dangling(rng, v):
    s = Session(rng)
    where = v % 3
    if where == 0:
        s.user("Hello after a lost parent.", parent=s.uuid())
        s.assistant([s.text("Hi.")])
        desc = "root's parent missing"
    else:
        s.turn("First.", "One.")
        if where == 1:
            s.user("Second, parent missing.", parent=s.uuid())
            s.assistant([s.text("Two.")])
            desc = "mid-chain parent missing"
        else:
            s.user("Second.")
            s.assistant([s.text("Two.")], parent=s.uuid())
            desc = "last assistant's parent missing"
    return s, desc


def c_dup(rng, v):
    s = Session(rng)
    uid = s.uuid()
    s.user("Original text %d." % v, uid=uid)
    s.assistant([s.text("Reply to original.")])
    if v % 3 == 0:
        s.user("Duplicate copy text %d." % v, parent=None, uid=uid)
        desc = "root uuid repeated later with other text"
    elif v % 3 == 1:
        s.user("Next.")
        a = s.assistant([s.text("Next reply.")])
        dup = dict(json.loads(s.lines[-1]))
        dup["message"] = dict(dup["message"], content=[s.text("Duplicate assistant text.")])
        s.add(dup)
        desc = "last assistant uuid repeated with other text"
    else:
        s.user("Duplicate copy text %d." % v, parent=None, uid=uid)
        s.user("Continue.", parent=uid)
        s.assistant([s.text("Continued.")])
        desc = "root uuid repeated, chain continues after"
    return s, desc


def c_unanswered(rng, v):
    s = Session(rng)
    s.user("Do the thing.")
    where, kind = v % 3, (v // 3) % 3
    calls = [s.tool("Bash", {"command": "echo %d" % i, "description": "Echo"}) for i in range(1 + (kind > 0))]
    blocks = ([s.text("Working on it.")] if v % 2 else []) + calls
    ids = s.assistant(blocks, stop="tool_use")
    if kind == 2:
        s.result(calls[0]["id"], "0\n", parent=ids[-1])
    desc = "%d call(s), %s answered" % (len(calls), "one" if kind == 2 else "none")
    if where == 0:
        desc += ", at end"
    elif where == 1:
        s.user("Never mind, do something else.")
        s.assistant([s.text("Sure.")])
        desc += ", then a new prompt (middle)"
    else:
        s.assistant([s.text("I will wait for the result.")])
        s.user("ok")
        s.assistant([s.text("Done.")])
        desc += ", then an assistant text (middle)"
    if v % 2:
        desc += ", with text before"
    return s, "unanswered tool_use: " + desc


def c_orphan(rng, v):
    s = Session(rng)
    where = v % 3
    with_text = (v // 3) % 2
    extra = [s.text("And also this.")] if with_text else []
    if where == 0:
        s.result(s.tool_id(), "orphan output", parent=None, extra_blocks=extra)
        s.assistant([s.text("Reply after orphan.")])
        s.user("Next.")
        s.assistant([s.text("Ok.")])
        desc = "at start"
    elif where == 1:
        s.turn("First.", "One.")
        s.result(s.tool_id(), "orphan output", extra_blocks=extra)
        s.assistant([s.text("Reply after orphan.")])
        desc = "in the middle, after an assistant text"
    else:
        s.turn("First.", "One.")
        s.result(s.tool_id(), "orphan output", extra_blocks=extra)
        desc = "at end"
    if (v // 6) % 2:
        # the orphan follows a user prompt (two user entries in a row)
        s2 = Session(rng)
        s2.turn("First.", "One.")
        s2.user("Prompt before orphan.")
        s2.result(s2.tool_id(), "orphan output", extra_blocks=extra)
        s2.assistant([s2.text("Reply.")])
        return s2, "orphan tool_result after a user prompt" + (", with text" if with_text else "")
    return s, "orphan tool_result " + desc + (", with text" if with_text else "")


def c_orphan_wrong_id(rng, v):
    """A result answering a real call, plus one with an id of an older call."""
    s = Session(rng)
    s.user("Run two things.")
    c1 = s.tool()
    ids = s.assistant([c1], stop="tool_use")
    s.result(c1["id"], "done 1", parent=ids[-1])
    c2 = s.tool("Bash", {"command": "pwd", "description": "pwd"})
    ids2 = s.assistant([c2], stop="tool_use")
    blocks_first = v % 2
    e = s.base("auto")
    content = [{"tool_use_id": c1["id"], "type": "tool_result", "content": "stale", "is_error": False},
               {"tool_use_id": c2["id"], "type": "tool_result", "content": "done 2", "is_error": False}]
    if blocks_first:
        content.reverse()
    e.update({"type": "user", "message": {"role": "user", "content": content}, "uuid": s.uuid(),
              "timestamp": s.ts()})
    s.add(e)
    s.assistant([s.text("Both done.")])
    return s, "a result for an earlier call next to the right one (%s first)" % ("right" if blocks_first else "stale")


def c_compact(rng, v):
    s = Session(rng, model=OLD_MODEL)
    s.turn("Before compaction.", "Old reply.", tools=v % 2)
    pre = s.last
    b = s.system("compact_boundary", "Conversation compacted", parent=None,
                 logicalParentUuid=pre, compactMetadata={"trigger": "auto", "preTokens": 155872})
    s.user("This session is being continued from a previous conversation that ran out of context. "
           "The conversation is summarized below:\nSummary %d." % v, parent=b, isCompactSummary=True,
           isVisibleInTranscriptOnly=True)
    desc = "compact boundary + summary"
    if v % 3 == 1:
        s.user("<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n"
               "            <command-args></command-args>", isMeta=False)
        desc += " + /compact command entry"
    if v % 3 != 2:
        s.turn("After compaction.", "New reply.")
    else:
        desc += ", ends at the summary"
    return s, desc


def c_sidechain(rng, v):
    s = Session(rng)
    s.user("Use a subagent to look around.")
    call = s.tool("Task" if v % 2 == 0 else "Agent", {"description": "Look", "prompt": "Look around",
                                                    "subagent_type": "general-purpose"})
    ids = s.assistant([call], stop="tool_use")
    top = s.last
    # inline sidechain entries (older clients wrote them into the same file)
    s.user("Look around", parent=None, sidechain=True)
    side = s.assistant([s.text("Side reply.")], sidechain=True)[-1]
    if v % 3 == 1:
        s.result(call["id"], "subagent says hi", parent=side)
        desc = ", the result's parent is the sidechain's last entry"
    else:
        s.result(call["id"], "subagent says hi", parent=top)
        desc = ""
    s.assistant([s.text("The subagent said hi.")])
    return s, "inline sidechain, tool %s%s" % (call["name"], desc)


def c_attachments(rng, v):
    s = Session(rng)
    s.turn("First.", "One.")
    kind = v % 5
    if kind == 0:
        att = {"type": "hook_additional_context", "content": ["extra context %d" % v],
               "hookName": "UserPromptSubmit", "toolUseID": s.uuid(), "hookEvent": "UserPromptSubmit"}
    elif kind == 1:
        att = {"type": "queued_command", "prompt": "then tag the release", "commandMode": "prompt"}
    elif kind == 2:
        att = {"type": "date_change", "newDate": "2026-03-03"}
    elif kind == 3:
        att = {"type": "hook_success", "hookName": "PostToolUse", "toolUseID": s.uuid(),
               "hookEvent": "PostToolUse", "content": "", "stdout": "ok", "stderr": "", "exitCode": 0,
               "command": "true", "durationMs": 3}
    else:
        att = {"type": "todo_reminder", "content": [], "itemCount": 0}
    where = (v // 5) % 2
    if where == 0:
        s.user("Second.")
        s.attachment(att)
        s.assistant([s.text("Two.")])
        desc = "after a prompt"
    else:
        c = s.tool()
        s.user("Second.")
        ids = s.assistant([c], stop="tool_use")
        s.result(c["id"], "out", parent=ids[-1])
        s.attachment(att)
        s.assistant([s.text("Two.")])
        desc = "after a tool result"
    if v >= 10:
        s.attachment(dict(att))
        desc += ", and one more at the end"
    return s, "attachment %s %s" % (att["type"], desc)


def c_thinking(rng, v):
    """Thinking blocks; the writer model vs the last model; retired models."""
    models = [(CUR_MODEL, CUR_MODEL), (OLD_MODEL, CUR_MODEL), (CUR_MODEL, OLD_MODEL),
              (RETIRED_MODEL, RETIRED_MODEL), (CUR_MODEL, RETIRED_MODEL), (OLD_MODEL, OLD_MODEL)]
    m1, m2 = models[v % len(models)]
    s = Session(rng)
    s.user("Think about it.")
    s.assistant([{"type": "thinking", "thinking": "Let me think %d." % v, "signature": "Eq" + "A" * 40},
                 s.text("Thought.")], model=m1)
    s.user("Again.")
    blocks = [s.text("Done again.")]
    if v % 2 == 0:
        blocks.insert(0, {"type": "thinking", "thinking": "Second thought.", "signature": "Eq" + "B" * 40})
    if v >= 6:
        blocks.insert(0, {"type": "redacted_thinking", "data": "EmwKAhgB" + "C" * 30})
    s.assistant(blocks, model=m2)
    return s, "thinking by %s, last assistant %s%s" % (m1, m2, ", redacted_thinking" if v >= 6 else "")


def c_numbers(rng, v):
    s = Session(rng)
    s.user("Use numbers.")
    c = s.tool("Bash", {"command": "echo", "description": "n", "timeout": 0})
    ids = s.assistant([c], stop="tool_use")
    # splice the literal number in as text (Python would re-encode some)
    lit = {0: "12345678901234567890", 1: "9007199254740993", 2: "1.0", 3: "1.5e300", 4: "-0.0",
           5: "0.1", 6: "123456789012345678901234567890", 7: "1e21", 8: "1e-7", 9: "100.50"}[v % 10]
    for i in range(len(s.lines) - 1, -1, -1):
        if '"timeout":0' in s.lines[i]:
            s.lines[i] = s.lines[i].replace('"timeout":0', '"timeout":' + lit)
            break
    s.result(c["id"], "ok", parent=ids[-1])
    s.assistant([s.text("Done.")])
    return s, "number literal %s in a tool_use input" % lit


def c_task_name(rng, v):
    s = Session(rng)
    s.user("Delegate.")
    names = ["Task", "Agent", "TaskCreate", "Task"]
    call = s.tool(names[v % 4], {"description": "d", "prompt": "p", "subagent_type": "Explore"})
    ids = s.assistant([s.text("Delegating.")] + ([call] if v % 2 == 0 else [call, s.tool("Task", {"description": "e", "prompt": "q", "subagent_type": "Plan"})]), stop="tool_use")
    for line in list(s.lines):
        e = json.loads(line)
        for blk in (e.get("message") or {}).get("content") or []:
            if isinstance(blk, dict) and blk.get("type") == "tool_use":
                s.result(blk["id"], "agent finished", parent=ids[-1])
    s.assistant([s.text("Delegated.")])
    return s, "tool_use named %s%s" % (names[v % 4], " + Task" if v % 2 else "")


def c_whitespace(rng, v):
    s = Session(rng)
    s.user("Go.")
    texts = ["  ", "\n\n", "", " \t\n", "x"]
    t = texts[v % len(texts)]
    if v % 2 == 0:
        s.assistant([s.text(t)])
        s.assistant([s.text("Real reply.")])
        desc = "separate whitespace-only assistant response before a real one"
    else:
        c = s.tool()
        ids = s.assistant([s.text(t), c], stop="tool_use")
        s.result(c["id"], "out", parent=ids[-1])
        s.assistant([s.text("Done.")])
        desc = "whitespace-only text block in the same response as a tool_use"
    if v >= 5:
        s.user("More.")
        s.assistant([s.text(t)])
        desc += "; ends with a whitespace-only response"
    return s, "%s (%r)" % (desc, t)


def c_consecutive_users(rng, v):
    s = Session(rng)
    s.turn("First.", "One.")
    forms = [
        ("Second A.", "Second B."),
        ("Second A.", [{"type": "text", "text": "Second B."}]),
        ([{"type": "text", "text": "A1."}, {"type": "text", "text": "A2."}], "B."),
        ("[Request interrupted by user]", "Actually do this."),
        ("Second A.", [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                       "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}}]),
        ("<command-name>/clear</command-name>", "<local-command-stdout></local-command-stdout>"),
    ]
    a, b = forms[v % len(forms)]
    s.user(a)
    s.user(b)
    if v < len(forms):
        s.assistant([s.text("Two.")])
        desc = "then a reply"
    else:
        desc = "at the end"
    return s, "consecutive user entries %s + %s, %s" % (json.dumps(a)[:30], json.dumps(b)[:30], desc)


def c_system_entries(rng, v):
    s = Session(rng)
    s.turn("First.", "One.")
    kinds = [
        ("informational", "Some info.", {}),
        ("api_error", "API Error", {"level": "error", "error": {"status": 529}, "retryInMs": 500, "retryAttempt": 1, "maxRetries": 10}),
        ("local_command", "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>", {}),
        ("local_command", "<local-command-stdout>Set model to opus</local-command-stdout>", {}),
        ("turn_duration", "", {"durationMs": 1234}),
        ("stop_hook_summary", "", {"hookCount": 1, "hookInfos": [], "hookErrors": [], "preventedContinuation": False}),
        ("compact_boundary_micro", "Context microcompacted", {}),
    ]
    sub, content, extra = kinds[v % len(kinds)]
    where = (v // len(kinds)) % 2
    if where == 0:
        s.system(sub, content, **extra)
        s.user("Second.")
        s.assistant([s.text("Two.")])
    else:
        s.user("Second.")
        s.system(sub, content, **extra)
        s.assistant([s.text("Two.")])
    return s, "system entry %s %s" % (sub, "after a reply" if where == 0 else "between prompt and reply")


def c_api_error(rng, v):
    s = Session(rng)
    s.turn("First.", "One.")
    s.user("Second.")
    err = {"parentUuid": s.last, "isSidechain": False, "userType": "external", "cwd": CWD,
           "sessionId": s.sid, "version": VERSION, "gitBranch": "main", "type": "assistant",
           "uuid": s.uuid(), "timestamp": s.ts(),
           "message": {"id": str(uuidlib.UUID(int=rng.getrandbits(128))), "container": None,
                       "model": "<synthetic>", "role": "assistant", "stop_reason": "stop_sequence",
                       "stop_sequence": "", "type": "message",
                       "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": 0},
                       "content": [{"type": "text", "text": ["API Error: 529 Overloaded", "Prompt is too long",
                                                             "API Error: Request was aborted."][v % 3]}]},
           "isApiErrorMessage": True}
    if v % 3 == 2:
        err.pop("isApiErrorMessage")
    s.add(err)
    if v >= 3:
        s.user("Try again.")
        s.assistant([s.text("Two.")])
        desc = "then a retry prompt"
    else:
        desc = "at the end"
    return s, "synthetic API-error reply %r %s" % (err["message"]["content"][0]["text"], desc)


def c_sendmessage(rng, v):
    s = Session(rng)
    s.user("Tell the team.")
    inputs = [{"type": "message", "recipient": "alice", "content": "hi", "summary": "greet"},
              {"to": "alice", "message": "hi", "summary": "greet"},
              {"type": "broadcast", "content": "all hands"},
              {"recipient": "bob", "content": "x", "other": 1}]
    c = s.tool("SendMessage", inputs[v % 4])
    ids = s.assistant([c], stop="tool_use")
    s.result(c["id"], "sent", parent=ids[-1])
    s.assistant([s.text("Sent.")])
    return s, "SendMessage input %s" % json.dumps(inputs[v % 4])


def c_tool_reference(rng, v):
    s = Session(rng)
    s.user("Find a tool.")
    names = ["WebFetch", "NotebookEdit", "mcp__gone__tool", "Read"]
    c = s.tool("ToolSearch", {"query": "select:" + names[v % 4], "max_results": 1})
    ids = s.assistant([c], stop="tool_use")
    e = s.base("auto")
    content = [{"type": "tool_result", "tool_use_id": c["id"],
                "content": [{"type": "tool_reference", "tool_name": names[v % 4]}]}]
    if v >= 4:
        content[0]["content"].append({"type": "text", "text": "extra"})
    e.update({"type": "user", "message": {"role": "user", "content": content}, "uuid": s.uuid(),
              "timestamp": s.ts(), "toolUseResult": {"matches": [names[v % 4]], "query": "select:x"},
              "sourceToolAssistantUUID": ids[-1]})
    s.add(e)
    s.assistant([s.text("Loaded.")])
    return s, "tool_reference to %s%s" % (names[v % 4], " + text" if v >= 4 else "")


def c_flags(rng, v):
    s = Session(rng)
    flags = [{"isMeta": True}, {"isVisibleInTranscriptOnly": True}, {"isCompactSummary": True},
             {"isMeta": True, "isVisibleInTranscriptOnly": True}]
    f = flags[v % 4]
    s.user("Caveat: The messages below were generated by the user while running local commands. DO NOT "
           "respond to these messages or otherwise consider them in your response unless the user "
           "explicitly asks you to.", **f)
    s.user("Real prompt.")
    s.assistant([s.text("Reply.")])
    if v >= 4:
        s.user("Flagged follow-up.", **f)
        s.assistant([s.text("Reply 2.")])
    return s, "flagged user entry %s" % json.dumps(f)


def c_ends_user(rng, v):
    s = Session(rng)
    s.turn("First.", "One.")
    forms = ["Unanswered prompt.", [{"type": "text", "text": "Unanswered array prompt."}],
             "<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>",
             "<bash-input>ls</bash-input>"]
    s.user(forms[v % 4])
    if v >= 4:
        s.user("<local-command-stdout>See ya!</local-command-stdout>")
    return s, "ends in a user entry %s%s" % (json.dumps(forms[v % 4])[:40], " + local stdout" if v >= 4 else "")


def c_parallel(rng, v):
    s = Session(rng)
    s.user("Read three files.")
    calls = [s.tool("Read", {"file_path": "%s/f%d" % (CWD, i)}) for i in range(3)]
    ids = s.assistant([s.text("Reading all.")] + calls, stop="tool_use")
    order = [[0, 1, 2], [2, 0, 1], [0, 2], [1]][v % 4]
    for i in order:
        # each result under its own tool_use entry (as Claude Code writes them)
        s.result(calls[i]["id"], "content %d" % i, parent=ids[1 + i])
    s.assistant([s.text("Read them.")])
    return s, "parallel calls, results in order %s" % order


FAMILIES = [
    (c_clean, 8), (c_branch, 12), (c_branch_len, 4), (c_dangling, 6), (c_dup, 6), (c_unanswered, 18),
    (c_orphan, 12), (c_orphan_wrong_id, 2), (c_compact, 6), (c_sidechain, 6), (c_attachments, 15),
    (c_thinking, 12), (c_numbers, 10), (c_task_name, 8), (c_whitespace, 10), (c_consecutive_users, 12),
    (c_system_entries, 14), (c_api_error, 6), (c_sendmessage, 8), (c_tool_reference, 8),
    (c_flags, 8), (c_ends_user, 8), (c_parallel, 8),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    index = []
    for fn, count in FAMILIES:
        for v in range(count):
            rng = random.Random("%d/%s/%d" % (args.seed, fn.__name__, v))
            s, desc = fn(rng, v)
            name = "%s_%02d" % (fn.__name__[2:], v)
            d = os.path.join(args.outdir, name)
            os.makedirs(d, exist_ok=True)
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
            with open(os.path.join(d, s.sid + ".jsonl"), "w") as f:
                f.write("\n".join(s.lines) + "\n")
            index.append((name, s.sid, desc))
    with open(os.path.join(args.outdir, "cases.tsv"), "w") as f:
        for row in index:
            f.write("\t".join(row) + "\n")
    print("%d cases in %s" % (len(index), args.outdir))


if __name__ == "__main__":
    main()
