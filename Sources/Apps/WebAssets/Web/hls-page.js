// The player page of a plain publish (hls.html): plays the stream it sits beside (index.m3u8 in the same
// directory) with Stream's LL-HLS player; ?mode=plain plays it as a player without LL-HLS would (whole segments,
// three target durations behind). Its video has the browser's own controls (pause, volume); the player adds
// "Go live" when a pause left it behind.
(function () {
  'use strict';
  const video = document.getElementById('video');
  const directory = location.pathname.replace(/\/(index\.html)?$/, '') + '/';
  const lowLatency = new URLSearchParams(location.search).get('mode') !== 'plain';
  const status = document.getElementById('status');
  const words = { loading: 'Connecting…', playing: 'Live', ended: 'The stream has ended.',
                  error: 'The stream cannot be played.', stopped: 'Stopped.' };
  const goLive = document.getElementById('go-live');
  const player = new StreamHLSPlayer(video, directory + 'index.m3u8', { lowLatency: lowLatency });
  player.addEventListener('statechange', (event) => { status.textContent = words[event.detail] || event.detail; });
  // The video's own controls pause and set the volume (remembered); past a few seconds behind, "Go live" jumps back.
  StreamHLS.rememberVolume(video);
  player.addEventListener('livechange', (event) => {
    goLive.hidden = !event.detail.behind;
    status.textContent = event.detail.behind ? 'Behind live' : words[player.state] || player.state;
  });
  goLive.addEventListener('click', () => player.goLive());
  window.streamPlayer = player;
  player.start();
})();
