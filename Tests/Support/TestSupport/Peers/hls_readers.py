"""LL-HLS readers for the tests and `make bench`: many players of one stream on keep-alive connections.

Usage:
  python3 hls_readers.py blocking URL READERS SECONDS [SAVE_DIRECTORY]  # LL-HLS: blocking reloads + hinted parts
  python3 hls_readers.py polling URL READERS SECONDS                     # a server that cannot block: poll
  python3 hls_readers.py mirror URL DIRECTORY SECONDS                     # copy the playlist and parts to DIRECTORY

URL is the media playlist's. A blocking reader asks for the hinted part and, at the same time, for the playlist with
_HLS_msn/_HLS_part naming it, as an LL-HLS player does; a polling reader asks for the playlist every PART-TARGET and
for the parts it has not had. Each reader has two keep-alive connections (playlist, media).

Prints one JSON object: requests, parts, bytes and errors (among them `early`: blocking reloads answered with a
playlist that did not yet list the part they named), and for every part received: the decode time of its last video
frame (ms, from its moof), the wall-clock time (ms) the reader had it, the wall-clock time the kernel received its
last byte on the reader's socket (SO_TIMESTAMPNS: the same without the reader's own scheduling) and, for a blocking
reader, when the blocking playlist reload naming it was answered; for the latency from the publisher's send.

With SAVE_DIRECTORY, every playlist a blocking reader receives is written to SAVE_DIRECTORY/reader-N/NNNNNN.m3u8 (for
the playlist checker). A blocking reader stops at the deadline or when the playlist ends.
"""
import asyncio
import json
import os
import re
import socket
import struct
import sys
import time
from urllib.parse import urlsplit

PART = re.compile(r'#EXT-X-PART:DURATION=([0-9.]+),URI="([^"]+)"')
HINT = re.compile(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]+)"')
# The playlist's file name (index.m3u8, main.m3u8...), from the URL.
PLAYLIST = "index.m3u8"
NAME = re.compile(r"part-[a-z0-9]+-(\d+)\.(\d+)\.m4s$")
# <linux/socket.h>: SO_TIMESTAMPNS_OLD (Python's socket module does not name it).
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class Connection:
    """One HTTP/1.1 keep-alive connection; requests on it go one at a time.

    Reads with recvmsg and SO_TIMESTAMPNS, so that each response also says when the kernel received its last byte
    (`socket_ms`, wall clock): the time the part reached this reader, before the reader's own event loop (shared by
    many readers in one process, on a busy machine) got round to it."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.sock = None
        self.buffer = bytearray()
        # (end offset in `buffer`, kernel receive time in ms) of each read, oldest first.
        self.stamps = []
        self.waiter = None
        self.eof = False
        self.socket_ms = None

    async def _open(self):
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        try:
            await loop.sock_connect(sock, (self.host, self.port))
        except BaseException:
            sock.close()
            raise
        self.sock, self.buffer, self.stamps, self.eof = sock, bytearray(), [], False
        loop.add_reader(sock.fileno(), self._readable)

    def _readable(self):
        while True:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(262144, 64)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                data, ancillary = b"", []
            if not data:
                self.eof = True
                asyncio.get_running_loop().remove_reader(self.sock.fileno())
                break
            received = time.time() * 1000
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    received = seconds * 1000 + nanoseconds / 1e6
            self.buffer += data
            self.stamps.append((len(self.buffer), received))
        if self.waiter and not self.waiter.done():
            self.waiter.set_result(None)

    async def _wait(self):
        if self.eof:
            raise asyncio.IncompleteReadError(bytes(self.buffer), None)
        self.waiter = asyncio.get_running_loop().create_future()
        await self.waiter
        self.waiter = None

    async def _until(self, separator):
        while True:
            found = self.buffer.find(separator)
            if found >= 0:
                return self._take(found + len(separator))
            await self._wait()

    async def _exactly(self, count):
        while len(self.buffer) < count:
            await self._wait()
        return self._take(count)

    def _take(self, count):
        """The first `count` bytes of the buffer; notes when the kernel received the last of them."""
        taken = bytes(self.buffer[:count])
        del self.buffer[:count]
        for end, received in self.stamps:
            if end >= count:
                self.socket_ms = received
                break
        self.stamps = [(end - count, received) for end, received in self.stamps if end > count]
        return taken

    async def get(self, path):
        for attempt in range(2):
            try:
                if self.sock is None:
                    await self._open()
                await asyncio.get_running_loop().sock_sendall(
                    self.sock, f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
                head = await self._until(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                status = int(lines[0].split(" ")[1])
                fields = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
                if "content-length" in fields:
                    body = await self._exactly(int(fields["content-length"]))
                elif fields.get("transfer-encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int((await self._until(b"\r\n")).split(b";")[0], 16)
                        body += (await self._exactly(size + 2))[:-2]
                        if size == 0:
                            break
                else:
                    while not self.eof:
                        await self._wait()
                    body = self._take(len(self.buffer))
                if fields.get("connection", "").lower() == "close":
                    self.close()
                return status, body
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise ConnectionError("unreachable")

    def close(self):
        if self.sock:
            if not self.eof:
                asyncio.get_running_loop().remove_reader(self.sock.fileno())
            self.sock.close()
        self.sock = None


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


def part_key(uri):
    """The (msn, index) a part's name gives, or None for another name."""
    match = NAME.search(uri)
    return (int(match.group(1)), int(match.group(2))) if match else None


