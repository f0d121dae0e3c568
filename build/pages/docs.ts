// GET /docs: the API reference, rendered at build time from the OpenAPI document, with an example
// request and a real example response (from this build's own bodies) for every operation.
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
const anchor = (method: string, path: string) =>
  `op-${method}-${path
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()}`;

function operation(path: string, method: string, op: Json, example: Example | undefined): string {
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(p.description ?? '')}${p.schema?.default !== undefined ? ` Default ${escapeHtml(String(p.schema.default))}.` : ''}${p.schema?.maximum !== undefined ? ` ${p.schema.minimum}–${p.schema.maximum}.` : ''}</td></tr>`,
    )
    .join('\n');
  const body = op.requestBody
    ? `<p>Body: JSON <code>{"email": "you@example.com"}</code> (<code>Content-Type: application/json</code>, at most 1 KiB).</p>`
    : '';
  const responses = Object.entries(op.responses as Json)
    .map(([status, r]) => {
      const headers = Object.keys((r as Json).headers ?? {});
      return `<tr data-status="${escapeHtml(status)}"><td><code>${escapeHtml(status)}</code></td><td>${escapeHtml((r as Json).description ?? '')}${headers.length ? `<br><span class="hint">Headers: ${headers.map((h) => `<code>${escapeHtml(h)}</code>`).join(', ')}</span>` : ''}</td></tr>`;
    })
    .join('\n');
  const needsKey = Array.isArray(op.security) && op.security.length > 0;
  return `<section class="op" id="${anchor(method, path)}" data-path="${escapeHtml(path)}" data-method="${method}">
<h2><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h2>
<p>${escapeHtml(op.summary ?? '')}${/[.!?]$/.test(op.summary ?? '') ? '' : '.'}${needsKey ? ' Needs <code>X-API-Key</code>.' : ' No key needed.'}</p>
${paramRows ? `<div class="scroll"><table><caption>Parameters</caption><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">required</th><th scope="col">notes</th></tr></thead><tbody>\n${paramRows}\n</tbody></table></div>` : ''}
${body}
<div class="scroll"><table><caption>Responses</caption><thead><tr><th scope="col">status</th><th scope="col">meaning</th></tr></thead><tbody>
${responses}
</tbody></table></div>
${
  example
    ? `<h3>Example</h3>
<pre><code>${escapeHtml(example.request)}</code></pre>
<pre><code>HTTP/1.1 ${example.status}${(example.headers ?? []).map((h) => `\n${escapeHtml(h)}`).join('')}${example.body !== undefined ? `\n\n${pretty(example.body)}` : ''}</code></pre>${example.note ? `\n<p class="hint">${escapeHtml(example.note)}</p>` : ''}`
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
  const body = `<h1>API reference</h1>
<p class="lead">${escapeHtml(openapi.info.description)} The machine-readable form is <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${escapeHtml(openapi.openapi)}).</p>
<nav aria-label="Operations"><ul class="toc">
${toc.join('\n')}
</ul></nav>

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

${ops.join('\n\n')}`;
  return page({
    title: 'API reference: grain grading tables',
    description: 'Every endpoint of the grain grading tables API, with examples.',
    body,
  });
}
