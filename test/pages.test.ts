// HTML that escapes itself (build/pages/html.ts): every value put into a page is escaped unless it
// is HTML already, so a grain name, an OpenAPI text or a form value holding markup stays text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildOpenApi } from '../build/compile/openapi.ts';
import { loadDataset } from '../build/load/load.ts';
import { renderDocs } from '../build/pages/docs.ts';
import { renderHome } from '../build/pages/home.ts';
import { html, raw } from '../build/pages/html.ts';
import { registrationForm } from '../build/pages/register-form.ts';
import { validateDataset } from './helpers/build.ts';
import { root } from './helpers/gateway.ts';

const HOSTILE = '<script>alert("x")</script>\'&';
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;';
const { dataset } = validateDataset(loadDataset(join(root, 'dataset')));

describe('html`…`', () => {
  const cases: [string, () => string, string][] = [
    ['escapes text', () => html`<p>${HOSTILE}</p>`.text, `<p>${ESCAPED}</p>`],
    [
      'escapes an attribute value',
      () => html`<a title="${'"x" onclick="y'}">`.text,
      '<a title="&quot;x&quot; onclick=&quot;y">',
    ],
    ['keeps nested html as it is', () => html`<ul>${html`<li>${'a<b'}</li>`}</ul>`.text, '<ul><li>a&lt;b</li></ul>'],
    ['keeps raw text as it is', () => html`<p>${raw('{{slot}}<b>')}</p>`.text, '<p>{{slot}}<b></p>'],
    ['joins arrays, each item escaped', () => html`${['<a>', html`<b>`]}`.text, '&lt;a&gt;<b>'],
    ['renders null, undefined and false as nothing', () => html`[${null}${undefined}${false}]`.text, '[]'],
    ['renders numbers and 0', () => html`${0}/${1.5}`.text, '0/1.5'],
  ];
  for (const [name, render, expected] of cases) it(name, () => assert.equal(render(), expected));
});

describe('pages escape every value', () => {
  const hostile = (s: string) => !s.includes('<script>alert') && s.includes(ESCAPED);
  it('the home page: a grain name', () => {
    const grains = dataset!.grains.map((g, i) => (i ? g : { ...g, grain_name: HOSTILE }));
    assert.ok(hostile(renderHome(grains)));
  });
  it('the reference: the OpenAPI texts and an example', () => {
    const doc = buildOpenApi(dataset!);
    doc.info.description = HOSTILE;
    const page = renderDocs(doc, {
      'GET /health': {
        request: `curl ${HOSTILE}`,
        status: 200,
        headers: [HOSTILE],
        body: { x: HOSTILE },
        note: HOSTILE,
      },
    });
    assert.ok(hostile(page));
    assert.ok(!page.includes('"x": "<'), 'the example body too');
  });
  it('the registration form: the address and the error', () => {
    const form = registrationForm({ email: HOSTILE, error: HOSTILE }).text;
    assert.equal(form.split(ESCAPED).length, 3, 'both values, escaped');
    assert.ok(!form.includes('<script>alert'));
  });
});