def listed_parts(playlist):
    """The parts a playlist lists, in order: ((msn, index), uri) for each."""
    keyed = [(part_key(uri), uri) for _, uri in PART.findall(playlist)]
    return [(key, uri) for key, uri in keyed if key]


def latest_part(playlist):
    """The (msn, index) of the last part a playlist lists, or (-1, -1)."""
    return max((key for key, _ in listed_parts(playlist)), default=(-1, -1))


def next_after(playlist, current):
    """The name of the part listed right after `current` (msn, index), or None."""
    return next((uri for key, uri in listed_parts(playlist) if key > current), None)


async def timed(request):
    """A request's status and body, and the wall-clock time (ms) the reader had them, taken in the request's own
    task as it completes. (A done callback is only scheduled: when the answer was complete before the reader awaited
    it, the reader went on to its next request first, and the callback then wrote into that request's record.)"""
    status, body = await request
    return status, body, time.time() * 1000


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
        msn, index = part_key(hint)
        part_request = asyncio.create_task(timed(media.get(base + hint)))
        playlist_request = asyncio.create_task(
            timed(playlists.get(f"{base}{PLAYLIST}?_HLS_msn={msn}&_HLS_part={index}")))
        part_status, part, arrived = await part_request
        status, body, answered = await playlist_request
        stats["requests"] += 2
        text = body.decode()
        if status == 200:
            keep(text)
        if status != 200:
            stats["errors"] += 1
            await asyncio.sleep(0.1)
            continue
        if "#EXT-X-ENDLIST" not in text and latest_part(text) < (msn, index):
            # RFC 8216bis §6.2.5.2: held until the playlist has the part asked for, or a later one.
            stats["early"] += 1
            stats["errors"] += 1
        if part_status == 200:
            stats["parts"] += 1
            stats["bytes"] += len(part)
            current = (msn, index)
            last = last_video_time(part)
            if last is not None:
                records.append((last, arrived, media.socket_ms or arrived, answered))
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
                    current = part_key(listed)
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
            parts = listed_parts(text)
            if current is None and parts:
                current = parts[-2 if len(parts) > 1 else -1][0]
            for key, uri in parts:
                if current is not None and key > current:
                    part_status, part = await media.get(base + uri)
                    stats["requests"] += 1
                    if part_status == 200:
                        stats["parts"] += 1
                        stats["bytes"] += len(part)
                        last = last_video_time(part)
                        if last is not None:
                            had = time.time() * 1000
                            records.append((last, had, media.socket_ms or had))
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
        msn, index = part_key(hint.group(1))
        await playlists.get(f"{base}{PLAYLIST}?_HLS_msn={msn}&_HLS_part={index}")


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
    stats = {"requests": 0, "parts": 0, "bytes": 0, "errors": 0, "misses": 0, "early": 0}
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
