// GET /grade: grade a sample in the browser. The page loads a class's record with the visitor's
// key (kept in the page's memory only: never stored, never in a URL), makes the inputs from the
// record, grades with the published grader module (/client/grade.js), as `npm run grade` does,
// and shows the answer in the table's shape (docs/grading.md "The answer as a table"). Without
// JavaScript it says what it needs.

import type { PastYears } from '../load/covered.ts';
import { API_KEY_HEADER, CROP_YEAR_PARAM, fileIn, ROUTES } from '../site-format.ts';
import type { CompiledRecord } from '../types.ts';
import { yearsOf } from '../validate/crop-years.ts';
import { html } from './html.ts';
import { page } from './layout.ts';

const GRADER = fileIn('client', 'grade.js');

export function renderGradePage(grains: CompiledRecord[], past?: PastYears): string {
  // each class's crop years, newest (its current one) first: the page offers them (docs/contract.md, Crop years)
  const options = grains.map((g) => {
    const years = yearsOf(g.grain_id, g.effective_crop_year, past).reverse().join(' ');
    return html`<option value="${g.grain_id}" data-years="${years}">${g.grain_id}: ${g.grain_name}</option>\n`;
  });
  const first = grains[0]?.effective_crop_year ?? '';
  const body = html`<h1>Grade a sample</h1>
<p class="lead">Type what was measured and judged of a sample; the grade, the table's cells that decided it and
what is still missing are worked out here in your browser, by the same grader module programs import
(<a href="${GRADER}"><code>${GRADER}</code></a>, described in the <a href="${ROUTES.docs.path}">API reference</a>).</p>
<noscript><p class="warning">This page needs JavaScript: the grading runs in your browser. Without it, use
<code>npm run grade</code> or import the grader module in your own program.</p></noscript>

<form id="load-form" data-grader="${GRADER}" data-record-path="${ROUTES.grain.path}"
  data-year-param="${CROP_YEAR_PARAM}" data-key-header="${API_KEY_HEADER}" novalidate>
  <label for="key">Your API key</label>
  <div class="field"><input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required
    aria-describedby="key-hint load-error"></div>
  <p id="key-hint" class="hint">Kept in this page's memory only, and sent only to this service to load the class.
  <a href="${ROUTES.home.path}">Get a free key</a>.</p>
  <label for="grain">Grain class</label>
  <div class="field"><select id="grain" name="grain">
${options}</select></div>
  <label for="crop-year">Crop year</label>
  <div class="field"><select id="crop-year" name="crop_year" aria-describedby="crop-year-hint">
<option value="${first}">${first} (current)</option>
</select><button type="submit">Load the class</button></div>
  <p id="crop-year-hint" class="hint">The table as it stood in that crop year (1 August to 31 July); the current one
  unless you grade a sample of an earlier year.</p>
  <p id="load-error" class="error" role="alert" aria-live="assertive"></p>
</form>

<form id="sample-form" hidden novalidate>
  <h2 id="sample-title" tabindex="-1">The sample</h2>
  <p class="hint">Leave a value empty if it was not measured: a maximum factor left empty counts as 0; a minimum, a
  Total and a judgement must be given, or the result says it is missing. Values are rounded to the decimals the
  table prints before they are compared.</p>
  <div id="sample-fields"></div>
  <button type="submit">Grade</button>
</form>

<form id="json-form" hidden novalidate>
  <h2>Or paste the sample as JSON</h2>
  <label for="sample-text">The sample as <code>npm run grade</code> and the grader module take it (a case of
  <a href="${fileIn('client', 'grade-suite.json')}">the conformance suite</a>, for instance)</label>
  <textarea id="sample-text" name="sample" rows="8" cols="32" spellcheck="false"
    aria-describedby="sample-text-error"></textarea>
  <p id="sample-text-error" class="error" role="alert"></p>
  <button type="submit">Grade the JSON</button>
</form>

<section id="result" aria-live="polite" aria-labelledby="graded-title" hidden>
  <h2 id="graded-title" tabindex="-1">Result</h2>
  <p id="result-grade" class="verdict"></p>
  <p id="result-reason"></p>
  <div id="result-judgments"></div>
  <div id="result-table"></div>
  <div id="result-missing"></div>
  <details><summary>The sample and the grader's answer as JSON</summary>
  <pre tabindex="0"><code id="sample-json"></code></pre>
  <pre tabindex="0"><code id="result-json"></code></pre>
  </details>
</section>`;
  return page({
    title: 'Grade a sample: grain grading tables',
    description: "Grade a grain sample against the Official Grain Grading Guide's tables, in your browser.",
    body,
    script: fileIn('assets', 'page.js'),
    module: fileIn('assets', 'grade-page.js'),
  });
}
