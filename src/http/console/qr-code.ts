// A QR code drawn by the service itself (qrcode-generator, no outside service): an inline SVG of its dark modules
// in one path, a quiet zone of four modules around them, black on white whatever the page's colours.
import qrcode from 'qrcode-generator';
import { html, type Html } from './html.ts';

const QUIET = 4;

/** The QR code of `text` (error correction M, the smallest version that holds it) as an SVG labelled `label`. */
export function qrSvg(text: string, label: string): Html {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  let path = '';
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) if (qr.isDark(row, col)) path += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
  }
  const size = n + 2 * QUIET;
  return html`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="${size * 5}" height="${size * 5}" shape-rendering="crispEdges" role="img" aria-label="${label}" data-modules="${n}"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`;
}
