// The player page of a plain publish (hls.html): plays the stream it sits beside (index.m3u8 in the same
// directory) with Stream's LL-HLS player; ?mode=plain plays it as a player without LL-HLS would (whole segments,
// three target durations behind).
(function () {
  'use strict';
  const video = document.getElementById('video');
  const directory = location.pathname.replace(/\/(index\.html)?$/, '') + '/';
  const lowLatency = new URLSearchParams(location.search).get('mode') !== 'plain';
  const status = document.getElementById('status');
  const words = { loading: 'Connecting…', playing: 'Live', ended: 'The stream has ended.',
                  error: 'The stream cannot be played.', stopped: 'Stopped.' };
  const player = new StreamHLSPlayer(video, directory + 'index.m3u8', { lowLatency: lowLatency });
  player.addEventListener('statechange', (event) => { status.textContent = words[event.detail] || event.detail; });
  window.streamPlayer = player;
  player.start();
})();
