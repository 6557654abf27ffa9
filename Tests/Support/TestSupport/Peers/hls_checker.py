"""Checks LL-HLS media playlists (RFC 8216bis) written or served by Stream.

Usage: python3 hls_checker.py DIRECTORY
Reads every *.m3u8 in DIRECTORY in name order (successive versions of one playlist), parses each with the m3u8
library and checks the rules below, then prints a JSON summary; exits 1 when a rule is broken.
"""
import json
import math
import os
import re
import sys

import m3u8

PART_URI = re.compile(r"^part-([a-z0-9]+)-(\d+)\.(\d+)\.m4s$")
SEGMENT_URI = re.compile(r"^seg-([a-z0-9]+)-(\d+)\.m4s$")
EPSILON = 1e-9


def check_playlist(name, text, errors):
    def fail(message):
        errors.append(f"{name}: {message}")

    if text.startswith("\ufeff") or not text.startswith("#EXTM3U\n"):
        fail("does not start with #EXTM3U (or has a BOM)")
    if any(ord(c) < 0x20 and c not in "\r\n" for c in text):
        fail("holds control characters")
    playlist = m3u8.loads(text)
    if (playlist.version or 0) < 6:
        fail(f"EXT-X-VERSION {playlist.version} is below 6 (EXT-X-MAP needs 6)")
    target = playlist.target_duration
    if not isinstance(target, int) or target < 1:
        fail(f"EXT-X-TARGETDURATION {target!r} is not a positive integer")
        target = 1
    control = playlist.server_control
    if control is None or control.can_block_reload != "YES":
        fail("no EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES")
    if playlist.part_inf is None or not playlist.part_inf.part_target:
        fail("no EXT-X-PART-INF:PART-TARGET")
        return None
    part_target = float(playlist.part_inf.part_target)
    hold_back = float(control.part_hold_back or 0) if control else 0
    if hold_back < 3 * part_target - EPSILON:
        fail(f"PART-HOLD-BACK {hold_back} is under three PART-TARGETs ({part_target})")

    ended = playlist.is_endlist
    hints = [line for line in text.splitlines() if line.startswith("#EXT-X-PRELOAD-HINT")]
    if ended and hints:
        fail("an ended playlist has a preload hint")
    if not ended and len(hints) != 1:
        fail(f"{len(hints)} preload hints in a live playlist (want one)")

    segments = playlist.segments
    complete = [s for s in segments if s.uri]
    if segments and segments[0].init_section is None:
        fail("no EXT-X-MAP before the first segment")
    msn = playlist.media_sequence or 0
    listed_parts = []
    epochs = set()
    for position, segment in enumerate(segments):
        number = msn + position
        is_complete = segment.uri is not None
        if is_complete:
            match = SEGMENT_URI.match(segment.uri)
            if not match or int(match.group(2)) != number:
                fail(f"segment {number} has URI {segment.uri}")
            else:
                epochs.add(match.group(1))
            if round(segment.duration) > target:
                fail(f"segment {number} lasts {segment.duration} s, more than the target {target} when rounded")
            if segment.program_date_time is None:
                fail(f"segment {number} has no EXT-X-PROGRAM-DATE-TIME")
        elif position != len(segments) - 1:
            fail(f"parts without a segment URI before segment {number}'s successors")
        parts = segment.parts or []
        for index, part in enumerate(parts):
            match = PART_URI.match(part.uri or "")
            if not match:
                fail(f"part URI {part.uri} is not part-EPOCH-MSN.INDEX.m4s")
                continue
            epochs.add(match.group(1))
            if int(match.group(2)) != number:
                fail(f"part {part.uri} is listed under segment {number}")
            listed_parts.append((int(match.group(2)), int(match.group(3)), part.uri, part.duration))
            if part.duration > part_target + EPSILON:
                fail(f"part {part.uri} lasts {part.duration} s, more than PART-TARGET {part_target}")
            final = is_complete and index == len(parts) - 1
            if part.duration < 0.85 * part_target - EPSILON and not part.independent and not final:
                fail(f"part {part.uri} lasts {part.duration} s, under 85 % of PART-TARGET and neither independent"
                     " nor final")
        if parts:
            indices = [int(PART_URI.match(p.uri).group(3)) for p in parts if PART_URI.match(p.uri or "")]
            first_index = indices[0] if indices else 0
            if indices != list(range(first_index, first_index + len(indices))):
                fail(f"segment {number}'s parts are not consecutive: {indices}")
            if first_index == 0 and parts[0].independent != "YES":
                fail(f"segment {number} does not start with an independent part")
            if is_complete and first_index == 0:
                total = sum(p.duration for p in parts)
                # Issue 34 item 8: parts tile their segment; each duration is written to five decimals.
                if abs(total - segment.duration) > 0.00001 * (len(parts) + 1):
                    fail(f"segment {number}'s parts last {total:.3f} s but its EXTINF says {segment.duration}")
    if len(epochs) > 1:
        fail(f"resources of several epochs: {sorted(epochs)}")
    for earlier, later in zip(complete, complete[1:]):
        if earlier.program_date_time and later.program_date_time:
            gap = (later.program_date_time - earlier.program_date_time).total_seconds()
            if abs(gap - earlier.duration) > 0.05:
                fail(f"program date-times of {earlier.uri} and {later.uri} are {gap:.3f} s apart, "
                     f"its EXTINF says {earlier.duration}")
    # The hint names the next part: after the last listed one, or the next segment's first.
    hinted = None
    if hints and listed_parts:
        match = re.search(r'URI="([^"]+)"', hints[0])
        hinted = PART_URI.match(match.group(1)) if match else None
        if not hinted or "TYPE=PART" not in hints[0]:
            fail(f"preload hint {hints[0]} is not a part")
        else:
            last_msn, last_index = listed_parts[-1][0], listed_parts[-1][1]
            wanted = (int(hinted.group(2)), int(hinted.group(3)))
            if wanted not in [(last_msn, last_index + 1), (last_msn + 1, 0)]:
                fail(f"preload hint {match.group(1)} does not follow the last part {listed_parts[-1][2]}")
    # Tags of the open segment must come before its first part (m3u8 does not keep them: read the text).
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(("#EXT-X-DISCONTINUITY", "#EXT-X-MAP", "#EXT-X-PROGRAM-DATE-TIME")) and index > 0:
            previous = lines[index - 1]
            if previous.startswith("#EXT-X-PART:"):
                fail(f"{line} comes after a part of the same segment")
    # Each segment's discontinuity sequence number: the playlist's, plus the EXT-X-DISCONTINUITY tags up to it.
    sequence = playlist.discontinuity_sequence or 0
    numbers = {}
    for position, segment in enumerate(segments):
        if segment.discontinuity:
            sequence += 1
        if segment.uri:
            numbers[msn + position] = sequence
    return {
        "msn": msn,
        "discontinuity_sequence": playlist.discontinuity_sequence or 0,
        "ended": ended,
        "segments": {msn + i: (s.uri, s.duration, numbers[msn + i]) for i, s in enumerate(segments) if s.uri},
        "parts": {(p[0], p[1]): (p[2], p[3]) for p in listed_parts},
        "hint": (int(hinted.group(2)), int(hinted.group(3))) if hints and listed_parts and hinted else None,
        "complete": {msn + i: len(s.parts or []) for i, s in enumerate(segments) if s.uri and s.parts},
    }


