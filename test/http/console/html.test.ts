// The console's `html` template: every interpolated value escaped, in text and in attribute values; Html fragments
// (nested templates) put in as they are, never escaped twice; arrays one element after another.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Html, html, type HtmlValue, markupOf, table, userText } from '../../../src/http/console/html.ts';

const text = (h: Html) => markupOf(h);

describe('console html template', () => {
  it('escapes < > & " and \' in text', () => {
    const value = `<script>alert("x") & 'y'</script>`;
    assert.equal(
      text(html`<p>${value}</p>`),
      '<p>&#60;script&#62;alert(&#34;x&#34;) &#38; &#39;y&#39;&#60;/script&#62;</p>',
    );
  });

  it('escapes an attribute value so it cannot close the attribute or add another', () => {
    const value = `" onclick='steal()' x="<&>`;
    assert.equal(
      text(html`<input value="${value}" title='${value}'>`),
      `<input value="&#34; onclick=&#39;steal()&#39; x=&#34;&#60;&#38;&#62;" title='&#34; onclick=&#39;steal()&#39; x=&#34;&#60;&#38;&#62;'>`,
    );
  });

  it('puts a nested template in as it is, its own values escaped once', () => {
    const inner = html`<b>${'a&b'}</b>`;
    const outer = html`<p>${inner} ${'<i>'}</p>`;
    assert.equal(text(outer), '<p><b>a&#38;b</b> &#60;i&#62;</p>');
    assert.equal(text(html`<div>${outer}</div>`), '<div><p><b>a&#38;b</b> &#60;i&#62;</p></div>');
  });

  it('puts an array in element after element: fragments as they are, text escaped', () => {
    const items = ['<1>', '2&'].map((x) => html`<li>${x}</li>`);
    assert.equal(text(html`<ul>${items}</ul>`), '<ul><li>&#60;1&#62;</li><li>2&#38;</li></ul>');
    assert.equal(text(html`${['<a>', html`<b>`, 3, [html`<c>`, '"']]}`), '&#60;a&#62;<b>3<c>&#34;');
  });

  it('escapes objects that are not Html (their text), and leaves null and undefined empty', () => {
    const pretender = { toString: () => '<img src=x onerror=alert(1)>' } as unknown as HtmlValue;
    assert.equal(text(html`${pretender}`), '&#60;img src=x onerror=alert(1)&#62;');
    const lookalike = { markup: '<b>' } as unknown as HtmlValue;
    assert.equal(text(html`${lookalike}`), '[object Object]');
    assert.equal(text(html`[${null}${undefined}]`), '[]');
    assert.equal(text(html`${0} ${12.5} ${false}`), '0 12.5 false');
  });

  it('cannot be made from a string outside the module', () => {
    const forged = Object.create(Html.prototype) as Html;
    assert.throws(() => markupOf(forged));
  });

  it('escapes table cells given as text and keeps those given as markup', () => {
    const out = text(table('C<', ['H"'], [['<x>'], [html`<a href="/y">y</a>`]], 'none'));
    assert.match(out, /<td data-label="H&#34;">&#60;x&#62;<\/td>/);
    assert.match(out, /<td data-label="H&#34;"><a href="\/y">y<\/a><\/td>/);
    assert.match(out, /aria-label="C&#60;"/);
  });

  it('escapes text a customer wrote in its direction-following element', () => {
    assert.equal(
      text(userText('<שלום>', 'blockquote', html` class="t"`)),
      '<blockquote dir="auto" class="t">&#60;שלום&#62;</blockquote>',
    );
  });
});
