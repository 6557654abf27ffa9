// Stream's Low-Latency HLS player: plays an LL-HLS media playlist (RFC 8216bis) of fMP4 parts through Media Source
// Extensions. No dependencies and no outside resources: it is served by `stream serve` itself.
//
// How it follows a live stream:
// - It loads the playlist, appends the init segment (EXT-X-MAP), and starts at the newest independent part.
// - Each next part is fetched as soon as it is listed; when it is not listed yet, the player asks for the playlist
//   with _HLS_msn/_HLS_part (the server answers when the part exists) and, at the same time, for the part named by
//   EXT-X-PRELOAD-HINT (the server holds that request until the part is complete).
// - Parts are appended to one SourceBuffer as they arrive; playback is held `targetLag` seconds behind the newest
//   frame on average, by nudging the playback rate and, when far behind (or once, on reaching the live edge), by
//   jumping forward.
// - A new EXT-X-MAP (another source or configuration) is appended before the parts that need it; EXT-X-ENDLIST
//   ends the stream once its last part is in.
// - A pause by the viewer holds it: it stops following the live edge (no jump, no rate change, no autoplay) and plays
//   on from where it paused, behind live, keeping up to `maxBehind` seconds; a "livechange" event says when it is
//   more than `behindThreshold` seconds behind where it would be, and goLive() jumps back and follows again.
// Without blocking reload support in the playlist it falls back to polling every half target duration, and without
// parts to whole segments. A VOD playlist (EXT-X-PLAYLIST-TYPE:VOD with EXT-X-ENDLIST, a show's replay: byte ranges
// of one fMP4 file) is played as a video file is: its whole duration seekable, the segments around the playback
// position fetched (HTTP Range) up to `vodAhead` seconds ahead, and after a seek from the segment holding it. Where Media Source is missing (Safari on older iPhones) the video element plays the
// playlist natively.
(function (global) {
  'use strict';

  /** Parses an attribute list: KEY=VALUE,KEY="quoted, value" (RFC 8216bis §4.2). */
  function parseAttributes(text) {
    const attributes = {};
    const pattern = /([A-Z0-9-]+)=("[^"]*"|[^,]*)(?:,|$)/g;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      const value = match[2];
      attributes[match[1]] = value.startsWith('"') ? value.slice(1, -1) : value;
      if (match[0] === '') break;
    }
    return attributes;
  }

  /** Parses a media playlist into segments (each with its parts), the preload hint and the server's controls. */
  function parsePlaylist(text) {
    const lines = text.split(/\r?\n/);
    if (lines[0] !== '#EXTM3U') throw new Error('not an M3U8 playlist');
    const playlist = {
      targetDuration: 0, partTarget: 0, partHoldBack: 0, canBlockReload: false, mediaSequence: 0,
      ended: false, segments: [], hint: null, type: null,
    };
    let map = null;
    let mapRange = null;
    // EXT-X-BYTERANGE: "length[@offset]"; without an offset, where the last range of the same URI ended.
    let lastRangeEnd = 0;
    const byteRange = (text, fallbackOffset) => {
      const [length, offset] = text.split('@');
      const start = offset === undefined ? fallbackOffset : Number(offset);
      return { start: start, end: start + Number(length) - 1 };
    };
    let pending = { parts: [], discontinuity: false, programDateTime: null };
    for (const line of lines) {
      const colon = line.indexOf(':');
      const tag = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1);
      switch (tag) {
        case '#EXT-X-TARGETDURATION': playlist.targetDuration = Number(value); break;
        case '#EXT-X-MEDIA-SEQUENCE': playlist.mediaSequence = Number(value); break;
        case '#EXT-X-ENDLIST': playlist.ended = true; break;
        case '#EXT-X-PLAYLIST-TYPE': playlist.type = value; break;
        case '#EXT-X-BYTERANGE': pending.range = byteRange(value, lastRangeEnd); lastRangeEnd = pending.range.end + 1; break;
        case '#EXT-X-PART-INF': playlist.partTarget = Number(parseAttributes(value)['PART-TARGET'] || 0); break;
        case '#EXT-X-SERVER-CONTROL': {
          const control = parseAttributes(value);
          playlist.canBlockReload = control['CAN-BLOCK-RELOAD'] === 'YES';
          playlist.partHoldBack = Number(control['PART-HOLD-BACK'] || 0);
          break;
        }
        case '#EXT-X-MAP': {
          const attributes = parseAttributes(value);
          map = attributes.URI;
          mapRange = attributes.BYTERANGE ? byteRange(attributes.BYTERANGE, 0) : null;
          break;
        }
        case '#EXT-X-DISCONTINUITY': pending.discontinuity = true; break;
        case '#EXT-X-PROGRAM-DATE-TIME': pending.programDateTime = Date.parse(value); break;
        case '#EXT-X-PART': {
          const part = parseAttributes(value);
          pending.parts.push({
            uri: part.URI, duration: Number(part.DURATION), independent: part.INDEPENDENT === 'YES',
          });
          break;
        }
        case '#EXT-X-PRELOAD-HINT': {
          const hint = parseAttributes(value);
          if (hint.TYPE === 'PART' && playlist.hint === null) playlist.hint = hint.URI;
          break;
        }
        case '#EXTINF':
          pending.duration = parseFloat(value);
          break;
        default:
          if (line !== '' && !line.startsWith('#')) {
            playlist.segments.push(Object.assign(pending, { uri: line, map: map, mapRange: mapRange }));
            pending = { parts: [], discontinuity: false, programDateTime: null };
          }
      }
    }
    if (pending.parts.length > 0) playlist.segments.push(Object.assign(pending, { uri: null, map: map }));
    playlist.segments.forEach((segment, index) => {
      segment.msn = playlist.mediaSequence + index;
      segment.parts.forEach((part, partIndex) => { part.msn = segment.msn; part.index = partIndex; });
    });
    return playlist;
  }

  /** The RFC 6381 codecs of an init segment: "avc1.PPCCLL" from its avcC, "mp4a.40.N" from its esds. */
  function codecsOf(bytes) {
    const codecs = [];
    const find = (a, b, c, d, from) => {
      for (let i = from || 0; i + 4 <= bytes.length; i++) {
        if (bytes[i] === a && bytes[i + 1] === b && bytes[i + 2] === c && bytes[i + 3] === d) return i;
      }
      return -1;
    };
    const avcC = find(0x61, 0x76, 0x63, 0x43);  // "avcC"
    if (avcC >= 0) {
      const hex = (n) => n.toString(16).padStart(2, '0');
      codecs.push('avc1.' + hex(bytes[avcC + 5]) + hex(bytes[avcC + 6]) + hex(bytes[avcC + 7]));
    }
    const esds = find(0x65, 0x73, 0x64, 0x73);  // "esds"
    if (esds >= 0) {
      // DecoderSpecificInfo (tag 5): its first 5 bits are the audio object type.
      let objectType = 2;
      for (let i = esds + 8; i + 2 < bytes.length && i < esds + 64; i++) {
        if (bytes[i] === 0x05) {
          let j = i + 1;
          while (bytes[j] & 0x80) j++;
          objectType = bytes[j + 1] >> 3;
          break;
        }
      }
      codecs.push('mp4a.40.' + objectType);
    }
    return codecs.join(',');
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  class HTTPError extends Error {
    constructor(status, url) {
      super('HTTP ' + status + ' for ' + url);
      this.status = status;
    }
  }

  /** Plays one LL-HLS media playlist in a video element. Dispatches "statechange" events (detail: the state). */
  class StreamHLSPlayer extends EventTarget {
    /**
     * @param {HTMLVideoElement} video the element to play in (muted, for autoplay to be allowed)
     * @param {string} url the media playlist's URL
     * @param {{targetLag?: number, backBuffer?: number, lowLatency?: boolean}} options seconds behind the newest
     *   frame to play at on average (default 0.6; with lowLatency false, three target durations), seconds of played
     *   media to keep (default 20), and false to play as a player without LL-HLS would (whole segments, polled
     *   playlist)
     */
    constructor(video, url, options) {
      super();
      this.behindThreshold = (options && options.behindThreshold) || 3;
      this.maxBehind = (options && options.maxBehind) || 60;
      this.following = true;
      this.behind = false;
      this.wasPlaying = false;
      // A pause by the viewer (the player never pauses the video itself): stop following until goLive(). The
      // 100 ms tick also sees it, should it run before this event.
      this.onPause = () => { if (this.state === 'playing' && !video.ended) this.hold(); };
      video.addEventListener('pause', this.onPause);
      this.video = video;
      this.url = new URL(url, global.location.href).href;
      this.lowLatency = !(options && options.lowLatency === false);
      this.targetLag = (options && options.targetLag) || (this.lowLatency ? 0.6 : 0);
      this.backBuffer = (options && options.backBuffer) || 20;
      this.state = 'idle';
      this.stats = {
        partsLoaded: 0, segmentsLoaded: 0, bytesLoaded: 0, playlistLoads: 0, blockingReloads: 0,
        hintsUsed: 0, jumps: 0, errors: 0, lag: 0, lastPartAt: 0,
      };
      this.inflight = new Map();
      this.stopped = false;
      this.controller = new AbortController();
    }

    /**
     * Fetches from a new playlist URL from now on (a renewed media token in its path): parts are named relative
     * to the playlist, so they follow. The browser's own HLS keeps its URL until it fails, then reports 'error'.
     * @param {string} url the media playlist's URL
     */
    setURL(url) {
      this.url = new URL(url, global.location.href).href;
    }

    /** Starts playing; resolves when the stream ends or the player is stopped. */
    async start() {
      const MediaSourceType = global.ManagedMediaSource || global.MediaSource;
      if (!MediaSourceType) {
        // No Media Source: the browser's own HLS (Safari plays LL-HLS natively).
        this.video.addEventListener('error', () => { if (!this.stopped) this.setState('error'); });
        this.video.src = this.url;
        this.setState('playing');
        return;
      }
      this.setState('loading');
      try {
        await this.run(MediaSourceType);
      } catch (error) {
        if (!this.stopped) {
          this.stats.errors++;
          this.lastError = String(error && error.message ? error.message : error);
          this.setState('error');
        }
      }
    }

    /** Stops fetching and detaches. */
    stop() {
      this.stopped = true;
      this.controller.abort();
      this.video.removeEventListener('pause', this.onPause);
      this.setBehind(false);
      this.setState('stopped');
    }

    /** The newest media time the player has (the end of what is buffered, or what the browser may seek to). */
    liveEdge() {
      const ranges = this.mediaSource ? this.video.buffered : this.video.seekable;
      return ranges.length === 0 ? null : ranges.end(ranges.length - 1);
    }

    /** Seconds behind where the player plays when it follows the live edge (0 when it follows, or has nothing). */
    secondsBehind() {
      const edge = this.liveEdge();
      if (edge === null) return 0;
      return Math.max(0, edge - this.video.currentTime - this.targetLag);
    }

    /** Pauses the video and stops following the live edge until goLive() (or a play within `behindThreshold`). */
    pause() {
      this.hold();
      this.video.pause();
    }

    hold() {
      if (this.stopped || !this.following) return;
      this.following = false;
      this.stats.holds = (this.stats.holds || 0) + 1;
    }

    /** Jumps to the live edge (`targetLag` behind the newest frame), plays, and follows it again. */
    goLive() {
      this.following = true;
      this.caughtUp = true;
      const edge = this.liveEdge();
      if (edge !== null) {
        const ranges = this.video.buffered;
        const start = ranges.length > 0 ? ranges.start(ranges.length - 1) : 0;
        this.video.currentTime = Math.max(start, edge - this.targetLag);
        this.stats.jumps++;
      }
      this.video.playbackRate = 1;
      this.video.play().catch(() => {});
      this.setBehind(false);
    }

    /** Says in a "livechange" event (detail: {behind, seconds}) when the player falls behind or is back. */
    setBehind(behind) {
      if (this.behind === behind) return;
      this.behind = behind;
      this.dispatchEvent(new CustomEvent('livechange', { detail: { behind: behind, seconds: this.secondsBehind() } }));
    }

    setState(state) {
      if (this.state === state) return;
      this.state = state;
      this.dispatchEvent(new CustomEvent('statechange', { detail: state }));
    }

    async fetchBytes(url, signal, range) {
      const headers = range ? { Range: 'bytes=' + range.start + '-' + range.end } : {};
      const response = await fetch(url, { signal: signal || this.controller.signal, cache: 'no-store', headers });
      if (!response.ok) throw new HTTPError(response.status, url);
      return new Uint8Array(await response.arrayBuffer());
    }

    async loadPlaylist(msn, part) {
      let url = this.url;
      if (msn !== undefined) {
        url += (url.includes('?') ? '&' : '?') + '_HLS_msn=' + msn + (part !== undefined ? '&_HLS_part=' + part : '');
        this.stats.blockingReloads++;
      }
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await fetch(url, { signal: this.controller.signal, cache: 'no-store' });
          if (response.status === 503 && attempt < 3) continue;  // held too long: ask again
          if (!response.ok) throw new HTTPError(response.status, url);
          this.stats.playlistLoads++;
          return parsePlaylist(await response.text());
        } catch (error) {
          if (this.stopped || (error instanceof HTTPError && error.status === 400) || attempt >= 5) throw error;
          await sleep(500 * (attempt + 1));
        }
      }
    }

    /** The bytes of a part or segment, from a request already under way (a preload hint) if there is one. */
    async media(uri) {
      const url = new URL(uri, this.url).href;
      const request = this.inflight.get(url);
      this.inflight.delete(url);
      if (request) {
        try {
          const bytes = await request;
          this.stats.hintsUsed++;
          return bytes;
        } catch (error) {
          if (this.stopped) throw error;  // else the hint failed (held too long): ask for the listed part again
        }
      }
      return this.fetchBytes(url);
    }

    /** Asks for the hinted part before it is listed; the server answers when it is complete. */
    prefetchHint(playlist) {
      if (!playlist.hint) return;
      const url = new URL(playlist.hint, this.url).href;
      if (this.inflight.has(url)) return;
      const request = this.fetchBytes(url);
      request.catch(() => this.inflight.delete(url));  // a hint that never came to be
      this.inflight.set(url, request);
      for (const key of this.inflight.keys()) {
        if (this.inflight.size <= 4) break;
        this.inflight.delete(key);
      }
    }

    /** Runs one SourceBuffer operation (append or remove) after the ones before it, resolving when it is done. */
    enqueue(operation) {
      const run = () => new Promise((resolve, reject) => {
        const buffer = this.sourceBuffer;
        const done = () => {
          buffer.removeEventListener('updateend', done);
          buffer.removeEventListener('error', failed);
          resolve();
        };
        const failed = () => {
          buffer.removeEventListener('updateend', done);
          buffer.removeEventListener('error', failed);
          reject(new Error('the browser refused the media'));
        };
        buffer.addEventListener('updateend', done);
        buffer.addEventListener('error', failed);
        try {
          operation(buffer);
        } catch (error) {
          done();
          reject(error);
        }
      });
      this.operations = (this.operations || Promise.resolve()).then(run, run);
      return this.operations;
    }

    append(bytes) {
      return this.enqueue((buffer) => buffer.appendBuffer(bytes));
    }

    async useInit(uri, range) {
      if (uri === this.initURI) return;
      const bytes = range ? await this.fetchBytes(new URL(uri, this.url).href, null, range) : await this.media(uri);
      const type = 'video/mp4; codecs="' + codecsOf(bytes) + '"';
      if (!this.sourceBuffer) {
        this.sourceBuffer = this.mediaSource.addSourceBuffer(type);
        this.sourceBuffer.mode = 'segments';
      } else if (this.sourceBuffer.changeType) {
        this.sourceBuffer.changeType(type);
      }
      this.initURI = uri;
      await this.append(bytes);
    }

    /** Keeps playback `targetLag` behind the newest frame, and the buffer behind it bounded. */
    followLiveEdge() {
      const video = this.video;
      const ranges = video.buffered;
      if (ranges.length === 0) return;
      const end = ranges.end(ranges.length - 1);
      const lag = end - video.currentTime;
      this.stats.lag = lag;
      // The lag is a sawtooth: it grows by a part's duration when a part is appended and falls as it plays. The
      // playback rate follows its mean over about a second (this runs every 100 ms), not its peaks.
      this.meanLag = this.meanLag === undefined ? lag : this.meanLag + (lag - this.meanLag) * 0.1;
      // Paused since the last tick, and not by the player: the viewer's pause.
      if (video.paused && this.wasPlaying && !video.ended && this.state === 'playing') this.hold();
      this.wasPlaying = !video.paused;
      // Playing again close to where it would be anyway: simply follow again.
      if (!this.following && !video.paused && this.secondsBehind() <= this.behindThreshold) this.following = true;
      if (!this.following) {
        // Held by the viewer's pause: play on from there; only past `maxBehind` (the media kept for it) go live.
        if (video.playbackRate !== 1) video.playbackRate = 1;
        if (lag > this.maxBehind + this.targetLag) {
          const paused = video.paused;
          this.goLive();
          if (paused) video.pause();
          this.following = !paused;
        }
        this.setBehind(!this.following && this.secondsBehind() > this.behindThreshold);
        this.trim();
        return;
      }
      this.setBehind(false);
      // Once the parts already listed at the start are in (the player waits at the live edge), it jumps to
      // `targetLag` behind the newest frame at once rather than catching up slowly from the keyframe it started at.
      const catchUp = this.atLiveEdge && !this.caughtUp && lag > this.targetLag + 0.2;
      if (this.atLiveEdge) this.caughtUp = true;
      if (video.currentTime < ranges.start(ranges.length - 1) || lag > this.targetLag + 1.5 || catchUp) {
        video.currentTime = Math.max(ranges.start(ranges.length - 1), end - this.targetLag);
        this.meanLag = this.targetLag;
        this.stats.jumps++;
      } else if (this.meanLag > this.targetLag + 0.1) {
        video.playbackRate = 1.1;
      } else if (this.meanLag < this.targetLag - 0.1) {
        video.playbackRate = 0.95;
      } else {
        video.playbackRate = 1;
      }
      if (video.paused && lag > 0.2 && this.state !== 'ended') {
        video.play().catch(() => {});
      }
      this.trim();
    }

    /** Keeps at most `backBuffer` seconds of played media (and what is ahead, which a pause may make long). */
    trim() {
      const video = this.video;
      const ranges = video.buffered;
      if (ranges.length === 0) return;
      const start = ranges.start(0);
      if (video.currentTime - start > this.backBuffer * 1.5 && !this.trimming) {
        this.trimming = true;
        const until = video.currentTime - this.backBuffer;
        this.enqueue((buffer) => buffer.remove(start, until)).catch(() => {}).then(() => { this.trimming = false; });
      }
    }

    async run(MediaSourceType) {
      this.mediaSource = new MediaSourceType();
      if (global.ManagedMediaSource && MediaSourceType === global.ManagedMediaSource) {
        this.video.disableRemotePlayback = true;
      }
      const opened = new Promise((resolve) => this.mediaSource.addEventListener('sourceopen', resolve, { once: true }));
      this.video.src = URL.createObjectURL(this.mediaSource);
      await opened;
      this.timer = setInterval(() => { if (this.sourceBuffer && !this.vod) this.followLiveEdge(); }, 100);
      try {
        await this.follow();
      } finally {
        clearInterval(this.timer);
      }
    }

    /** The part (msn, index) in a playlist, or null. */
    static findPart(playlist, msn, index) {
      const segment = playlist.segments.find((s) => s.msn === msn);
      if (!segment) return null;
      return segment.parts.find((p) => p.index === index) || null;
    }

    async follow() {
      let playlist = await this.loadPlaylist();
      if (playlist.type === 'VOD' && playlist.ended) return this.playVOD(playlist);
      // Start at the newest independent part; a playlist without parts starts three segments from the end.
      const parts = playlist.segments.flatMap((s) => s.parts);
      const independent = parts.filter((p) => p.independent);
      const usesParts = this.lowLatency && independent.length > 0;
      if (!this.lowLatency && !this.targetLag) this.targetLag = 3 * playlist.targetDuration;
      let next;
      if (usesParts) {
        const first = independent[independent.length - 1];
        next = { msn: first.msn, index: first.index };
      } else {
        const complete = playlist.segments.filter((s) => s.uri);
        const start = complete[Math.max(0, complete.length - 3)];
        next = { msn: start ? start.msn : playlist.mediaSequence, index: 0 };
      }
      this.setState('playing');
      while (!this.stopped) {
        const segment = playlist.segments.find((s) => s.msn === next.msn);
        if (segment && segment.map) await this.useInit(segment.map);
        if (usesParts) {
          const part = StreamHLSPlayer.findPart(playlist, next.msn, next.index);
          if (part) {
            const bytes = await this.loadMedia(part.uri, () => { next = null; });
            if (next === null) {  // it left the window: start again at the live edge
              return this.follow();
            }
            await this.append(bytes);
            this.stats.partsLoaded++;
            this.stats.bytesLoaded += bytes.length;
            this.stats.lastPartAt = Date.now();
            this.dispatchEvent(new CustomEvent('part', { detail: { msn: next.msn, index: next.index } }));
            next = { msn: next.msn, index: next.index + 1 };
            this.prefetchHint(playlist);
            continue;
          }
          if (segment && segment.uri && next.index >= segment.parts.length
              && (segment.parts.length === 0 || next.index > segment.parts[segment.parts.length - 1].index)) {
            next = { msn: next.msn + 1, index: 0 };  // that segment is complete: on to the next one
            continue;
          }
        } else if (segment && segment.uri) {
          const bytes = await this.loadMedia(segment.uri, () => { next = null; });
          if (next === null) return this.follow();
          await this.append(bytes);
          this.stats.segmentsLoaded++;
          this.stats.bytesLoaded += bytes.length;
          next = { msn: next.msn + 1, index: 0 };
          continue;
        }
        if (playlist.ended) {
          await this.operations;
          if (this.mediaSource.readyState === 'open') this.mediaSource.endOfStream();
          this.setState('ended');
          return;
        }
        if (playlist.canBlockReload && this.lowLatency) {
          this.prefetchHint(playlist);
          this.atLiveEdge = true;
          playlist = await this.loadPlaylist(next.msn, usesParts ? next.index : undefined);
        } else {
          await sleep(Math.max(250, playlist.targetDuration * 500));
          playlist = await this.loadPlaylist();
        }
      }
    }

    /**
     * Plays a VOD playlist as a file: the media source lasts the playlist's duration (so all of it is seekable), and
     * the segments from the one holding the playback position are fetched up to `vodAhead` seconds ahead; a seek
     * wakes the loop at once. Played media more than `backBuffer` seconds behind is removed.
     */
    async playVOD(playlist) {
      this.vod = true;
      const segments = playlist.segments.filter((segment) => segment.uri);
      if (segments.length === 0) throw new Error('the replay has no media');
      let start = 0;
      for (const segment of segments) {
        segment.start = start;
        start += segment.duration;
      }
      await this.useInit(segments[0].map, segments[0].mapRange);
      await this.operations;
      this.mediaSource.duration = start;
      this.setState('playing');
      const ahead = this.vodAhead || 20;
      const loaded = new Set();
      let wake = null;
      const onSeeking = () => { if (wake) wake(); };
      this.video.addEventListener('seeking', onSeeking);
      try {
        while (!this.stopped) {
          const time = this.video.currentTime;
          let next = segments.findIndex((segment) => time < segment.start + segment.duration);
          if (next < 0) next = segments.length - 1;
          while (next < segments.length && loaded.has(next)) next++;
          if (next < segments.length && segments[next].start < time + ahead) {
            const segment = segments[next];
            if (segment.map !== this.initURI) await this.useInit(segment.map, segment.mapRange);
            const bytes = await this.fetchBytes(new URL(segment.uri, this.url).href, null, segment.range);
            await this.append(bytes);
            loaded.add(next);
            this.stats.segmentsLoaded++;
            this.stats.bytesLoaded += bytes.length;
            continue;
          }
          if (loaded.size === segments.length && this.mediaSource.readyState === 'open') {
            this.mediaSource.endOfStream();
          }
          this.trimVOD(segments, loaded);
          await new Promise((resolve) => {
            wake = resolve;
            setTimeout(resolve, 250);
          });
          wake = null;
        }
      } finally {
        this.video.removeEventListener('seeking', onSeeking);
      }
    }

    /** Removes played media more than `backBuffer` seconds behind, and forgets that its segments were loaded. */
    trimVOD(segments, loaded) {
      const ranges = this.video.buffered;
      if (ranges.length === 0 || this.trimming) return;
      const until = this.video.currentTime - this.backBuffer;
      if (until - ranges.start(0) < this.backBuffer / 2) return;
      // Whole segments only: one cut in the middle would stay "loaded", and a seek back into it would stall.
      let cut = 0;
      segments.forEach((segment, index) => {
        const end = segment.start + segment.duration;
        if (end <= until) {
          loaded.delete(index);
          cut = Math.max(cut, end);
        }
      });
      if (cut <= ranges.start(0)) return;
      this.trimming = true;
      this.enqueue((buffer) => buffer.remove(0, cut)).catch(() => {}).then(() => { this.trimming = false; });
    }

    /** Fetches a listed resource; a 404 (it left the window while we were behind) calls `gone`. */
    async loadMedia(uri, gone) {
      try {
        return await this.media(uri);
      } catch (error) {
        if (error instanceof HTTPError && error.status === 404) {
          gone();
          return null;
        }
        throw error;
      }
    }
  }

  const VOLUME_KEY = 'stream-volume';
  const SOUND_KEY = 'stream-sound';

  /**
   * Writes a video element's volume, and whether its sound is on, now. For a viewer's own change (the slider, the
   * Sound button): the element's `volumechange` event comes later, as a task, and a page left or reloaded right
   * after the change would otherwise keep the value before it.
   * @param {HTMLVideoElement} video the element
   */
  function saveVolume(video) {
    try {
      global.localStorage.setItem(VOLUME_KEY, String(video.volume));
      global.localStorage.setItem(SOUND_KEY, video.muted ? 'off' : 'on');
    } catch (error) { /* storage off: nothing is remembered */ }
  }

  /**
   * Restores a video element's volume (0 to 1) from localStorage and remembers every change, with whether the
   * sound was on. The video still starts muted (browsers only autoplay muted video).
   * @param {HTMLVideoElement} video the element
   * @returns {boolean} whether the sound was on when last changed
   */
  function rememberVolume(video) {
    let soundWasOn = false;
    try {
      const saved = global.localStorage.getItem(VOLUME_KEY);
      if (saved !== null && Number(saved) >= 0 && Number(saved) <= 1) video.volume = Number(saved);
      soundWasOn = global.localStorage.getItem(SOUND_KEY) === 'on';
    } catch (error) { /* storage off: nothing is remembered */ }
    let muted = video.muted;
    video.addEventListener('volumechange', () => {
      try {
        global.localStorage.setItem(VOLUME_KEY, String(video.volume));
        // Only a change of muted is the viewer's choice of sound (the restored volume above fires this too).
        if (video.muted !== muted) global.localStorage.setItem(SOUND_KEY, video.muted ? 'off' : 'on');
      } catch (error) { /* storage off */ }
      muted = video.muted;
    });
    return soundWasOn;
  }

  global.StreamHLSPlayer = StreamHLSPlayer;
  global.StreamHLS = {
    parsePlaylist: parsePlaylist, parseAttributes: parseAttributes, codecsOf: codecsOf, rememberVolume: rememberVolume,
    saveVolume: saveVolume,
  };
})(window);
