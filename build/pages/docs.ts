// GET /docs: the API reference, rendered at build time from the OpenAPI document, with an example
// request and a real example response (from this build's own bodies) for every operation.
import { ORIGIN_PLACEHOLDER } from '../site-format.ts';
import { escapeHtml, page } from './layout.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
type Json = Record<string, any>;

export interface Example {
  request: string;
  status: number;
  headers?: string[];
  body?: unknown;
  note?: string;
}

const pretty = (v: unknown) => escapeHtml(JSON.stringify(v, null, 2));
/** An example command, escaped, its host marked for the page's script to replace with its own origin. */
const command = (s: string) =>
  escapeHtml(s).replaceAll(ORIGIN_PLACEHOLDER, `<span class="origin">${ORIGIN_PLACEHOLDER}</span>`);
/** Example answers longer than this many lines are folded (a summary that opens them). */
const FOLD_LINES = 24;
const anchor = (method: string, path: string) =>
  `op-${method}-${path
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()}`;

/** The example's answer; a long one folded, its status line as the summary. */
function exampleAnswer(example: Example): string {
  const text = `HTTP/1.1 ${example.status}${(example.headers ?? []).map((h) => `\n${escapeHtml(h)}`).join('')}${example.body !== undefined ? `\n\n${pretty(example.body)}` : ''}`;
  const pre = `<pre tabindex="0"><code>${text}</code></pre>`;
  if (text.split('\n').length <= FOLD_LINES) return pre;
  return `<details><summary>HTTP/1.1 ${example.status}: the whole answer (${text.split('\n').length} lines)</summary>\n${pre}</details>`;
}

function operation(path: string, method: string, op: Json, example: Example | undefined): string {
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code class="name">${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(p.description ?? '')}${p.schema?.default !== undefined ? ` Default ${escapeHtml(String(p.schema.default))}.` : ''}${p.schema?.maximum !== undefined ? ` ${p.schema.minimum}–${p.schema.maximum}.` : ''}</td></tr>`,
    )
    .join('\n');
  const body = op.requestBody
    ? `<p>Body: JSON <code>{"email": "you@example.com"}</code> (<code>Content-Type: application/json</code>, at most 1 KiB), or the same field as a form (<code>application/x-www-form-urlencoded</code>, as the home page's form sends it without JavaScript), which is answered with an HTML page.</p>`
    : '';
  const responses = Object.entries(op.responses as Json)
    .map(([status, r]) => {
      const headers = Object.keys((r as Json).headers ?? {});
      return `<tr data-status="${escapeHtml(status)}"><td><code>${escapeHtml(status)}</code></td><td>${escapeHtml((r as Json).description ?? '')}${headers.length ? `<br><span class="hint">Headers: ${headers.map((h) => `<code class="name">${escapeHtml(h)}</code>`).join(', ')}</span>` : ''}</td></tr>`;
    })
    .join('\n');
  const needsKey = Array.isArray(op.security) && op.security.length > 0;
  return `<section class="op" id="${anchor(method, path)}" data-path="${escapeHtml(path)}" data-method="${method}">
<h2><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h2>
<p>${escapeHtml(op.summary ?? '')}${/[.!?]$/.test(op.summary ?? '') ? '' : '.'}${needsKey ? ' Needs <code>X-API-Key</code>.' : ' No key needed.'}</p>
${paramRows ? `<div class="scroll" tabindex="0" role="region" aria-label="Parameters of ${method.toUpperCase()} ${escapeHtml(path)}"><table><caption>Parameters</caption><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">required</th><th scope="col">notes</th></tr></thead><tbody>\n${paramRows}\n</tbody></table></div>` : ''}
${body}
<div class="scroll" tabindex="0" role="region" aria-label="Responses of ${method.toUpperCase()} ${escapeHtml(path)}"><table><caption>Responses</caption><thead><tr><th scope="col">status</th><th scope="col">meaning</th></tr></thead><tbody>
${responses}
</tbody></table></div>
${
  example
    ? `<h3>Example</h3>
<pre tabindex="0"><code>${command(example.request)}</code></pre>
${exampleAnswer(example)}${example.note ? `\n<p class="hint">${escapeHtml(example.note)}</p>` : ''}`
    : ''
}
</section>`;
}

export function renderDocs(openapi: Json, examples: Record<string, Example>): string {
  const ops: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(openapi.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      ops.push(operation(path, method, op as Json, examples[`${method.toUpperCase()} ${path}`]));
      toc.push(
        `<li><a href="#${anchor(method, path)}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a></li>`,
      );
    }
  }
  const body = `<div class="docs">
<nav class="side" aria-label="Operations"><details><summary>On this page</summary><ul>
<li><a href="#basics">Basics</a></li>
<li><a href="#limits">Rate limit and syncing</a></li>
${toc.join('\n')}
</ul></details></nav>
<div class="content">
<h1>API reference</h1>
<p class="lead">${escapeHtml(openapi.info.description)} The machine-readable form is <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${escapeHtml(openapi.openapi)}).</p>

<section aria-labelledby="basics">
<h2 id="basics">Basics</h2>
<ul>
<li>Every JSON body carries <code>schema_version</code> (<code>"${escapeHtml(openapi.info.version)}"</code>). Errors are <code>{"error": "…", "status": 404, "schema_version": "${escapeHtml(openapi.info.version)}"}</code>, where <code>error</code> says what to do.</li>
<li>Data endpoints need the key in the <code>X-API-Key</code> header, never in the URL (a URL with a key is refused with 400).</li>
<li>Bodies come gzip- or brotli-compressed when you send <code>Accept-Encoding</code>.</li>
</ul>
</section>

<section aria-labelledby="limits">
<h2 id="limits">Rate limit and syncing</h2>
<ul>
<li>Each account may make 100 requests in an hour, counted from its first request of the hour (a fixed window). Every authorised answer says where you stand: <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Used</code>, <code>X-RateLimit-Reset</code> (epoch seconds), and <code>RateLimit-Policy</code> / <code>RateLimit</code>.</li>
<li>A 304 is not counted: keep the <code>ETag</code> of what you stored and send it back in <code>If-None-Match</code>.</li>
<li>Poll <code>GET /api/changelog</code> (for instance daily); fetch a record again only when an entry names its <code>grain_id</code>.</li>
<li>On 429 or 503, wait the seconds in <code>Retry-After</code> before trying again.</li>
</ul>
</section>

${ops.join('\n\n')}
</div>
</div>`;
  return page({
    title: 'API reference: grain grading tables',
    description: 'Every endpoint of the grain grading tables API, with examples.',
    body,
    wide: true,
    script: '/assets/page.js',
  });
}
