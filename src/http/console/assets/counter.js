// The send form's live counter: characters, parts and alphabet of the message as it is typed, counted by the
// service's own code (encoding.js: domain/encoding.ts's countParts, bundled for the browser). A form sends each
// line break as CR LF, so the text is counted that way, as the service will count it. The preview stays the
// authority (a link or a removal line is added at sending).
(() => {
  var box = document.getElementById('send-message');
  var out = document.getElementById('send-counter');
  if (!box || !out || typeof YonaEncoding === 'undefined') return;
  var number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  var show = () => {
    var c = YonaEncoding.countParts(box.value.replace(/\r?\n/g, '\r\n'));
    var words = c.parts === 1 ? out.dataset.one : out.dataset.many;
    out.textContent = words
      .replace('{chars}', number.format(c.units))
      .replace('{parts}', number.format(c.parts))
      .replace('{encoding}', out.dataset[c.encoding]);
    out.dataset.encoding = c.encoding;
    out.dataset.parts = String(c.parts);
    out.dataset.units = String(c.units);
  };
  box.addEventListener('input', show);
  show();
})();
