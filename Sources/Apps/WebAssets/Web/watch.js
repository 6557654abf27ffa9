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
    chatEmpty: $('chat-empty'), reactionNote: $('reaction-note'),
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

  // The stream's name from the address, and the token from the fragment (kept for this tab, off the address bar).
  const name = decodeURIComponent(location.pathname.replace(/^\/watch\//, '').replace(/\/+$/, ''));
  const tokenKey = 'stream-token:' + name;
  const fragment = new URLSearchParams(location.hash.slice(1));
  let token = fragment.get('token') || fragment.get('access_token');
  try {
    if (token) sessionStorage.setItem(tokenKey, token); else token = sessionStorage.getItem(tokenKey);
  } catch (error) { /* storage off: the token lives as long as the page */ }
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);

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
      const since = model.epoch ? { epoch: model.epoch, seq: model.seq } : undefined;
      request('join', since ? { since: since } : {}).then(joined, () => {});
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
      finish(errorInWords(reply.error, 'join'), code === 'unavailable');
      if (code === 'unavailable') reconnectTimer = setTimeout(() => { model.over = null; connect(); }, 5000);
      return;
    }
    attempts = 0;
    const show = reply.show;
    model.show = show;
    model.you = reply.you;
    model.viewers = show.viewers;
    model.pinned = show.pinned;
    model.slow = show.slow;
    model.reactions = show.reactions || [];
    model.main = show.main;
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
    els.title.textContent = show.name;
    document.title = show.name + ' — Stream';
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
      case 'tiles': model.main = event.main; break;
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
    // Once the show has ended nobody watches it: the count of who is still on the page would say otherwise.
    els.viewers.hidden = state === 'ended';
    updatePicture();
  }

  let player = null;
  let restartTimer = null;

  function pictureWanted() {
    return !model.over && model.state === 'live' && model.media === 'on';
  }

  function updatePicture() {
    if (model.over) return;
    if (pictureWanted()) {
      if (!player) startPlayer();
      if (els.video.readyState < 2 || els.video.paused) curtain('Starting the picture…');
    } else {
      stopPlayer();
      if (model.state === 'ended') curtain('The show has ended.');
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
  // three target durations behind), for comparison.
  const plainMode = new URLSearchParams(location.search).get('mode') === 'plain';

  /** The main picture's playlist, with this session's media token in its path; null before a welcome gave one. */
  function playlistURL() {
    if (!model.access) return null;
    return '/hls/' + encodeURIComponent(name) + '/' + encodeURIComponent(model.access.token) + '/main.m3u8'
      + (plainMode ? '?mode=plain' : '');
  }

  /** A new media token (welcome or renewal): the player's next requests carry it. */
  function setAccess(access) {
    model.access = access || null;
    if (player && model.access) player.setURL(playlistURL());
  }

  function startPlayer() {
    clearTimeout(restartTimer);
    const url = playlistURL();
    if (!url) {
      curtain('This server gave no media token: the picture cannot be fetched.');
      return;
    }
    const plain = plainMode;
    const started = new StreamHLSPlayer(els.video, url, { lowLatency: !plain });
    player = started;
    window.streamPlayer = started;
    started.addEventListener('statechange', (event) => {
      if (player !== started) return;
      if (event.detail === 'error' || event.detail === 'ended') {
        // The playlist is not there yet, or this publish ended while the show goes on: try again shortly.
        player = null;
        if (pictureWanted()) restartTimer = setTimeout(() => { if (!player && pictureWanted()) startPlayer(); }, 1000);
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
  }

  els.video.addEventListener('playing', () => {
    if (!model.over && pictureWanted()) els.curtain.hidden = true;
  });

  function toggleSound() {
    els.video.muted = !els.video.muted;
    if (!els.video.muted) els.video.play().catch(() => {});
    els.sound.textContent = els.video.muted ? 'Sound off' : 'Sound on';
    els.sound.setAttribute('aria-pressed', String(!els.video.muted));
  }
  els.sound.addEventListener('click', toggleSound);

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
    else if (event.key === 'Escape') {
      for (const open of document.querySelectorAll('details.moderate[open]')) open.open = false;
    }
  });

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

  // The server counts a message's length in code points (500 at most); the textarea's maxlength counts UTF-16
  // units, so it is set to 1000 (500 emoji) and what passes 500 code points is cut here.
  const maxMessageCodePoints = 500;
  els.text.addEventListener('input', () => {
    const points = Array.from(els.text.value);
    if (points.length > maxMessageCodePoints) els.text.value = points.slice(0, maxMessageCodePoints).join('');
  });

  els.slowSelect.addEventListener('change', () => act('setSlow', { seconds: Number(els.slowSelect.value) }));
  els.clearChat.addEventListener('click', () => act('clearChat'));
  els.endShow.addEventListener('click', () => act('end'));

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
    els.title.textContent = name;
    document.title = name + ' — Stream';
    setState(null);
    connect();
  }
})();
