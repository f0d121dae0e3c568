// GET /: what the service is, where the numbers come from, the classes, and a form to get a key.
import { API_KEY_HEADER, fileIn, grainKey, LIVE_KEYS_PER_ACCOUNT, ROUTES, SLOTS, tableKey } from '../site-format.ts';
import type { CompiledRecord } from '../types.ts';
import { html } from './html.ts';
import { page } from './layout.ts';
import { recoveryForm } from './recovery-pages.ts';
import { keyResult, registrationForm } from './register-form.ts';
import { checkedRange } from './tables-index.ts';

export function renderHome(grains: CompiledRecord[]): string {
  const years = [...new Set(grains.map((g) => g.effective_crop_year))].sort();
  const perYear = years
    .map((y) => `${y} (${grains.filter((g) => g.effective_crop_year === y).length} classes)`)
    .join(' and ');
  const rows = grains.map(
    (g) =>
      html`<tr><td><code>${g.grain_id}</code></td>
<td><a href="${tableKey(g.grain_id)}">${g.grain_name}</a></td></tr>\n`,
  );
  const body = html`<h1>Grain grading tables</h1>
<p class="lead">The Canadian Grain Commission's primary grade determination tables, as JSON: for each grain class its
grades, grading factors, per-grade limits, floor rules and footnotes, with a changelog of every update.
Made for grain-handling and grading software that keeps a copy and syncs it now and then.</p>

<section aria-labelledby="get-key" class="register">
<h2 id="get-key">Get a free API key</h2>
<p>Keys are free and issued at once (up to ${SLOTS.register_limit_per_hour} an hour from one network address).
Registering again with the same address gives you another key and stops none
(at most ${LIVE_KEYS_PER_ACCOUNT} live keys per e-mail address); revoke a key with
<code>DELETE ${ROUTES.revokeKey.path}</code>.</p>
${registrationForm()}
<div id="result" class="result" hidden>
${keyResult('', '', 'h3')}
</div>
</section>

<section aria-labelledby="lost-key" class="register">
<h2 id="lost-key">Lost your key?</h2>
<p>Whoever reads the mailbox can always get a key back: we mail the address a link that revokes every key of the
account and shows one new key (also when the address holds ${LIVE_KEYS_PER_ACCOUNT} keys and registration
refuses another).</p>
${recoveryForm()}
</section>

<section aria-labelledby="source">
<h2 id="source">Where the numbers come from</h2>
<p>Every number is the Commission's, exactly as its <cite>Official Grain Grading Guide</cite> prints it (with the
number of decimals it prints), imported from its primary grade determination pages and checked against them
cell by cell. Tables in force for the crop year${years.length > 1 ? 's' : ''} ${perYear};
last checked against the Commission's pages ${checkedRange(grains)} (each <a href="${ROUTES.tables.path}">table's
page</a> says its own date). To hear when a table changes, without a key, <a href="${ROUTES.feed.path}">follow
the changes</a> in a feed reader (Atom).</p>
</section>

<section aria-labelledby="classes">
<h2 id="classes">Grain classes</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Table of the grain classes"><table>
<caption>${grains.length} supported grain classes (each links its table)</caption>
<thead><tr><th scope="col">grain_id</th><th scope="col">Name</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>
</section>

<section aria-labelledby="use">
<h2 id="use">Using it</h2>
<ul>
<li>Send your key in the <code>${API_KEY_HEADER}</code> header (below); each key may make
${SLOTS.rate_limit_per_hour} requests an hour.</li>
<li>Sync by polling <code>GET ${ROUTES.snapshot.path}</code> (every record and the whole changelog in one body)
with the ETag you hold in <code>If-None-Match</code>: a 304 while nothing changed costs nothing, a rollback
included. The client package's <code>grain-tables sync</code> does this (<a href="${ROUTES.docs.path}">API
reference</a>).</li>
<li>On a 429, wait the seconds in <code>Retry-After</code>.</li>
</ul>
<pre tabindex="0" aria-label="Example request"><code>curl -H "${API_KEY_HEADER}: $GRAIN_API_KEY" '<span
class="origin">${SLOTS.origin}</span>${grainKey('CWRS')}'</code></pre>
<p>Every endpoint, with examples: <a href="${ROUTES.docs.path}">API reference</a>.</p>
</section>`;
  return page({
    title: 'Grain grading tables: free JSON API of the Official Grain Grading Guide tables',
    description: 'Primary grade determination tables of the Canadian Grain Commission as JSON, with free API keys.',
    body,
    script: fileIn('assets', 'page.js'),
    feed: ROUTES.feed.path,
  });
}
