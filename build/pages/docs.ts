// GET /docs: the API reference, rendered at build time from the OpenAPI document, with an example
// request and a real example response (from this build's own bodies) for every operation.
import {
  API_KEY_HEADER,
  CLIENT_TARBALL,
  CROP_YEAR_PARAM,
  fileIn,
  RATE_LIMIT_HEADERS as H,
  JSON_MEDIA_TYPE,
  RECOVERY_TOKEN_PREFIX,
  REGISTRATION_BODY_BYTES,
  ROUTES,
  SLOTS,
} from '../site-format.ts';
import { type Html, html } from './html.ts';
import { page } from './layout.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
type Json = Record<string, any>;

export interface Example {
  request: string;
  status: number;
  headers?: string[];
  body?: unknown;
  note?: string;
}

/** An example command, its host the gateway's slot, marked for the page's script too (the origin it sees). */
const command = (s: string) =>
  s.split(SLOTS.origin).map((part, i) => (i ? html`<span class="origin">${SLOTS.origin}</span>${part}` : part));
/** Example answers longer than this many lines are folded (a summary that opens them). */
const FOLD_LINES = 24;
const anchor = (method: string, path: string) =>
  `op-${method}-${path
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()}`;
const scrollTable = (label: string, caption: string, head: string[], rows: Html[]) =>
  html`<div class="scroll" tabindex="0" role="region" aria-label="${label}"><table><caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>
${rows}
</tbody></table></div>`;

const PARAMETER_HEAD = ['name', 'in', 'required', 'notes'];

/** The example's answer; a long one folded, its status line as the summary. */
function exampleAnswer(example: Example): Html {
  const text = [
    `HTTP/1.1 ${example.status}`,
    ...(example.headers ?? []),
    ...(example.body !== undefined ? ['', JSON.stringify(example.body, null, 2)] : []),
  ].join('\n');
  const pre = html`<pre tabindex="0"><code>${text}</code></pre>`;
  const lines = text.split('\n').length;
  if (lines <= FOLD_LINES) return pre;
  const summary = html`<summary>HTTP/1.1 ${example.status}: the whole answer (${lines} lines)</summary>`;
  return html`<details>${summary}\n${pre}</details>`;
}

function parameterRow(p: Json): Html {
  const schema = p.schema ?? {};
  const notes = [
    p.description ?? '',
    schema.default !== undefined ? ` Default ${schema.default}.` : '',
    schema.maximum !== undefined ? ` ${schema.minimum}–${schema.maximum}.` : '',
  ].join('');
  return html`<tr><td><code class="name">${p.name}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td>
<td>${notes}</td></tr>\n`;
}

function responseRow(status: string, r: Json): Html {
  const headers = Object.keys(r.headers ?? {}).map((h, i) => html`${i ? ', ' : ''}<code class="name">${h}</code>`);
  return html`<tr data-status="${status}"><td><code>${status}</code></td><td>${r.description ?? ''}${
    headers.length > 0 && html`<br><span class="hint">Headers: ${headers}</span>`
  }</td></tr>\n`;
}

/** The forms that post an operation's field without JavaScript, answered with a page. */
const FORMS: Record<string, string> = {
  register: ROUTES.registerForm.path,
  recoverKey: ROUTES.recoverPage.path,
  confirmKeyRecovery: ROUTES.recoverPage.path,
};

function requestBody(op: Json): Html {
  const schema = op.requestBody.content[JSON_MEDIA_TYPE].schema.$ref as string;
  const body = schema.endsWith('RecoveryConfirmRequest')
    ? `{"token": "${RECOVERY_TOKEN_PREFIX}…"}`
    : '{"email": "you@example.com"}';
  const form = FORMS[op.operationId];
  return html`<p>Body: JSON <code>${body}</code> (<code>Content-Type: ${JSON_MEDIA_TYPE}</code>,
at most ${REGISTRATION_BODY_BYTES / 1024} KiB).${
    form &&
    html` The service's own pages post the same field without JavaScript to <code>${form}</code>, which answers
with an HTML page.`
  }</p>`;
}

