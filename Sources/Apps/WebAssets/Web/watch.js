// Stream's watch page (/watch/NAME): the show's picture through Stream's LL-HLS player, and its chat, reactions,
// count and moderation over the live-show protocol (docs/live-protocol.md) on /v1/streams/NAME.
//
// The access token comes from the URL fragment (#token=…), which browsers never send to servers; the page keeps it
// for this tab only (sessionStorage) and removes it from the address bar. Without one the watcher is a visitor.
// No outside resource: everything the page uses is served by `stream serve`.
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const els = {
    title: $('title'), state: $('state'), viewers: $('viewers'), you: $('you'), video: $('video'),
    layer: $('reactions-layer'), curtain: $('curtain'), curtainText: $('curtain-text'), rejoin: $('rejoin'),
    sound: $('sound'), fullscreen: $('fullscreen'), reactionButtons: $('reaction-buttons'),
    hostTools: $('host-tools'), slowSelect: $('slow-select'), clearChat: $('clear-chat'), endShow: $('end-show'),
    pinned: $('pinned'), pinnedBody: $('pinned-body'), unpin: $('unpin'), messages: $('messages'),
    slowNote: $('slow-note'), error: $('error'), compose: $('compose'), text: $('text'), send: $('send'),
    chatEmpty: $('chat-empty'), reactionNote: $('reaction-note'), pause: $('pause'), goLive: $('go-live'),
    volume: $('volume'), description: $('description'), mode: $('mode'),
    broadcast: $('broadcast'), publish: $('publish'), camera: $('camera'),
    microphone: $('microphone'), shareScreen: $('share-screen'), mainChoice: $('main-choice'),
    publishStatus: $('publish-status'), tileChoice: $('tile-choice'), tileView: $('tile-view'),
    tileVideo: $('tile-video'), tileLabel: $('tile-label'), tileSwap: $('tile-swap'), tileClose: $('tile-close'),
    stage: $('stage'), replays: $('replays'), replayList: $('replay-list'),
    visitorLine: $('visitor-line'), visitorShown: $('visitor-shown'), visitorRename: $('visitor-rename'),
    visitorForm: $('visitor-form'), visitorName: $('visitor-name'), visitorCancel: $('visitor-cancel'),
  };

  const REACTION_ICONS = {
    heart: '<path d="M12 20C4 14 1 9.5 4 6c2.5-2.8 6.5-2 8 1 1.5-3 5.5-3.8 8-1 3 3.5 0 8-8 14z" fill="#e5484d"/>',
    like: '<rect x="2" y="10" width="4" height="10" rx="1" fill="#4f8cff"/><path d="M8 10l4-7c1.5 0 2.5 1 2 3l-1 3'
      + 'h6.5c1.5 0 2.5 1.3 2.1 2.7l-1.8 6.8c-.3.9-1.1 1.5-2 1.5H8z" fill="#4f8cff"/>',
    laugh: '<circle cx="12" cy="12" r="10" fill="#f5c542"/><path d="M7 9.5q1.5-1.5 3 0M14 9.5q1.5-1.5 3 0" '
      + 'stroke="#5a3b00" stroke-width="1.5" fill="none" stroke-linecap="round"/><path d="M6.5 13h11c0 3.5-2.5 '
      + '5.5-5.5 5.5s-5.5-2-5.5-5.5z" fill="#5a3b00"/>',
    wow: '<circle cx="12" cy="12" r="10" fill="#f5c542"/><circle cx="8.5" cy="9.5" r="1.4" fill="#5a3b00"/>'
      + '<circle cx="15.5" cy="9.5" r="1.4" fill="#5a3b00"/><ellipse cx="12" cy="15.5" rx="2.4" ry="3" '
      + 'fill="#5a3b00"/>',
    clap: '<g fill="#f2b880"><rect x="5" y="7" width="7" height="13" rx="3.5" transform="rotate(-15 8.5 13.5)"/>'
      + '<rect x="11" y="7" width="7" height="13" rx="3.5" transform="rotate(15 14.5 13.5)"/></g><path d="M12 '
      + '1.5v3M7 3l1.5 2.5M17 3l-1.5 2.5" stroke="#f5c542" stroke-width="1.6" stroke-linecap="round"/>',
    fire: '<path d="M12 2c1 4 6 6 6 12a6 6 0 0 1-12 0c0-3.5 2-5 3-7 .5 2 1.5 3 2.5 3-.5-3-.5-5.5.5-8z" '
      + 'fill="#ff7a1a"/><path d="M12 12c1 2 3 3 3 5a3 3 0 0 1-6 0c0-1.5 1.5-2.5 3-5z" fill="#ffd23f"/>',
  };
  const REACTION_WORDS = { heart: 'Love', like: 'Like', laugh: 'Laugh', wow: 'Wow', clap: 'Applause', fire: 'Fire' };
  const STATE_WORDS = { idle: 'Not live', live: 'Live', ended: 'Ended' };
  const MAX_MESSAGES = 500;
  const MAX_FLOATS = 40;

  // MARK: WebRTC (docs/webrtc.md "A show over WHEP", "A show's pictures over WHIP")

  /** Resolves when the connection's ICE gathering is complete (the server takes no trickle), or after `ms`. */
  function gathered(pc, ms) {
    if (pc.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if (pc.iceGatheringState !== 'complete') return;
        pc.removeEventListener('icegatheringstatechange', done);
        resolve();
      };
      pc.addEventListener('icegatheringstatechange', done);
      // Loopback and host candidates gather in milliseconds; a stuck STUN lookup must not hold the offer.
      setTimeout(resolve, ms);
    });
  }

  /** POSTs an SDP offer; the answer and the session's Location, or an Error whose message says why in words. */
  async function exchange(url, offer, bearer) {
    const headers = { 'Content-Type': 'application/sdp' };
    if (bearer) headers.Authorization = 'Bearer ' + bearer;
    const response = await fetch(url, { method: 'POST', headers: headers, body: offer, cache: 'no-store' });
    if (response.status !== 201) {
      const reason = (await response.text().catch(() => '')).trim().slice(0, 200);
      const error = new Error('the server answered ' + response.status + (reason ? ': ' + reason : ''));
      error.status = response.status;
      error.retryAfter = Number(response.headers.get('Retry-After')) || 0;
      throw error;
    }
    return { sdp: await response.text(), location: response.headers.get('Location') };
  }

  /** Ends a WHIP or WHEP session: DELETE on its Location (kept alive past an unload). */
  function hangUp(where, bearer) {
    if (!where) return;
    const headers = bearer ? { Authorization: 'Bearer ' + bearer } : {};
    fetch(where, { method: 'DELETE', headers: headers, keepalive: true }).catch(() => {});
  }

  /**
   * The main picture over WHEP, receive-only video and audio. Events: `statechange` with `connected` or `error`
   * (then `failure` says why). The page's player face: stop, setURL, pause, goLive, behind.
   */
  // A connection that went `disconnected` (its consent checks unanswered: the path is gone, or blinked) and is not
  // back within this long counts as lost: the session is ended and made again. Browsers wait far longer for
  // `failed` (Chrome about 30 s), while the picture is already frozen.
  const CONNECTION_GRACE_MS = 2500;

  /** Runs `lost` once `pc` has stayed disconnected for the grace; the returned timer is cleared on any change. */
  function whenStillLost(pc, lost) {
    return setTimeout(() => { if (pc.connectionState !== 'connected') lost(); }, CONNECTION_GRACE_MS);
  }

  class StreamWHEPPlayer extends EventTarget {
    constructor(video, url, bearer) {
      super();
      this.video = video;
      this.url = url;
      this.bearer = bearer;
      this.pc = null;
      this.location = null;
      this.connected = false;
      this.wasConnected = false;
      this.failure = null;
      this.behind = false;
      this.stopped = false;
    }

    async start() {
      const pc = new RTCPeerConnection();
      this.pc = pc;
      pc.addTransceiver('video', { direction: 'recvonly' });
      pc.addTransceiver('audio', { direction: 'recvonly' });
      const stream = new MediaStream();
      pc.addEventListener('track', (event) => {
        stream.addTrack(event.track);
        if (this.video.srcObject !== stream) this.video.srcObject = stream;
        this.video.play().catch(() => {});
      });
      pc.addEventListener('connectionstatechange', () => {
        if (this.stopped) return;
        clearTimeout(this.lostTimer);
        if (pc.connectionState === 'connected') {
          this.connected = this.wasConnected = true;
          this.emit('connected');
        } else if (pc.connectionState === 'failed' || pc.connectionState === 'closed') {
          this.fail('the WebRTC connection ' + pc.connectionState);
        } else if (pc.connectionState === 'disconnected') {
          this.lostTimer = whenStillLost(pc, () => this.fail('the WebRTC connection was lost'));
        }
      });
      try {
        await pc.setLocalDescription(await pc.createOffer());
        await gathered(pc, 1000);
        if (this.stopped) return;
        const answer = await exchange(this.url, pc.localDescription.sdp, this.bearer());
        if (this.stopped) {
          hangUp(answer.location && new URL(answer.location, location.href).href, this.bearer());
          return;
        }
        this.location = answer.location && new URL(answer.location, location.href).href;
        await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
      } catch (error) {
        this.status = error.status || 0;  // an HTTP refusal, not a lost path
        this.fail('WHEP: ' + (error.message || String(error)));
      }
    }

    fail(why) {
      if (this.stopped || this.failure) return;
      this.connected = false;
      this.failure = why;
      this.emit('error');
    }

    emit(state) { this.dispatchEvent(new CustomEvent('statechange', { detail: state })); }

    /** How far behind the sender the picture plays: the video jitter buffer's mean delay; null before it is known. */
    async delay() {
      if (!this.pc || !this.connected) return null;
      const report = await this.pc.getStats().catch(() => null);
      let seconds = null;
      if (report) {
        report.forEach((entry) => {
          if (entry.type === 'inbound-rtp' && entry.kind === 'video' && entry.jitterBufferEmittedCount > 0) {
            seconds = entry.jitterBufferDelay / entry.jitterBufferEmittedCount;
          }
        });
      }
      return seconds;
    }

    stop() {
      if (this.stopped) return;
      this.stopped = true;
      clearTimeout(this.lostTimer);
      hangUp(this.location, this.bearer());
      this.location = null;
      if (this.pc) this.pc.close();
      if (this.video.srcObject) this.video.srcObject = null;
    }

    setURL() { /* a media token renewal: the WHEP session is already authorized */ }
    secondsBehind() { return 0; }
    pause() { this.video.pause(); }
    goLive() { this.video.play().catch(() => {}); }
  }

  /**
   * One tile published over WHIP (send-only), H.264 preferred as the server takes it (packetization-mode 1) with
   * Opus. Events: `statechange` with `connected` or `error` (then `failure` says why).
   */
  class StreamWHIPPublisher extends EventTarget {
    constructor(url, bearer, stream) {
      super();
      this.url = url;
      this.bearer = bearer;
      this.stream = stream;
      this.pc = null;
      this.location = null;
      this.stopped = false;
      this.failure = null;
    }

    async start() {
      const pc = new RTCPeerConnection();
      this.pc = pc;
      for (const track of this.stream.getTracks()) {
        const transceiver = pc.addTransceiver(track, { direction: 'sendonly', streams: [this.stream] });
        if (track.kind === 'video') preferH264(transceiver);
      }
      pc.addEventListener('connectionstatechange', () => {
        if (this.stopped) return;
        clearTimeout(this.lostTimer);
        if (pc.connectionState === 'connected') this.emit('connected');
        else if (pc.connectionState === 'failed' || pc.connectionState === 'closed') {
          this.fail('the connection ' + pc.connectionState);
        } else if (pc.connectionState === 'disconnected') {
          this.lostTimer = whenStillLost(pc, () => this.fail('the connection was lost'));
        }
      });
      try {
        await pc.setLocalDescription(await pc.createOffer());
        await gathered(pc, 1000);
        if (this.stopped) return;
        const answer = await exchange(this.url, pc.localDescription.sdp, this.bearer);
        this.location = answer.location && new URL(answer.location, location.href).href;
        if (this.stopped) {
          hangUp(this.location, this.bearer);
          return;
        }
        await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
      } catch (error) {
        this.retryAfter = error.retryAfter || 0;
        this.status = error.status || 0;
        this.fail(error.message || String(error));
      }
    }

    fail(why) {
      if (this.stopped || this.failure) return;
      this.failure = why;
      this.emit('error');
    }

    emit(state) { this.dispatchEvent(new CustomEvent('statechange', { detail: state })); }

    /** Ends the session; the tracks are the page's (a republish reuses them). */
    stop() {
      if (this.stopped) return;
      this.stopped = true;
      clearTimeout(this.lostTimer);
      hangUp(this.location, this.bearer);
      this.location = null;
      if (this.pc) this.pc.close();
    }
  }

  /** H.264 packetization-mode 1 first among the video codecs offered, where the browser lets a page choose. */
  function preferH264(transceiver) {
    if (typeof transceiver.setCodecPreferences !== 'function' || !window.RTCRtpSender
        || typeof RTCRtpSender.getCapabilities !== 'function') return;
    const capabilities = RTCRtpSender.getCapabilities('video');
    if (!capabilities) return;
    const rank = (codec) => {
      if (codec.mimeType.toLowerCase() !== 'video/h264') return 2;
      return /packetization-mode=1/.test(codec.sdpFmtpLine || '') ? 0 : 1;
    };
    const codecs = capabilities.codecs.slice().sort((a, b) => rank(a) - rank(b));
    try { transceiver.setCodecPreferences(codecs); } catch (error) { /* the offer keeps the browser's order */ }
  }

  // The stream's name from the address, and the token from the fragment (kept for this tab, off the address bar).
  const name = decodeURIComponent(location.pathname.replace(/^\/watch\//, '').replace(/\/+$/, ''));
  const tokenKey = 'stream-token:' + name;
  const fragment = new URLSearchParams(location.hash.slice(1));
  let token = fragment.get('token') || fragment.get('access_token');
  try {
    if (token) sessionStorage.setItem(tokenKey, token); else token = sessionStorage.getItem(tokenKey);
  } catch (error) { /* storage off: the token lives as long as the page */ }
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  // The show's last keyframe as the picture's poster until it plays (docs/live-protocol.md "Posters"); a show that
  // is not live answers 404 and the video stays blank.
  if (/^[A-Za-z0-9:_.-]{1,128}$/.test(name)) els.video.poster = '/v1/streams/' + name + '/poster.jpg';

  // A visitor's identity (docs/live-protocol.md "Visitors"): the token of its first welcome and the name it chose,
  // kept for this server (localStorage), so the visitor is the same one after a reload, a reconnect or tomorrow.
  const visitorTokenKey = 'stream-visitor-token';
  const visitorNameKey = 'stream-visitor-name';
  function stored(key) {
    try { return localStorage.getItem(key); } catch (error) { return null; }
  }
  function store(key, value) {
    try {
      if (value) localStorage.setItem(key, value); else localStorage.removeItem(key);
    } catch (error) { /* storage off: the visitor is new after a reload */ }
  }
  let rejoinNow = false;

  const model = {
    show: null, you: null, state: null, media: 'off', viewers: 0, pinned: null, slow: 0, reactions: [],
    epoch: null, seq: 0, messages: new Map(), slowUntil: 0, over: null, access: null, reactionsUntil: 0,
  };

  // MARK: Words

  /** What an error code means, in words (docs/live-protocol.md "Error codes"). */
  function errorInWords(error, op) {
    const wait = error.retryAfter ? ' ' + duration(error.retryAfter) : '';
    switch (error.code) {
      case 'not_host':
        return MODERATION_OPS.has(op)
          ? 'Only the host and moderators can do that, and moderators cannot act on the host or another moderator.'
          : 'Only the host can do that.';
      case 'read_only': return 'You can watch this stream but not write in its chat or react.';
      case 'slow': return 'Slow mode is on: you can write again in' + wait + '.';
      case 'timeout': return 'You are timed out: you can write again in' + wait + '.';
      case 'unauthorized':
        return token ? 'Your access link is not valid (' + (error.reason || 'refused') + '). Ask for a new one.'
          : 'This stream is for signed-in viewers only: open it with your access link.';
      case 'not_found': return 'There is no stream called “' + name + '”.';
      case 'banned': return 'You are banned from this stream.';
      case 'invalid': return 'That was not accepted: ' + (error.reason || 'invalid request') + '.';
      case 'rate_limited': return 'Too fast: wait' + (wait || ' a moment') + ' and try again.';
      case 'unavailable': return 'The server could not do that just now (' + (error.reason || 'unavailable')
        + '). Try again.';
      default: return error.reason || error.code || 'Something went wrong.';
    }
  }
  const MODERATION_OPS = new Set(['deleteMessage', 'pin', 'unpin', 'setSlow', 'clearChat', 'timeout', 'kick',
                                  'ban', 'unban']);

  const ENDED_WORDS = {
    left: 'You left the stream.',
    kicked: 'A moderator removed you from the stream. You may join again.',
    banned: 'You were banned from this stream.',
  };

  function duration(seconds) {
    if (seconds < 90) return seconds + ' s';
    if (seconds < 5400) return Math.round(seconds / 60) + ' min';
    return Math.round(seconds / 3600) + ' h';
  }

  function clock(time) {
    const date = new Date(time);
    return String(date.getHours()).padStart(2, '0') + ':' + String(date.getMinutes()).padStart(2, '0');
  }

  let errorTimer = null;
  function showError(text) {
    els.error.textContent = text;
    els.error.hidden = false;
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => { els.error.hidden = true; }, 10000);
  }

  // MARK: The connection

  let socket = null;
  let nextID = 1;
  let pending = new Map();
  let attempts = 0;
  let reconnectTimer = null;

  function connect() {
    clearTimeout(reconnectTimer);
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let url = scheme + '//' + location.host + '/v1/streams/' + encodeURIComponent(name);
    if (token) url += '?access_token=' + encodeURIComponent(token);
    socket = new WebSocket(url);
    const mine = socket;
    socket.addEventListener('open', () => {
      const fields = {};
      if (model.epoch) fields.since = { epoch: model.epoch, seq: model.seq };
      if (!token) {
        const visitor = stored(visitorTokenKey);
        const chosen = stored(visitorNameKey);
        if (visitor) fields.visitor = visitor;
        if (chosen) fields.name = chosen;
      }
      request('join', fields).then(joined, () => {});
    });
    socket.addEventListener('message', (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch (error) { return; }
      if ('reply' in message) {
        const waiting = pending.get(message.reply);
        pending.delete(message.reply);
        if (waiting) waiting(message);
      } else if (message.event) {
        onEvent(message);
      }
    });
    socket.addEventListener('close', (event) => {
      if (mine !== socket) return;
      for (const waiting of pending.values()) waiting({ ok: false, error: { code: 'closed' } });
      pending = new Map();
      socket = null;
      updateCompose();
      if (model.over) return;
      if (rejoinNow) {
        rejoinNow = false;
        connect();
        return;
      }
      // 1001: the server is going away; anything else unplanned: try again with backoff, rejoining with `since`.
      const delay = Math.min(15000, 1000 * Math.pow(2, attempts++));
      if (model.state !== 'ended') setState(model.state, 'Reconnecting…');
      reconnectTimer = setTimeout(connect, event.code === 1001 ? 1000 + Math.random() * 2000 : delay);
    });
  }

  /** Sends a request; resolves with its reply (ok or not). */
  function request(op, fields) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.resolve({ ok: false, error: { code: 'closed' } });
    }
    const id = nextID++;
    socket.send(JSON.stringify(Object.assign({ op: op, id: id }, fields || {})));
    return new Promise((resolve) => pending.set(id, resolve));
  }

  /** Says in words why a request was refused. */
  function showRefusal(error, op) {
    showError(error.code === 'closed' ? 'Not connected: wait for the page to reconnect.' : errorInWords(error, op));
  }

  /** Sends a request and says in words why it was refused. */
  async function act(op, fields) {
    const reply = await request(op, fields);
    if (!reply.ok) {
      showRefusal(reply.error, op);
      if (reply.error.code === 'slow' || reply.error.code === 'timeout') {
        model.slowUntil = Date.now() + (reply.error.retryAfter || 0) * 1000;
        updateCompose();
      }
    }
    return reply;
  }

  function joined(reply) {
    if (!reply.ok) {
      if (reply.error.code === 'closed') return;
      const code = reply.error.code;
      if (code === 'unauthorized' && token) {
        try { sessionStorage.removeItem(tokenKey); } catch (error) { /* storage off */ }
      }
      if (code === 'invalid' && !token && stored(visitorNameKey)) {
        // The name kept from before is refused (rules change): join again under the server's name.
        store(visitorNameKey, null);
        rejoinNow = true;
        return;
      }
      finish(errorInWords(reply.error, 'join'), code === 'unavailable');
      if (code === 'unavailable') reconnectTimer = setTimeout(() => { model.over = null; connect(); }, 5000);
      return;
    }
    attempts = 0;
    const show = reply.show;
    model.show = show;
    model.you = reply.you;
    if (reply.visitor) store(visitorTokenKey, reply.visitor.token);
    showVisitor(reply.visitor ? reply.you.name : null);
    model.viewers = show.viewers;
    model.pinned = show.pinned;
    model.slow = show.slow;
    model.reactions = show.reactions || [];
    model.main = show.main;
    model.tiles = show.tiles || [];
    model.media = show.main ? 'on' : 'off';
    setAccess(reply.access);
    const chat = reply.chat;
    if (chat.reset) {
      model.messages = new Map();
      els.messages.textContent = '';
    } else {
      for (const id of chat.deleted || []) removeMessage(id);
    }
    model.epoch = chat.epoch;
    model.seq = chat.seq;
    for (const message of chat.messages) addMessage(message);
    renderAbout(show);
    renderTileChoice();
    renderReactionButtons();
    renderYou();
    renderPinned();
    renderViewers();
    renderSlow();
    setState(show.state);
    updateCompose();
    scrollToEnd(true);
  }

  function onEvent(event) {
    switch (event.event) {
      case 'state': setState(event.state); break;
      case 'tiles': {
        const moved = model.main !== event.main;
        model.main = event.main;
        model.tiles = event.tiles || [];
        renderBroadcast();
        renderTileChoice();
        if (moved) mainChanged();
        break;
      }
      case 'media':
        model.media = event.media;
        model.main = event.main;
        updatePicture();
        break;
      case 'viewers': model.viewers = event.viewers; renderViewers(); break;
      case 'message':
        model.seq = Math.max(model.seq, event.seq);
        addMessage(event.message);
        scrollToEnd(false);
        break;
      case 'deleted':
        model.seq = Math.max(model.seq, event.seq);
        removeMessage(event.message);
        break;
      case 'cleared':
        model.seq = Math.max(model.seq, event.seq);
        model.messages = new Map();
        els.messages.textContent = '';
        renderChatEmpty();
        addSystemLine('The chat was cleared.');
        break;
      case 'pinned': model.pinned = event.message; renderPinned(); break;
      case 'slow':
        model.slow = event.seconds;
        if (event.seconds === 0) model.slowUntil = 0;
        renderSlow();
        updateCompose();
        break;
      case 'reactions': floatReactions(event.counts || {}); break;
      case 'you':
        model.you = event.you;
        renderYou();
        updateCompose();
        break;
      case 'ended':
        finish(ENDED_WORDS[event.reason] || 'You are out of the stream.', event.reason === 'kicked');
        break;
      case 'access': setAccess(event.access); break;
      default: break;
    }
  }

  /** This page is out of the stream (ended, refused): says why, stops the picture, and offers to join again. */
  function finish(text, canRejoin) {
    model.over = text;
    clearTimeout(reconnectTimer);
    stopPlayer();
    els.curtainText.textContent = text;
    els.curtain.hidden = false;
    els.curtain.dataset.over = 'true';
    els.rejoin.hidden = !canRejoin;
    updateCompose();
    if (canRejoin) els.rejoin.focus();
  }

  els.rejoin.addEventListener('click', () => {
    model.over = null;
    els.rejoin.hidden = true;
    delete els.curtain.dataset.over;
    els.curtainText.textContent = 'Connecting…';
    attempts = 0;
    connect();
  });

  // MARK: State and picture

  function setState(state, note) {
    model.state = state;
    els.state.dataset.state = state || 'connecting';
    els.state.textContent = note || STATE_WORDS[state] || 'Connecting…';
    els.endShow.hidden = !(isHost() && state === 'live');
    // Ended by this host elsewhere (another tab, the CLI): the sessions here end with it.
    if (state === 'ended') stopBroadcast();
    renderBroadcast();
    // Once the show has ended nobody watches it: the count of who is still on the page would say otherwise.
    els.viewers.hidden = state === 'ended';
    updatePicture();
    renderTileChoice();
  }

  let player = null;
  let restartTimer = null;
  // The replay playing, if any, and the show's list (docs/watch.md "Replays").
  const REPLAY_REFRESH_MS = 5000;
  const replay = { player: null, id: null, list: [], timer: null, loading: false };

  function pictureWanted() {
    return !model.over && model.state === 'live' && model.media === 'on';
  }

  function updatePicture() {
    if (model.over) return;
    if (pictureWanted()) {
      // Live again: the show comes before its replays.
      stopReplay();
      els.replays.hidden = true;
      if (!player) startPlayer();
      if (els.video.readyState < 2 || (els.video.paused && !viewerPaused)) curtain('Starting the picture…');
    } else {
      stopPlayer();
      if (model.state === 'idle' || model.state === 'ended') watchReplays();
      if (replay.player) els.curtain.hidden = true;
      else if (model.state === 'ended') curtain('The show has ended.');
      else if (model.state === 'live') curtain('The host is live, without a picture right now.');
      else if (model.state === 'idle') curtain('Not live right now. The picture starts when the host goes live.');
      else curtain('Connecting…');
    }
  }

  function curtain(text) {
    if (model.over) return;
    els.curtainText.textContent = text;
    els.curtain.hidden = false;
  }

  // ?mode=plain plays the plain HLS playlist (no LL-HLS tags) as a player without LL-HLS would (whole segments,
  // three target durations behind), for comparison; ?mode=hls plays LL-HLS without trying WebRTC first.
  const queryMode = new URLSearchParams(location.search).get('mode');
  const plainMode = queryMode === 'plain';
  // WebRTC first (well under a second behind live); LL-HLS when the browser has none, the URL asks for HLS, or
  // WHEP did not connect (a picture not published over WHIP is 404, no WebRTC port, UDP blocked).
  let webrtcOff = plainMode || queryMode === 'hls' || typeof RTCPeerConnection !== 'function';
  let webrtcDrops = 0;
  // Loopback connects in 0.3 s, a LAN or the internet within 1 to 2 s: past 3 s the path is taken to be blocked.
  const WHEP_CONNECT_MS = 3000;
  const WHEP_MAX_DROPS = 2;
  const WHEP_STALL_SECONDS = 5;

  /** The main picture's playlist, with this session's media token in its path; null before a welcome gave one. */
  function playlistURL() {
    if (!model.access) return null;
    return '/hls/' + encodeURIComponent(name) + '/' + encodeURIComponent(model.access.token) + '/main.m3u8'
      + (plainMode ? '?mode=plain' : '');
  }

  /** A new media token (welcome or renewal): the player's next requests carry it (a WHEP session needs none). */
  function setAccess(access) {
    model.access = access || null;
    if (player && model.access) player.setURL(playlistURL());
  }

  function startPlayer() {
    clearTimeout(restartTimer);
    if (!model.access) {
      curtain('This server gave no media token: the picture cannot be fetched.');
      return;
    }
    if (webrtcOff) startHLS(); else startWebRTC();
    renderMode();
  }

  function startHLS() {
    const plain = plainMode;
    const started = new StreamHLSPlayer(els.video, playlistURL(), { lowLatency: !plain });
    player = started;
    window.streamPlayer = started;
    started.addEventListener('livechange', () => { if (player === started) renderBehind(); });
    started.addEventListener('statechange', (event) => {
      if (player !== started) return;
      if (event.detail === 'error' || event.detail === 'ended') {
        // The playlist is not there yet, or this publish ended while the show goes on: try again shortly.
        player = null;
        restartSoon();
      }
    });
    started.start();
  }

  function restartSoon() {
    clearTimeout(restartTimer);
    if (pictureWanted()) restartTimer = setTimeout(() => { if (!player && pictureWanted()) startPlayer(); }, 1000);
  }

  /**
   * LL-HLS from now on, saying why in the mode line. `kind` is 'path' when WebRTC cannot get through (for the page's
   * life), 'refused' when the server would not play this picture over WebRTC (tried again when the main picture
   * changes: another may play).
   */
  function fallBack(reason, kind) {
    webrtcOff = true;
    model.fallbackReason = reason;
    model.fallbackKind = kind;
    if (player) player.stop();
    player = null;
    if (pictureWanted()) startPlayer();
  }

  /** The main picture moved: a page on LL-HLS because WebRTC was refused the last one tries WebRTC again. */
  function mainChanged() {
    if (!webrtcOff || model.fallbackKind !== 'refused' || queryMode === 'hls' || plainMode) return;
    webrtcOff = false;
    webrtcDrops = 0;
    model.fallbackReason = null;
    model.fallbackKind = null;
    if (player) player.stop();
    player = null;
    if (pictureWanted()) startPlayer();
  }

  function startWebRTC() {
    const url = '/v1/streams/' + encodeURIComponent(name) + '/whep';
    // The media token of the moment: a renewal replaces it for the DELETE, the session itself goes on.
    const started = new StreamWHEPPlayer(els.video, url, () => model.access && model.access.token);
    player = started;
    window.streamWHEP = started;
    const deadline = setTimeout(() => {
      if (player === started && !started.connected) {
        fallBack('WebRTC did not connect within ' + WHEP_CONNECT_MS / 1000 + ' s', 'path');
      }
    }, WHEP_CONNECT_MS);
    // Connected but no new picture for a while (the main picture moved to one the server cannot forward, or the
    // media stopped on the way): counted as a drop, as a lost connection is.
    let still = 0;
    let shown = -1;
    const watchdog = setInterval(() => {
      if (player !== started) {
        clearInterval(watchdog);
        return;
      }
      const time = els.video.currentTime;
      still = started.connected && !viewerPaused && pictureWanted() && time === shown ? still + 1 : 0;
      shown = time;
      if (still >= WHEP_STALL_SECONDS) started.fail('no picture for ' + WHEP_STALL_SECONDS + ' s');
    }, 1000);
    started.addEventListener('statechange', (event) => {
      if (player !== started) return;
      if (event.detail === 'connected') {
        clearTimeout(deadline);
        webrtcDrops = 0;
        renderMode();
      } else if (event.detail === 'error') {
        clearTimeout(deadline);
        clearInterval(watchdog);
        const wasConnected = started.wasConnected;
        started.stop();
        player = null;
        // Refused or never connected: LL-HLS plays this picture. Dropped once connected (a publish that ended, a
        // network change): WebRTC again, and LL-HLS after repeated drops.
        if (!wasConnected || ++webrtcDrops >= WHEP_MAX_DROPS) {
          fallBack(started.failure || 'WebRTC failed', started.status ? 'refused' : 'path');
        } else {
          restartSoon();
        }
      }
    });
    started.start();
  }

  function stopPlayer() {
    clearTimeout(restartTimer);
    if (player) {
      player.stop();
      player = null;
    }
    viewerPaused = false;
    renderBehind();
    renderMode();
  }

  // MARK: Replays (docs/watch.md "Replays"): the show's finished recordings while it is not live

  /** Lists the show's replays now and every few seconds while it is not live (a replay is listed once finished). */
  function watchReplays() {
    if (replay.timer) return;
    const refresh = () => {
      if (pictureWanted() || model.over) {
        replay.timer = null;
        return;
      }
      loadReplays();
      replay.timer = setTimeout(refresh, REPLAY_REFRESH_MS);
    };
    refresh();
  }

  async function loadReplays() {
    if (replay.loading || !/^[A-Za-z0-9:_.-]{1,128}$/.test(name)) return;
    replay.loading = true;
    try {
      const query = token ? '?access_token=' + encodeURIComponent(token) : '';
      const response = await fetch('/v1/streams/' + name + '/recordings' + query, { cache: 'no-store' });
      if (!response.ok) return;  // not recording, or not for this watcher: no list
      const body = await response.json();
      replay.list = Array.isArray(body.recordings) ? body.recordings : [];
      if (!pictureWanted()) renderReplays();
    } catch (error) {
      /* offline for a moment: the next refresh tries again */
    } finally {
      replay.loading = false;
    }
  }

  function renderReplays() {
    els.replayList.replaceChildren(...replay.list.map((entry) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.id = entry.id;
      button.setAttribute('aria-pressed', String(entry.id === replay.id));
      button.textContent = 'Replay ' + clock(entry.startedAt) + ' · ' + duration(Math.round(entry.duration));
      button.addEventListener('click', () => playReplay(entry));
      item.append(button);
      return item;
    }));
    els.replays.hidden = replay.list.length === 0;
  }

  /** Plays a replay in the main video, with its own controls (a seek bar) in place of the live ones. */
  function playReplay(entry) {
    stopReplay();
    stopPlayer();
    const started = new StreamHLSPlayer(els.video, entry.playlist, { lowLatency: false });
    replay.player = started;
    replay.id = entry.id;
    window.streamPlayer = started;
    els.stage.dataset.replay = entry.id;
    els.video.controls = true;
    els.curtain.hidden = true;
    started.addEventListener('statechange', (event) => {
      if (replay.player !== started || event.detail !== 'error') return;
      stopReplay();
      curtain('This replay could not be played' + (started.lastError ? ': ' + started.lastError : '') + '.');
    });
    started.start();
    els.video.play().catch(() => {});
    renderReplays();
  }

  function stopReplay() {
    if (!replay.player) return;
    replay.player.stop();
    replay.player = null;
    replay.id = null;
    delete els.stage.dataset.replay;
    els.video.controls = false;
    renderReplays();
  }

  // MARK: Another picture beside the main one

  const tileView = { tile: null, player: null };

  /** "Also watch:" with a button per live picture other than the main one, for anyone watching. */
  function renderTileChoice() {
    const others = pictureWanted() ? (model.tiles || []).filter((tile) => tile !== model.main) : [];
    if (tileView.tile && !(model.tiles || []).includes(tileView.tile)) closeTile();
    els.tileChoice.hidden = others.length === 0;
    els.tileChoice.textContent = '';
    if (others.length === 0) return;
    const label = document.createElement('span');
    label.textContent = 'Also watch:';
    els.tileChoice.append(label);
    for (const tile of others) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = TILE_WORDS[tile] || tile;
      button.dataset.tile = tile;
      button.setAttribute('aria-pressed', String(tileView.tile === tile));
      button.addEventListener('click', () => (tileView.tile === tile ? closeTile() : openTile(tile)));
      els.tileChoice.append(button);
    }
  }

  /** Plays one tile in the small picture: over WebRTC (WHEP ?tile=), else its LL-HLS playlist. */
  function openTile(tile) {
    closeTile();
    tileView.tile = tile;
    els.tileView.hidden = false;
    els.tileLabel.textContent = TILE_WORDS[tile] || tile;
    const playHLS = () => {
      if (tileView.tile !== tile || !model.access) return;
      const url = '/hls/' + encodeURIComponent(name) + '/' + encodeURIComponent(model.access.token) + '/'
        + encodeURIComponent(tile) + '.m3u8';
      const hls = new StreamHLSPlayer(els.tileVideo, url, { lowLatency: true });
      tileView.player = hls;
      hls.start();
    };
    if (webrtcOff) {
      playHLS();
    } else {
      const url = '/v1/streams/' + encodeURIComponent(name) + '/whep?tile=' + encodeURIComponent(tile);
      const whep = new StreamWHEPPlayer(els.tileVideo, url, () => model.access && model.access.token);
      tileView.player = whep;
      window.streamTileWHEP = whep;
      whep.addEventListener('statechange', (event) => {
        if (tileView.player !== whep || event.detail !== 'error') return;
        whep.stop();
        playHLS();
      });
      whep.start();
    }
    renderTileChoice();
  }

  function closeTile() {
    if (tileView.player) tileView.player.stop();
    tileView.player = null;
    tileView.tile = null;
    els.tileView.hidden = true;
    els.tileVideo.removeAttribute('src');
    els.tileVideo.srcObject = null;
    els.stage.classList.remove('tile-instead');
    els.tileSwap.setAttribute('aria-pressed', 'false');
    els.tileSwap.textContent = 'Show instead';
    renderTileChoice();
  }

  els.tileClose.addEventListener('click', closeTile);
  els.tileSwap.addEventListener('click', () => {
    const instead = els.stage.classList.toggle('tile-instead');
    els.tileSwap.setAttribute('aria-pressed', String(instead));
    els.tileSwap.textContent = instead ? 'Show beside' : 'Show instead';
  });

  let modeTimer = null;
  /** The small line under the picture: which way the picture comes, and how far behind live where known. */
  async function renderMode() {
    clearTimeout(modeTimer);
    if (!player) {
      els.mode.hidden = true;
      return;
    }
    const current = player;
    let text;
    if (current instanceof StreamWHEPPlayer) {
      const delay = await current.delay();
      if (player !== current) return;
      text = 'WebRTC' + (delay === null ? '' : ' · ' + delay.toFixed(2) + ' s behind live');
    } else {
      const seconds = current.secondsBehind ? current.secondsBehind() : null;
      text = (plainMode ? 'HLS' : 'LL-HLS') + (typeof seconds === 'number' && isFinite(seconds) && seconds > 0
        ? ' · ' + seconds.toFixed(1) + ' s behind live' : '')
        + (model.fallbackReason ? ' (' + model.fallbackReason + ')' : '');
    }
    els.mode.hidden = false;
    els.mode.textContent = text;
    els.mode.dataset.mode = current instanceof StreamWHEPPlayer ? 'webrtc' : 'hls';
    modeTimer = setTimeout(renderMode, 1000);
  }

  els.video.addEventListener('playing', () => {
    if (!model.over && pictureWanted()) els.curtain.hidden = true;
  });

  // MARK: Going live from the page (host): WHIP tiles camera and screen

  const broadcast = { camera: null, screen: null, publishers: {}, words: {}, retries: {}, timers: {} };
  const TILE_WORDS = { camera: 'Camera', screen: 'Screen', obs: 'OBS' };

  function whipURL(tile) { return '/v1/streams/' + encodeURIComponent(name) + '/whip?tile=' + tile; }

  /** What the page is doing for each tile, in words (never a token: the server's reasons quote none). */
  function say(tile, text) {
    if (text) broadcast.words[tile] = text; else delete broadcast.words[tile];
    els.publishStatus.textContent = Object.keys(broadcast.words)
      .map((key) => (TILE_WORDS[key] || key) + ': ' + broadcast.words[key]).join(' · ');
  }

  function renderBroadcast() {
    const host = isHost() && !!token && typeof RTCPeerConnection === 'function' && !!navigator.mediaDevices;
    els.broadcast.hidden = !isHost();
    const on = !!broadcast.camera;
    els.publish.hidden = on;
    els.publish.disabled = !host || !!model.over;
    if (isHost() && !host && !on) {
      say('camera', token ? 'this browser cannot publish (no WebRTC or no camera access on this address)'
        : 'going live needs the host\'s access link');
    }
    els.camera.hidden = els.microphone.hidden = els.shareScreen.hidden = !on;
    if (on) {
      const video = broadcast.camera.getVideoTracks()[0];
      const audio = broadcast.camera.getAudioTracks()[0];
      toggleWords(els.camera, 'Camera', !!video && video.enabled);
      toggleWords(els.microphone, 'Microphone', !!audio && audio.enabled);
      els.shareScreen.textContent = broadcast.screen ? 'Stop sharing' : 'Share screen';
      els.shareScreen.disabled = !navigator.mediaDevices.getDisplayMedia;
    }
    renderMainChoice();
  }

  function toggleWords(button, word, enabled) {
    button.textContent = word + (enabled ? ' on' : ' off');
    button.setAttribute('aria-pressed', String(enabled));
  }

  /** The host's main-picture choice (setMain) among the live tiles, and Auto (the default order). */
  function renderMainChoice() {
    const tiles = isHost() ? (model.tiles || []) : [];
    els.mainChoice.hidden = tiles.length < 2;
    els.mainChoice.textContent = '';
    if (tiles.length < 2) return;
    const label = document.createElement('span');
    label.textContent = 'Main picture:';
    els.mainChoice.append(label);
    for (const tile of tiles.concat([null])) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = tile ? (TILE_WORDS[tile] || tile) : 'Auto';
      button.dataset.tile = tile || '';
      button.setAttribute('aria-pressed', String(tile !== null && model.main === tile));
      button.addEventListener('click', () => act('setMain', { tile: tile }));
      els.mainChoice.append(button);
    }
  }

  /** Publishes one tile over WHIP; a connection that fails or drops publishes again (a new session) by itself. */
  function publishTile(tile, stream) {
    clearTimeout(broadcast.timers[tile]);
    const publisher = new StreamWHIPPublisher(whipURL(tile), token, stream);
    broadcast.publishers[tile] = publisher;
    say(tile, broadcast.retries[tile] ? 'reconnecting…' : 'connecting…');
    publisher.addEventListener('statechange', (event) => {
      if (broadcast.publishers[tile] !== publisher) return;
      if (event.detail === 'connected') {
        broadcast.retries[tile] = 0;
        say(tile, 'live');
        return;
      }
      publisher.stop();
      delete broadcast.publishers[tile];
      // A refusal that another try would get again (a bad link, not a host, a bad tile) stops here.
      if ([400, 401, 403, 415].includes(publisher.status)) {
        say(tile, 'refused: ' + publisher.failure);
        return;
      }
      const tries = broadcast.retries[tile] = (broadcast.retries[tile] || 0) + 1;
      const wait = Math.max(publisher.retryAfter * 1000, Math.min(1000 * 2 ** (tries - 1), 10000));
      say(tile, 'reconnecting in ' + Math.round(wait / 1000) + ' s (' + publisher.failure + ')');
      broadcast.timers[tile] = setTimeout(() => {
        const source = tile === 'camera' ? broadcast.camera : broadcast.screen;
        if (source && !broadcast.publishers[tile]) publishTile(tile, source);
      }, wait);
    });
    publisher.start();
  }

  function unpublishTile(tile) {
    clearTimeout(broadcast.timers[tile]);
    const publisher = broadcast.publishers[tile];
    delete broadcast.publishers[tile];
    delete broadcast.retries[tile];
    if (publisher) publisher.stop();
    say(tile, null);
  }

  async function goLiveFromPage() {
    els.publish.disabled = true;
    say('camera', 'asking for the camera and microphone…');
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { width: { ideal: 1280 }, height: { ideal: 720 }, frameRate: { ideal: 30 } }, audio: true });
    } catch (error) {
      say('camera', 'no camera: ' + (error.message || error.name));
      els.publish.disabled = false;
      return;
    }
    // After End the show, a publish is refused until goLive reopens it (docs/live-protocol.md).
    if (model.state === 'ended') {
      const reply = await act('goLive', { tiles: ['camera'] });
      if (!reply.ok) {
        for (const track of stream.getTracks()) track.stop();
        say('camera', null);
        renderBroadcast();
        return;
      }
    }
    broadcast.camera = stream;
    // Made only when going live: a viewer's page has one video, the picture.
    if (!els.preview) {
      els.preview = document.createElement('video');
      els.preview.id = 'preview';
      els.preview.className = 'preview';
      els.preview.muted = els.preview.autoplay = els.preview.playsInline = true;
      els.preview.setAttribute('aria-label', 'Your camera');
      els.video.after(els.preview);
    }
    els.preview.srcObject = stream;
    els.preview.hidden = false;
    publishTile('camera', stream);
    renderBroadcast();
  }

  async function toggleScreen() {
    if (broadcast.screen) {
      stopScreen();
      return;
    }
    say('screen', 'asking which screen to share…');
    let stream;
    try {
      // The tab's or the system's sound where the browser offers it (Chrome's "Share audio"): the tile's sound.
      stream = await navigator.mediaDevices.getDisplayMedia({ video: { frameRate: { ideal: 15 } }, audio: true });
    } catch (error) {
      say('screen', 'not shared: ' + (error.message || error.name));
      return;
    }
    broadcast.screen = stream;
    // The browser's own "Stop sharing" ends the track: the tile ends with it.
    stream.getVideoTracks()[0].addEventListener('ended', stopScreen);
    publishTile('screen', stream);
    renderBroadcast();
  }

  function stopScreen() {
    unpublishTile('screen');
    if (broadcast.screen) for (const track of broadcast.screen.getTracks()) track.stop();
    broadcast.screen = null;
    renderBroadcast();
  }

  /** Ends every tile this page publishes and lets the camera go. */
  function stopBroadcast() {
    stopScreen();
    unpublishTile('camera');
    if (broadcast.camera) for (const track of broadcast.camera.getTracks()) track.stop();
    broadcast.camera = null;
    if (els.preview) {
      els.preview.srcObject = null;
      els.preview.hidden = true;
    }
    renderBroadcast();
  }

  /** Camera and Microphone mute the track (the receivers get black or silence), the session goes on. */
  function toggleTrack(kind) {
    if (!broadcast.camera) return;
    for (const track of kind === 'video' ? broadcast.camera.getVideoTracks() : broadcast.camera.getAudioTracks()) {
      track.enabled = !track.enabled;
    }
    renderBroadcast();
  }

  els.publish.addEventListener('click', goLiveFromPage);
  els.camera.addEventListener('click', () => toggleTrack('video'));
  els.microphone.addEventListener('click', () => toggleTrack('audio'));
  els.shareScreen.addEventListener('click', toggleScreen);
  // Leaving the page ends its sessions on the server now rather than at their ICE timeout.
  window.addEventListener('pagehide', () => {
    for (const tile of Object.keys(broadcast.publishers)) broadcast.publishers[tile].stop();
    if (player) player.stop();
  });

  // MARK: Sound, volume, pause and the live edge

  /** The Sound button and the volume slider say the element's state (the slider shows 0 while muted). */
  function renderSound() {
    const video = els.video;
    els.sound.textContent = video.muted ? 'Sound off' : 'Sound on';
    els.sound.setAttribute('aria-pressed', String(!video.muted));
    els.volume.value = String(Math.round((video.muted ? 0 : video.volume) * 100));
    els.volume.setAttribute('aria-valuetext', video.muted ? 'muted' : Math.round(video.volume * 100) + ' %');
  }

  /** Sound on or off; sound on after a click or key is allowed to play (browsers autoplay only muted video). */
  function setSound(on) {
    const video = els.video;
    if (on && video.volume === 0) video.volume = 0.5;
    video.muted = !on;
    StreamHLS.saveVolume(video);
    if (on && !viewerPaused) video.play().catch(() => {});
  }

  function toggleSound() { setSound(els.video.muted); }
  els.sound.addEventListener('click', toggleSound);
  els.video.addEventListener('volumechange', renderSound);
  // The slider sets the volume; moving it up turns the sound on, down to 0 turns it off (the volume is kept).
  els.volume.addEventListener('input', () => {
    const level = Number(els.volume.value) / 100;
    if (level === 0) {
      els.video.muted = true;
    } else {
      els.video.volume = level;
      if (els.video.muted) setSound(true);
    }
    StreamHLS.saveVolume(els.video);
  });
  // The volume is remembered (localStorage); a page whose sound was on last time turns it on at the first click or
  // key (a user activation), as the Sound button would.
  const soundWasOn = StreamHLS.rememberVolume(els.video);
  renderSound();
  if (soundWasOn) {
    const onFirstGesture = (event) => {
      document.removeEventListener('pointerdown', onFirstGesture, true);
      document.removeEventListener('keydown', onFirstGesture, true);
      const target = event.target;
      if (target === els.sound || target === els.volume || (event.key === 'm' && event.type === 'keydown')) return;
      if (els.video.muted) setSound(true);
    };
    document.addEventListener('pointerdown', onFirstGesture, true);
    document.addEventListener('keydown', onFirstGesture, true);
  }

  // A pause is the viewer's: the player stops following the live edge and plays on from there, behind live.
  let viewerPaused = false;
  function togglePause() {
    if (!player) {
      // A replay: the video's own play and pause (nothing to fall behind).
      if (replay.player && els.video.paused) els.video.play().catch(() => {});
      else if (replay.player) els.video.pause();
      return;
    }
    if (els.video.paused) {
      viewerPaused = false;
      els.video.play().catch(() => {});
    } else {
      viewerPaused = true;
      player.pause();
    }
  }
  els.pause.addEventListener('click', togglePause);
  for (const kind of ['play', 'pause']) {
    els.video.addEventListener(kind, () => {
      const paused = els.video.paused;
      els.pause.textContent = paused ? 'Play' : 'Pause';
      els.pause.title = (paused ? 'Play' : 'Pause') + ' (k)';
      if (!paused) viewerPaused = false;
    });
  }

  let behindTimer = null;
  /** "Go live" shows while the player is more than a few seconds behind the live edge, with how far. */
  function renderBehind() {
    clearTimeout(behindTimer);
    const behind = !!player && player.behind;
    els.goLive.hidden = !behind;
    if (!behind) return;
    const seconds = Math.round(player.secondsBehind());
    els.goLive.textContent = 'Go live';
    els.goLive.setAttribute('aria-label', 'Go live: ' + duration(seconds) + ' behind');
    els.goLive.title = duration(seconds) + ' behind live: jump to live (l)';
    els.goLive.dataset.behind = String(seconds);
    behindTimer = setTimeout(renderBehind, 1000);
  }
  function goLive() {
    if (!player) return;
    viewerPaused = false;
    player.goLive();
    renderBehind();
  }
  els.goLive.addEventListener('click', goLive);

  function toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else $('stage').requestFullscreen().catch(() => {});
  }
  els.fullscreen.addEventListener('click', toggleFullscreen);

  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT' || target.tagName === 'SELECT')) {
      return;
    }
    if (event.key === 'm') toggleSound();
    else if (event.key === 'f') toggleFullscreen();
    else if (event.key === 'k') togglePause();
    else if (event.key === 'l') goLive();
    else if (event.key === 'Escape') {
      for (const open of document.querySelectorAll('details.moderate[open]')) open.open = false;
    }
  });

  /** The show's title (the stream's name when it has none) as the heading and the tab's title; its description
   *  under the picture, as plain text. */
  function renderAbout(show) {
    const title = typeof show.title === 'string' && show.title.trim() !== '' ? show.title : show.name;
    els.title.textContent = title;
    els.title.title = show.name;
    document.title = title + ' — Stream';
    const description = typeof show.description === 'string' ? show.description : '';
    els.description.textContent = description;
    els.description.hidden = description.trim() === '';
  }

  // MARK: Who is who

  function isHost() { return !!model.you && model.you.role === 'host'; }
  function isModerator() { return !!model.you && (model.you.role === 'host' || model.you.role === 'mod'); }

  function renderYou() {
    const you = model.you;
    if (!you) return;
    const role = you.role === 'mod' ? 'moderator' : you.role === 'read_only' ? 'watching only' : you.role;
    els.you.textContent = you.name + ' · ' + role;
    els.hostTools.hidden = !isModerator();
    els.endShow.hidden = !(isHost() && model.state === 'live');
    els.slowSelect.value = String(model.slow);
    renderBroadcast();
  }

  function renderViewers() {
    els.viewers.textContent = model.viewers + ' watching';
    els.viewers.dataset.count = String(model.viewers);
  }

  // MARK: The chat

  function canModerate(message) {
    if (!isModerator()) return { remove: false, people: false };
    const author = message.role;
    const mine = message.user !== null && model.you.user === message.user;
    const overAuthor = author !== 'host' && (isHost() || author !== 'mod');
    return { remove: overAuthor, people: overAuthor && message.user !== null && !mine };
  }

  function addMessage(message) {
    if (model.messages.has(message.id)) return;
    model.messages.set(message.id, message);
    els.messages.appendChild(renderMessage(message));
    while (model.messages.size > MAX_MESSAGES) {
      const oldest = model.messages.keys().next().value;
      removeMessage(oldest);
    }
    renderChatEmpty();
  }

  function removeMessage(id) {
    model.messages.delete(id);
    const item = els.messages.querySelector('[data-id="' + Number(id) + '"]');
    if (item) item.remove();
    renderChatEmpty();
  }

  /** An empty chat says so (and invites a message when this session may write). */
  function renderChatEmpty() {
    const you = model.you;
    const mayWrite = !!you && you.canWrite && you.role !== 'read_only' && !model.over;
    els.chatEmpty.textContent = mayWrite ? 'No messages yet. Say hello!' : 'No messages yet.';
    els.chatEmpty.hidden = model.messages.size > 0;
  }

  function renderMessage(message) {
    const item = document.createElement('li');
    item.className = 'message';
    item.dataset.id = String(message.id);
    if (model.you && message.user !== null && message.user === model.you.user) item.classList.add('mine');
    const who = document.createElement('span');
    who.className = 'name';
    who.textContent = message.name;
    item.appendChild(who);
    if (message.role === 'host' || message.role === 'mod') {
      const role = document.createElement('span');
      role.className = 'role';
      role.dataset.role = message.role;
      role.textContent = message.role === 'mod' ? 'mod' : 'host';
      item.appendChild(role);
    }
    const text = document.createElement('span');
    text.className = 'text';
    text.textContent = message.text;
    item.appendChild(text);
    const time = document.createElement('time');
    time.dateTime = new Date(message.time).toISOString();
    time.textContent = clock(message.time);
    item.appendChild(time);
    const allowed = canModerate(message);
    if (isModerator()) item.appendChild(moderationMenu(message, allowed));
    return item;
  }

  function menuButton(label, handler, danger) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    if (danger) button.className = 'danger';
    button.addEventListener('click', (event) => {
      const details = event.target.closest('details');
      if (details) details.open = false;
      handler();
    });
    return button;
  }

  function moderationMenu(message, allowed) {
    const details = document.createElement('details');
    details.className = 'moderate';
    const summary = document.createElement('summary');
    summary.textContent = '⋯';
    summary.setAttribute('aria-label', 'Moderate the message of ' + message.name);
    summary.title = 'Moderate';
    details.appendChild(summary);
    const menu = document.createElement('div');
    menu.className = 'menu';
    menu.setAttribute('role', 'group');
    menu.setAttribute('aria-label', 'Moderation');
    menu.appendChild(menuButton('Pin', () => act('pin', { message: message.id })));
    if (allowed.remove) menu.appendChild(menuButton('Delete', () => act('deleteMessage', { message: message.id })));
    if (allowed.people) {
      const user = message.user;
      for (const [label, seconds] of [['Time out 1 min', 60], ['10 min', 600], ['1 h', 3600]]) {
        menu.appendChild(menuButton(label, async () => {
          const reply = await act('timeout', { user: user, seconds: seconds });
          if (reply.ok) addSystemLine(message.name + ' is timed out for ' + duration(seconds) + '.');
        }));
      }
      menu.appendChild(menuButton('Kick', async () => {
        const reply = await act('kick', { user: user });
        if (reply.ok) addSystemLine(message.name + ' was removed from the stream (they may come back).');
      }, true));
      menu.appendChild(menuButton('Ban', async () => {
        const reply = await act('ban', { user: user });
        if (reply.ok) {
          addSystemLine(message.name + ' is banned.', 'Undo', async () => {
            const undone = await act('unban', { user: user });
            if (undone.ok) addSystemLine(message.name + ' is no longer banned.');
          });
        }
      }, true));
    }
    details.appendChild(menu);
    return details;
  }

  function addSystemLine(text, actionLabel, action) {
    const item = document.createElement('li');
    item.className = 'system';
    item.textContent = text;
    if (actionLabel) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link';
      button.textContent = actionLabel;
      button.addEventListener('click', () => { button.disabled = true; action(); });
      item.appendChild(document.createTextNode(' '));
      item.appendChild(button);
    }
    els.messages.appendChild(item);
    scrollToEnd(true);
  }

  function scrollToEnd(always) {
    const list = els.messages;
    const near = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
    if (always || near) list.scrollTop = list.scrollHeight;
  }

  function renderPinned() {
    const pinned = model.pinned;
    els.pinned.hidden = !pinned;
    if (!pinned) return;
    els.pinnedBody.textContent = '';
    const who = document.createElement('strong');
    who.textContent = pinned.name + ': ';
    els.pinnedBody.appendChild(who);
    els.pinnedBody.appendChild(document.createTextNode(pinned.text));
    els.unpin.hidden = !isModerator();
  }
  els.unpin.addEventListener('click', () => act('unpin'));

  // MARK: Writing, slow mode, timeouts

  let waitTimer = null;

  function renderSlow() {
    els.slowSelect.value = String(model.slow);
    if (els.slowSelect.value !== String(model.slow)) {
      const option = document.createElement('option');
      option.value = String(model.slow);
      option.textContent = duration(model.slow);
      els.slowSelect.appendChild(option);
      els.slowSelect.value = String(model.slow);
    }
    updateCompose();
  }

  /** Enables the box and says how long to wait (slow mode, timeout), once a second while waiting. */
  function updateCompose() {
    clearTimeout(waitTimer);
    const you = model.you;
    const connected = !!socket && socket.readyState === WebSocket.OPEN && !!you && !model.over;
    const now = Date.now();
    const timedOutFor = you && you.timeoutUntil ? Math.ceil((you.timeoutUntil - now) / 1000) : 0;
    const slowFor = Math.ceil((model.slowUntil - now) / 1000);
    const exempt = isModerator();
    let note = '';
    if (you && you.role === 'read_only') {
      note = 'You can watch this stream but not write in its chat.';
    } else if (you && !you.canWrite && timedOutFor > 0) {
      note = 'You are timed out: you can write again in ' + duration(timedOutFor) + '.';
    } else if (model.slow > 0) {
      note = 'Slow mode: one message every ' + duration(model.slow) + (exempt ? ' (not for you).' : '.');
      if (!exempt && slowFor > 0) note += ' You can write again in ' + duration(slowFor) + '.';
    }
    els.slowNote.textContent = note;
    els.slowNote.hidden = note === '';
    const canWrite = connected && you.canWrite && you.role !== 'read_only';
    els.text.disabled = !canWrite;
    els.send.disabled = !canWrite || sending || (!exempt && slowFor > 0);
    const reactionsWait = model.reactionsUntil > now;
    for (const button of els.reactionButtons.querySelectorAll('button')) {
      button.disabled = !canWrite || reactionsWait;
    }
    renderChatEmpty();
    if (timedOutFor > 0 || (slowFor > 0 && model.slow > 0)) waitTimer = setTimeout(updateCompose, 1000);
  }

  let sending = false;
  async function sendMessage() {
    const text = els.text.value;
    if (sending || text.trim() === '') return;
    sending = true;
    updateCompose();
    const reply = await act('send', { text: text });
    sending = false;
    if (reply.ok) {
      els.text.value = '';
      addMessage(reply.message);
      scrollToEnd(true);
      if (model.slow > 0 && !isModerator()) model.slowUntil = Date.now() + model.slow * 1000;
    }
    updateCompose();
    if (!els.text.disabled) els.text.focus();
  }

  els.compose.addEventListener('submit', (event) => {
    event.preventDefault();
    sendMessage();
  });
  els.text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      sendMessage();
    }
  });

  // The server counts lengths in code points (a message 500 at most, a name 64); an element's maxlength counts UTF-16
  // units, so it is set to twice that (the message's 1000 hold 500 emoji) and what passes the count is cut here.
  function limitCodePoints(element, most) {
    element.addEventListener('input', () => {
      const points = Array.from(element.value);
      if (points.length > most) element.value = points.slice(0, most).join('');
    });
  }
  limitCodePoints(els.text, 500);
  limitCodePoints(els.visitorName, 64);

  els.slowSelect.addEventListener('change', () => act('setSlow', { seconds: Number(els.slowSelect.value) }));
  els.clearChat.addEventListener('click', () => act('clearChat'));
  els.endShow.addEventListener('click', async () => {
    const reply = await act('end');
    if (reply.ok) stopBroadcast();
  });

  // MARK: Reactions

  function icon(kind) {
    const span = document.createElement('span');
    if (REACTION_ICONS[kind]) {
      span.innerHTML = '<svg viewBox="0 0 24 24" aria-hidden="true">' + REACTION_ICONS[kind] + '</svg>';
    } else {
      span.textContent = kind;
    }
    return span;
  }

  function renderReactionButtons() {
    els.reactionButtons.textContent = '';
    for (const kind of model.reactions) {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.reaction = kind;
      button.setAttribute('aria-label', REACTION_WORDS[kind] || kind);
      button.title = REACTION_WORDS[kind] || kind;
      button.appendChild(icon(kind));
      button.addEventListener('click', () => react(kind));
      els.reactionButtons.appendChild(button);
    }
  }

  let reactionTimer = null;
  /** Sends a reaction; past the server's rate (10 at once, 4 a second) says so beside the buttons and waits. */
  async function react(kind) {
    const reply = await request('react', { reaction: kind });
    if (reply.ok) return;
    if (reply.error.code !== 'rate_limited') {
      showRefusal(reply.error, 'react');
      return;
    }
    const wait = Math.max(1, reply.error.retryAfter || 1);
    model.reactionsUntil = Date.now() + wait * 1000;
    els.reactionNote.textContent = 'Too fast: reactions pause for ' + duration(wait) + '.';
    els.reactionNote.hidden = false;
    updateCompose();
    clearTimeout(reactionTimer);
    reactionTimer = setTimeout(() => {
      els.reactionNote.hidden = true;
      updateCompose();
    }, wait * 1000);
  }

  /** Floats the reactions of the last quarter second up the right side of the picture (a few of each kind). */
  function floatReactions(counts) {
    for (const [kind, count] of Object.entries(counts)) {
      for (let i = 0; i < Math.min(count, 6); i++) {
        if (els.layer.childElementCount >= MAX_FLOATS) return;
        const float = icon(kind);
        float.className = 'float';
        float.dataset.reaction = kind;
        float.style.left = (62 + Math.random() * 30) + '%';
        float.style.setProperty('--drift', Math.round((Math.random() - 0.5) * 60) + 'px');
        float.style.animationDelay = Math.round(Math.random() * 250) + 'ms';
        float.addEventListener('animationend', () => float.remove());
        els.layer.appendChild(float);
      }
    }
  }

  // MARK: Start

  if (!/^[A-Za-z0-9:_.-]{1,128}$/.test(name)) {
    finish('“' + name + '” is not a stream name.', false);
    setState(null, 'No stream');
  } else {
    renderAbout({ name: name });
    setState(null);
    connect();
  }
  // MARK: A visitor's name

  /** The visitor's line under the chat: its name, and a way to choose another (nil: a signed-in user). */
  function showVisitor(shownName) {
    els.visitorLine.hidden = shownName === null;
    if (shownName !== null) els.visitorShown.textContent = shownName;
    if (shownName === null) els.visitorForm.hidden = true;
  }

  /** What the server takes as a display name: 1 to 64 code points, a visible one, no control or bidi controls. */
  function nameProblem(text) {
    const points = Array.from(text);
    if (points.length < 1 || points.length > 64) return 'A name is 1 to 64 characters.';
    if (!/[^\s\u200B-\u200F\u2028-\u202F\u2060-\u206F\u3164\u2800\uFEFF]/.test(text)) {
      return 'A name needs a visible character.';
    }
    if (/[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(text)) {
      return 'A name cannot hold control or direction characters.';
    }
    return null;
  }

  els.visitorRename.addEventListener('click', () => {
    els.visitorForm.hidden = false;
    els.visitorName.value = stored(visitorNameKey) || '';
    els.visitorName.focus();
  });
  els.visitorCancel.addEventListener('click', () => { els.visitorForm.hidden = true; });
  els.visitorForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = els.visitorName.value.trim();
    const problem = nameProblem(chosen);
    if (problem) {
      showError(problem);
      return;
    }
    store(visitorNameKey, chosen);
    els.visitorForm.hidden = true;
    // The name is given at join: join again now, as the same visitor (its token), under the new name.
    if (socket) {
      rejoinNow = true;
      socket.close(1000, 'renamed');
    } else {
      connect();
    }
  });

})();