def main():
    directory = sys.argv[1]
    names = sorted(n for n in os.listdir(directory) if n.endswith(".m3u8"))
    errors = []
    previous = None
    segments = {}
    parts = {}
    for name in names:
        with open(os.path.join(directory, name), encoding="utf-8") as handle:
            text = handle.read()
        try:
            state = check_playlist(name, text, errors)
        except Exception as error:  # a playlist m3u8 cannot parse is a failure, not a crash of the checker
            errors.append(f"{name}: cannot be parsed: {error!r}")
            continue
        if state is None:
            continue
        if previous is not None:
            if state["msn"] < previous["msn"]:
                errors.append(f"{name}: media sequence went back from {previous['msn']} to {state['msn']}")
            if state["discontinuity_sequence"] < previous["discontinuity_sequence"]:
                errors.append(f"{name}: discontinuity sequence went back")
            if previous["ended"] and not state["ended"]:
                errors.append(f"{name}: an ended playlist went live again")
        for number, value in state["segments"].items():
            if segments.setdefault(number, value) != value:
                errors.append(f"{name}: segment {number} changed from {segments[number]} to {value}")
        for key, value in state["parts"].items():
            if parts.setdefault(key, value) != value:
                errors.append(f"{name}: part {key} changed from {parts[key]} to {value}")
        # Issue 34 item 13b: a hinted part is the part that comes next, never one its segment closes without.
        hint = previous and previous.get("hint")
        if hint and hint[0] in state["complete"] and hint[1] >= state["complete"][hint[0]]:
            errors.append(f"{name}: part {hint} was hinted but segment {hint[0]} closed with "
                          f"{state['complete'][hint[0]]} parts")
        previous = state
    print(json.dumps({"playlists": len(names), "segments": len(segments), "parts": len(parts),
                      "ended": bool(previous and previous["ended"]), "errors": errors[:50],
                      "error_count": len(errors)}))
    sys.exit(1 if errors or not names else 0)


if __name__ == "__main__":
    main()
