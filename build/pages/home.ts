// GET /: what the service is, where the numbers come from, the classes, and a form to get a key.
import type { GrainRecord } from '../types.ts';
import { escapeHtml, page } from './layout.ts';

export function renderHome(grains: GrainRecord[]): string {
  const years = [...new Set(grains.map((g) => g.effective_crop_year))].sort();
  const checked =
    grains
      .map((g) => g.last_scraped.slice(0, 10))
      .sort()
      .at(-1) ?? '';
  const perYear = years
    .map((y) => `${y} (${grains.filter((g) => g.effective_crop_year === y).length} classes)`)
    .join(' and ');
  const rows = grains
    .map((g) => `<tr><td><code>${escapeHtml(g.grain_id)}</code></td><td>${escapeHtml(g.grain_name)}</td></tr>`)
    .join('\n');
  const body = `<h1>Grain grading tables</h1>
<p class="lead">The Canadian Grain Commission's primary grade determination tables, as JSON: for each grain class its
grades, grading factors, per-grade limits, floor rules and footnotes, with a changelog of every update.
Made for grain-handling and grading software that keeps a copy and syncs it now and then.</p>

<section aria-labelledby="source">
<h2 id="source">Where the numbers come from</h2>
<p>Every number is the Commission's, exactly as its <cite>Official Grain Grading Guide</cite> prints it (with the
number of decimals it prints), imported from its primary grade determination pages and checked against them
cell by cell. Tables in force for the crop year${years.length > 1 ? 's' : ''} ${escapeHtml(perYear)};
last checked against the Commission's pages on <time datetime="${escapeHtml(checked)}">${escapeHtml(checked)}</time>.</p>
</section>

<section aria-labelledby="get-key">
<h2 id="get-key">Get a free API key</h2>
<p>Keys are free and issued at once. Registering again with the same address gives you another key and stops none (at most 5 live keys an address); revoke a key with <code>DELETE /api/keys/current</code>.</p>
<form id="register-form" novalidate>
  <label for="email">E-mail address</label>
  <div class="field">
    <input id="email" name="email" type="email" autocomplete="email" required aria-describedby="email-error email-hint" maxlength="254">
    <button type="submit">Get a key</button>
  </div>
  <p id="email-hint" class="hint">We store the address and a hash of your key, nothing else.</p>
  <p id="email-error" class="error" role="alert" aria-live="assertive"></p>
</form>
<noscript><p>Without JavaScript: <code>curl -X POST -H 'Content-Type: application/json' -d '{"email":"you@example.com"}' [this address]/api/register</code></p></noscript>
<div id="result" class="result" hidden>
  <h3 id="result-title" tabindex="-1">Your API key</h3>
  <p class="warning"><strong>Copy it now: it is shown only once.</strong> We keep only a hash of it and cannot show it again.
  If you lose it, register again for a new one.</p>
  <div class="field"><input id="api-key" type="text" readonly aria-label="Your API key" spellcheck="false"><button type="button" id="copy">Copy</button></div>
  <p id="copy-status" class="hint" aria-live="polite"></p>
  <p>Try it (keep the key out of client-side code and public repositories, for instance in an environment variable):</p>
  <pre><code id="curl-line"></code></pre>
</div>
</section>

<section aria-labelledby="classes">
<h2 id="classes">Grain classes</h2>
<div class="scroll"><table>
<caption>${grains.length} supported grain classes</caption>
<thead><tr><th scope="col">grain_id</th><th scope="col">Name</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
</section>

<section aria-labelledby="use">
<h2 id="use">Using it</h2>
<ul>
<li>Send your key in the <code>X-API-Key</code> header; each key may make 100 requests an hour.</li>
<li>Sync by polling <code>GET /api/changelog</code>, and send <code>If-None-Match</code> with the ETag you have: a 304 costs nothing.</li>
<li>On a 429, wait the seconds in <code>Retry-After</code>.</li>
</ul>
<p>Every endpoint, with examples: <a href="/docs">API reference</a>.</p>
</section>`;
  return page({
    title: 'Grain grading tables: free JSON API of the Official Grain Grading Guide tables',
    description: 'Primary grade determination tables of the Canadian Grain Commission as JSON, with free API keys.',
    body,
    script: '/assets/register.js',
  });
}