function operation(path: string, method: string, op: Json, example: Example | undefined): Html {
  const name = `${method.toUpperCase()} ${path}`;
  const params = (op.parameters ?? []) as Json[];
  const needsKey = Array.isArray(op.security) && op.security.length > 0;
  const summary = `${op.summary ?? ''}${/[.!?]$/.test(op.summary ?? '') ? '' : '.'}`;
  return html`<section class="op" id="${anchor(method, path)}" data-path="${path}" data-method="${method}">
<h2><span class="method">${method.toUpperCase()}</span> <code>${path}</code></h2>
<p>${summary}${needsKey ? html` Needs <code>${API_KEY_HEADER}</code>.` : ' No key needed.'}</p>
${params.length > 0 && scrollTable(`Parameters of ${name}`, 'Parameters', PARAMETER_HEAD, params.map(parameterRow))}
${op.requestBody && requestBody(op)}
${scrollTable(
  `Responses of ${name}`,
  'Responses',
  ['status', 'meaning'],
  Object.entries(op.responses as Json).map(([s, r]) => responseRow(s, r)),
)}
${
  example &&
  html`<h3>Example</h3>
<pre tabindex="0"><code>${command(example.request)}</code></pre>
${exampleAnswer(example)}${example.note && html`\n<p class="hint">${example.note}</p>`}`
}
</section>`;
}

export function renderDocs(openapi: Json, examples: Record<string, Example>): string {
  const ops: Html[] = [];
  const toc: Html[] = [];
  for (const [path, item] of Object.entries(openapi.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (method === 'head') continue; // a GET's twin: "HEAD works wherever GET does" (Basics)
      const name = `${method.toUpperCase()} ${path}`;
      ops.push(operation(path, method, op as Json, examples[name]), html`\n\n`);
      toc.push(html`<li><a href="#${anchor(method, path)}"><code>${name}</code></a></li>\n`);
    }
  }
  const version = openapi.info.version;
  const body = html`<div class="docs">
<nav class="side" aria-label="Operations"><details><summary>On this page</summary><ul>
<li><a href="#basics">Basics</a></li>
<li><a href="#limits">Rate limit and syncing</a></li>
${toc}</ul></details></nav>
<div class="content">
<h1>API reference</h1>
<p class="lead">${openapi.info.description} The machine-readable form is
<a href="${ROUTES.openapi.path}">${ROUTES.openapi.path}</a> (OpenAPI ${openapi.openapi}).</p>

<section aria-labelledby="basics">
<h2 id="basics">Basics</h2>
<ul>
<li>Every JSON body carries <code>schema_version</code> (<code>"${version}"</code>). Errors are
<code>{"error": "…", "status": 404, "code": "unknown_grain", "schema_version": "${version}"}</code>, where
<code>error</code> says what to do and <code>code</code> names the kind of error, for a program.</li>
<li>Data endpoints need the key in the <code>${API_KEY_HEADER}</code> header, never in the URL (a URL with a
key is refused
with 400).</li>
<li>Bodies come gzip- or brotli-compressed when you send <code>Accept-Encoding</code>. <code>HEAD</code> works
wherever <code>GET</code> does: the same status and headers, no body.</li>
<li>Lost your key, or at the cap of live keys? <code>POST ${ROUTES.recover.path}</code> (or the page
<a href="${ROUTES.recoverPage.path}">${ROUTES.recoverPage.path}</a>) mails the address a link that revokes every
key of the account and issues one new key: whoever reads the mailbox can always get a key back.</li>
<li>Every class's table is also a page anyone may read, with no key:
<a href="${ROUTES.tables.path}">${ROUTES.tables.path}</a> lists them, and <code>${ROUTES.table.path}</code>
shows one (<code>?${CROP_YEAR_PARAM}=</code> too).</li>
</ul>
</section>

<section aria-labelledby="limits">
<h2 id="limits">Rate limit and syncing</h2>
<ul>
<li>Each key may make ${SLOTS.rate_limit_per_hour} requests in an hour, counted from its first request of the
hour (a fixed window). Every
authorised answer says where you stand: <code>${H.limit}</code>, <code>${H.remaining}</code>,
<code>${H.used}</code>, <code>${H.reset}</code> (epoch seconds), and <code>${H.policy}</code> /
<code>${H.rateLimit}</code>.</li>
<li>A 304 is not counted: keep the <code>ETag</code> of what you stored and send it back in
<code>If-None-Match</code>.</li>
<li>Sync in one request: <code>GET ${ROUTES.snapshot.path}</code> holds every record and the whole changelog; send
its <code>ETag</code> back in <code>If-None-Match</code> (for instance daily), and a day with no change costs nothing.
The client package does it for you: <code>npm install ${SLOTS.origin}${CLIENT_TARBALL}</code>, then
<code>npx grain-tables sync</code>.</li>
<li>Each entry of <code>GET ${ROUTES.changelog.path}</code> names the classes it changed and, in <code>changes</code>,
the values; a rollback changes records with no new entry, which the snapshot's ETag still shows.</li>
<li>On 429 or 503, wait the seconds in <code>Retry-After</code> before trying again.</li>
</ul>
</section>

${ops}</div>
</div>`;
  return page({
    title: 'API reference: grain grading tables',
    description: 'Every endpoint of the grain grading tables API, with examples.',
    body,
    wide: true,
    script: fileIn('assets', 'page.js'),
  });
}
