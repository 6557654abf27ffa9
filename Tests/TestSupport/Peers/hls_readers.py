"""LL-HLS readers for the tests and `make bench`: many players of one stream on keep-alive connections.

Usage:
  python3 hls_readers.py blocking URL READERS SECONDS [SAVE_DIRECTORY]  # LL-HLS: blocking reloads + hinted parts
  python3 hls_readers.py polling URL READERS SECONDS                     # a server that cannot block: poll
  python3 hls_readers.py mirror URL DIRECTORY SECONDS                     # copy the playlist and parts to DIRECTORY

URL is the media playlist's. A blocking reader asks for the hinted part and, at the same time, for the playlist with
_HLS_msn/_HLS_part naming it, as an LL-HLS player does; a polling reader asks for the playlist every PART-TARGET and
for the parts it has not had. Each reader has two keep-alive connections (playlist, media). Prints one JSON object:
requests, parts, bytes and errors, and for every part received the decode time of its last video frame (ms, from
its moof), the wall-clock time it arrived (ms) and, for a blocking reader, when the blocking playlist reload naming
it was answered, for the latency from the publisher's send. With SAVE_DIRECTORY, every playlist a blocking reader receives is written
to SAVE_DIRECTORY/reader-N/NNNNNN.m3u8 (for the playlist checker). A blocking reader stops at the deadline or when
the playlist ends.
"""
import asyncio
import json
import os
import re
import struct
import sys
import time
from urllib.parse import urlsplit

PART = re.compile(r'#EXT-X-PART:DURATION=([0-9.]+),URI="([^"]+)"')
HINT = re.compile(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]+)"')
# The playlist's file name (index.m3u8, main.m3u8...), from the URL.
PLAYLIST = "index.m3u8"
NAME = re.compile(r"part-[a-z0-9]+-(\d+)\.(\d+)\.m4s$")


class Connection:
    """One HTTP/1.1 keep-alive connection; requests on it go one at a time."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def get(self, path):
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
                head = await self.reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                status = int(lines[0].split(" ")[1])
                fields = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
                if "content-length" in fields:
                    body = await self.reader.readexactly(int(fields["content-length"]))
                elif fields.get("transfer-encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                        body += await self.reader.readexactly(size + 2)
                        body = body[:-2]
                        if size == 0:
                            break
                else:
                    body = await self.reader.read()
                if fields.get("connection", "").lower() == "close":
                    self.close()
                return status, body
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise ConnectionError("unreachable")

    def close(self):
        if self.writer:
            self.writer.close()
        self.reader = self.writer = None


def last_video_time(part):
    """The decode time (ms) of the last video sample in a part's moof, or None (ISO/IEC 14496-12 tfdt and trun)."""
    offset = 0
    while offset + 8 <= len(part):
        size, kind = struct.unpack(">I4s", part[offset:offset + 8])
        if kind == b"moof":
            moof_end = offset + size
            inner = offset + 8
            while inner + 8 <= moof_end:
                traf_size, traf_kind = struct.unpack(">I4s", part[inner:inner + 8])
                if traf_kind == b"traf":
                    track, base, durations = None, None, []
                    child = inner + 8
                    while child + 8 <= inner + traf_size:
                        child_size, child_kind = struct.unpack(">I4s", part[child:child + 8])
                        body = part[child + 8:child + child_size]
                        if child_kind == b"tfhd":
                            track = struct.unpack(">I", body[4:8])[0]
                        elif child_kind == b"tfdt":
                            wide = body[0] == 1
                            base = struct.unpack(">Q" if wide else ">I", body[4:12] if wide else body[4:8])[0]
                        elif child_kind == b"trun":
                            flags = int.from_bytes(body[1:4], "big")
                            count = struct.unpack(">I", body[4:8])[0]
                            cursor = 8 + (4 if flags & 1 else 0) + (4 if flags & 4 else 0)
                            fields = [flags & m for m in (0x100, 0x200, 0x400, 0x800)]
                            for _ in range(count):
                                if fields[0]:
                                    durations.append(struct.unpack(">I", body[cursor:cursor + 4])[0])
                                cursor += 4 * sum(1 for f in fields if f)
                        child += child_size
                    if track == 1 and base is not None and durations:
                        return (base + sum(durations[:-1])) / 90.0
                inner += traf_size
            return None
        offset += size if size >= 8 else len(part)
    return None


def next_after(playlist, current):
    """The name of the part listed right after `current` (msn, index), or None."""
    for _, uri in PART.findall(playlist):
        match = NAME.search(uri)
        if match and (int(match.group(1)), int(match.group(2))) > current:
            return uri
    return None


