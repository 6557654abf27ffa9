"""Plays an HLS playlist with ffmpeg (as a player without LL-HLS) and reads the time code of every decoded frame.

Usage: python3 hls_ffmpeg_latency.py URL SECONDS GEOMETRY_JSON
Decodes to 320x180 grey frames on a pipe; for each frame, as it comes out of ffmpeg, reads the burnt-in time code and
frame number (GEOMETRY_JSON as for hls_browser.py) and its latency: the wall clock then minus the time code.
Prints one JSON object: {"frames": [{"frame": n, "latency": ms}], "stderr": "..."}.
"""
import json
import subprocess
import sys
import time

WIDTH, HEIGHT = 320, 180


def read(frame, place):
    row = int(place["y"] * HEIGHT) * WIDTH
    value = 0
    for x in place["x"]:
        value = (value << 1) | (1 if frame[row + min(WIDTH - 1, int(x * WIDTH))] > 128 else 0)
    return value


def main(url, seconds, geometry):
    process = subprocess.Popen(
        # passthrough: every decoded frame once (the rawvideo muxer would otherwise duplicate or drop frames to a
        # constant rate).
        ["ffmpeg", "-v", "error", "-i", url, "-map", "0:v", "-fps_mode", "passthrough",
         "-vf", f"scale={WIDTH}:{HEIGHT}", "-pix_fmt", "gray", "-f", "rawvideo", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    frames = []
    deadline = time.time() + seconds
    size = WIDTH * HEIGHT
    while time.time() < deadline:
        frame = process.stdout.read(size)
        if len(frame) < size:
            break
        now = int(time.time() * 1000)
        code = read(frame, geometry["timecode"])
        difference = ((now // 10 & 0xFFFF) - code) & 0xFFFF
        if difference >= 32768:
            difference -= 65536
        frames.append({"frame": read(frame, geometry["frame"]), "latency": difference * 10})
    process.kill()
    _, stderr = process.communicate()
    print(json.dumps({"frames": frames, "stderr": stderr.decode(errors="replace")[-2000:]}))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3]))
