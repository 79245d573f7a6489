// Parent-page half of a PosLab iframe embed: fits every <iframe data-poslab-embed> to the
// height its page reports. A message counts only if it comes from that iframe's window and
// from the origin of its src; the height must be a number in a sane range. Including this
// script twice is harmless. No cookies, no storage, no network.
(function () {
  'use strict';
  if (window.__poslabResize) return;
  window.__poslabResize = true;
  var MIN = 60;
  var MAX = 6000;
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.type !== 'poslab:height' || typeof data.height !== 'number' || !isFinite(data.height)) return;
    var frames = document.querySelectorAll('iframe[data-poslab-embed]');
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.contentWindow !== event.source) continue;
      var origin;
      try {
        origin = new URL(frame.src, window.location.href).origin;
      } catch (e) {
        continue;
      }
      if (event.origin !== origin) continue;
      frame.height = String(Math.round(Math.min(MAX, Math.max(MIN, data.height))));
    }
  });
})();