async def blocking_reader(base, host, port, deadline, stats, records, save):
    playlists, media = Connection(host, port), Connection(host, port)
    saved = 0

    def keep(text):
        nonlocal saved
        if save:
            saved += 1
            with open(os.path.join(save, f"{saved:06d}.m3u8"), "w") as handle:
                handle.write(text)

    hint = None
    while hint is None and time.time() < deadline:
        status, body = await playlists.get(base + PLAYLIST)
        stats["requests"] += 1
        text = body.decode()
        if status != 200:
            await asyncio.sleep(0.2)
            continue
        keep(text)
        found = HINT.search(text)
        if found is None:
            return  # already ended
        hint = found.group(1)
    if hint is None:
        raise RuntimeError("no playlist within the deadline")
    current = (-1, -1)
    while time.time() < deadline:
        match = NAME.search(hint)
        msn, index = int(match.group(1)), int(match.group(2))
        part_request = asyncio.create_task(media.get(base + hint))
        playlist_request = asyncio.create_task(playlists.get(f"{base}{PLAYLIST}?_HLS_msn={msn}&_HLS_part={index}"))
        # When each answer came (whichever is awaited first).
        stamps = {}
        part_request.add_done_callback(lambda _: stamps.setdefault("part", time.time() * 1000))
        playlist_request.add_done_callback(lambda _: stamps.setdefault("playlist", time.time() * 1000))
        part_status, part = await part_request
        status, body = await playlist_request
        arrived = stamps.get("part", time.time() * 1000)
        stats["requests"] += 2
        text = body.decode()
        if status == 200:
            keep(text)
        if status != 200:
            stats["errors"] += 1
            await asyncio.sleep(0.1)
            continue
        if part_status == 200:
            stats["parts"] += 1
            stats["bytes"] += len(part)
            current = (msn, index)
            last = last_video_time(part)
            if last is not None:
                records.append((last, arrived, stamps.get("playlist", arrived)))
        else:
            # The hint was not made (its segment ended first): take what the playlist lists after ours.
            stats["misses"] += 1
            listed = next_after(text, current)
            if listed:
                status, part = await media.get(base + listed)
                stats["requests"] += 1
                if status == 200:
                    stats["parts"] += 1
                    stats["bytes"] += len(part)
                    found = NAME.search(listed)
                    current = (int(found.group(1)), int(found.group(2)))
        found = HINT.search(text)
        if not found:
            break  # ended
        hint = found.group(1)
    playlists.close()
    media.close()


async def polling_reader(base, host, port, deadline, stats, records, interval):
    playlists, media = Connection(host, port), Connection(host, port)
    current = None
    while time.time() < deadline:
        started = time.time()
        status, body = await playlists.get(base + PLAYLIST)
        stats["requests"] += 1
        if status == 200:
            text = body.decode()
            parts = [uri for _, uri in PART.findall(text)]
            if current is None and parts:
                current = NAME.search(parts[-2 if len(parts) > 1 else -1]).groups()
                current = (int(current[0]), int(current[1]))
            for uri in parts:
                found = NAME.search(uri)
                key = (int(found.group(1)), int(found.group(2)))
                if current is not None and key > current:
                    part_status, part = await media.get(base + uri)
                    stats["requests"] += 1
                    if part_status == 200:
                        stats["parts"] += 1
                        stats["bytes"] += len(part)
                        last = last_video_time(part)
                        if last is not None:
                            records.append((last, time.time() * 1000))
                    current = key
        else:
            stats["errors"] += 1
        await asyncio.sleep(max(0, interval - (time.time() - started)))
    playlists.close()
    media.close()


async def mirror(base, host, port, directory, deadline):
    """Follows the stream as one LL-HLS reader and writes the playlist and every part into `directory`."""
    playlists, media = Connection(host, port), Connection(host, port)
    written = set()
    while time.time() < deadline:
        status, body = await playlists.get(base + PLAYLIST)
        if status != 200:
            await asyncio.sleep(0.2)
            continue
        text = body.decode()
        hint = HINT.search(text)
        hinted = hint.group(1) if hint else None
        for name in re.findall(r'URI="([^"]+)"', text):
            if name in written or name == hinted:
                continue
            part_status, part = await media.get(base + name)
            if part_status == 200:
                with open(os.path.join(directory, name + ".tmp"), "wb") as handle:
                    handle.write(part)
                os.rename(os.path.join(directory, name + ".tmp"), os.path.join(directory, name))
                written.add(name)
        with open(os.path.join(directory, "index.m3u8.tmp"), "w") as handle:
            handle.write(text)
        os.rename(os.path.join(directory, "index.m3u8.tmp"), os.path.join(directory, "index.m3u8"))
        if not hint:
            break
        found = NAME.search(hint.group(1))
        await playlists.get(f"{base}{PLAYLIST}?_HLS_msn={found.group(1)}&_HLS_part={found.group(2)}")


async def main():
    mode, url = sys.argv[1], sys.argv[2]
    parts = urlsplit(url)
    base, name = parts.path.rsplit("/", 1)
    base += "/"
    global PLAYLIST
    PLAYLIST = name
    seconds = float(sys.argv[4])
    deadline = time.time() + seconds
    if mode == "mirror":
        await mirror(base, parts.hostname, parts.port, sys.argv[3], deadline)
        return
    readers = int(sys.argv[3])
    stats = {"requests": 0, "parts": 0, "bytes": 0, "errors": 0, "misses": 0}
    records = []
    if mode == "blocking":
        save = sys.argv[5] if len(sys.argv) > 5 else None
        directories = [os.path.join(save, f"reader-{n}") if save else None for n in range(readers)]
        for directory in directories:
            if directory:
                os.makedirs(directory, exist_ok=True)
        tasks = [blocking_reader(base, parts.hostname, parts.port, deadline, stats, records, directory)
                 for directory in directories]
    else:
        interval = float(os.environ.get("PART_TARGET", "0.334"))
        tasks = [polling_reader(base, parts.hostname, parts.port, deadline, stats, records, interval)
                 for _ in range(readers)]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [repr(result) for result in results if isinstance(result, Exception)]
    print(json.dumps({**stats, "failed_readers": len(failures), "failures": failures[:5], "records": records}))


asyncio.run(main())
