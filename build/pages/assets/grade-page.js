// GET /grade: loads a class's record with the visitor's key, makes the sample's inputs from the
// record (units, the decimals the table prints, the judgements its cells ask for, the track,
// region and colour where they matter), grades with the published grader module and shows the
// answer in the table's shape: the deciding cell marked in words, so it reads without colour. The
// key and the record live in this module's variables only: nothing is stored, nothing goes in a URL.
// The grader's and the records' paths come from the page (the route table, at build time)
const { grader, recordPath, keyHeader, yearParam } = document.getElementById('load-form').dataset;
const { explain, grade, parseSample } = await import(grader);

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
let record = null;
const labels = new Map();

function field(id, label, control, hint) {
  const box = el('div', { class: 'sample-field' });
  box.append(el('label', { for: id }, label), control);
  if (hint) {
    control.setAttribute('aria-describedby', `${id}-hint`);
    box.append(el('p', { id: `${id}-hint`, class: 'hint' }, hint));
  }
  return box;
}

function choice(id, label, values, hint) {
  const select = el('select', { id, name: id });
  select.append(el('option', { value: '' }, '(not given)'));
  for (const v of values) select.append(el('option', { value: v }, v));
  return field(id, label, select, hint);
}

/** The sample's inputs, made from the record. */
function fieldsFor(r) {
  const box = $('sample-fields');
  box.replaceChildren();
  labels.clear();
  const general = [];
  if (r.variety_tracks) general.push(choice('track', 'Variety track', r.variety_tracks.map((t) => t.track_id)));
  if (r.colours) general.push(choice('colour', 'Colour', r.colours));
  const regional = r.factor_groups.some((g) =>
    g.factors.some((f) => (f.fallthrough_outcomes ?? []).some((o) => o.region)),
  );
  if (regional) general.push(choice('region', 'Region', ['western', 'eastern'], 'Where an outcome depends on it.'));
  if (general.length) {
    const set = el('fieldset');
    set.append(el('legend', {}, 'The sample'), ...general);
    box.append(set);
  }
  for (const g of r.factor_groups) {
    const set = el('fieldset');
    set.append(el('legend', {}, g.group_label));
    for (const f of g.factors) {
      labels.set(f.factor_id, f.factor_label);
      const cells = Object.values(f.thresholds);
      const numeric = cells.filter((c) => c.value_type === 'numeric');
      if (numeric.length || f.is_aggregate) {
        const decimals = Math.max(0, ...numeric.map((c) => c.decimals ?? 0));
        const input = el('input', {
          id: `v-${f.factor_id}`,
          type: 'number',
          step: String(10 ** -decimals),
          inputmode: 'decimal',
        });
        input.dataset.factor = f.factor_id;
        const unit = f.unit ? ` (${f.unit})` : '';
        const which = f.threshold_direction === 'minimum' ? 'a minimum' : f.is_aggregate ? 'a Total' : 'a maximum';
        const printed = `the table prints ${decimals} decimal${decimals === 1 ? '' : 's'}`;
        set.append(field(input.id, `${f.factor_label}${unit}`, input, `${which}; ${printed}`));
      }
      for (const key of new Set(cells.map((c) => c.partial?.key).filter(Boolean))) {
        const input = el('input', { id: `v-${key}`, type: 'number', step: 'any', inputmode: 'decimal' });
        input.dataset.factor = key;
        set.append(field(input.id, `${f.factor_label}: ${key.replace(/_/g, ' ')}`, input));
      }
      if (cells.some((c) => c.value_type.startsWith('qualitative'))) {
        const ladder = r.grades;
        const select = el('select', { id: `j-${f.factor_id}` });
        select.dataset.judged = f.factor_id;
        select.append(el('option', { value: '' }, '(not judged)'));
        for (const gname of ladder) select.append(el('option', { value: gname }, gname));
        set.append(field(select.id, `${f.factor_label}: the best grade it was judged to meet`, select));
        // a floor rule caps how low a judgement on its account takes the sample (grading.md)
        const accounts = (r.grade_floor_rules ?? []).filter((rule) => rule.factor_ids.includes(f.factor_id));
        if (accounts.length) {
          const account = el('select', { id: `a-${f.factor_id}` });
          account.dataset.account = f.factor_id;
          account.append(el('option', { value: '' }, '(no particular account)'));
          for (const rule of accounts) account.append(el('option', { value: rule.account }, rule.account));
          set.append(field(account.id, `${f.factor_label}: judged on account of`, account));
        }
      }
    }
    box.append(set);
  }
}

/** The sample as the grader takes it, from the inputs given. */
function sampleOf() {
  const sample = { values: {}, judgments: {} };
  for (const input of document.querySelectorAll('#sample-fields input[data-factor]')) {
    if (input.value !== '') sample.values[input.dataset.factor] = Number(input.value);
  }
  for (const select of document.querySelectorAll('#sample-fields select[data-judged]')) {
    if (select.value) sample.judgments[select.dataset.judged] = select.value;
  }
  for (const select of document.querySelectorAll('#sample-fields select[data-account]')) {
    if (select.value) (sample.accounts ??= {})[select.dataset.account] = select.value;
  }
  for (const name of ['track', 'colour', 'region']) {
    const select = $(name);
    if (select?.value) sample[name] = select.value;
  }
  return sample;
}

/** A sentence for an undecided judgement: which grade's standard, on which factor, would settle it. */
const judgementText = (j) =>
  `Judge whether the sample meets ${j.grade}'s standard for ${labels.get(j.factor_id) ?? j.factor_id}` +
  `${j.standard ? ` (“${j.standard}”)` : ''}.`;

/** One cell of the answer's table: the limit, whether it is met, and a marker when it decided (words, not colour). */
function limitCell(cell, deciding) {
  const td = el('td');
  if (!cell) {
    td.textContent = '–';
    return td;
  }
  const state = { met: 'met', failed: 'not met', missing: 'not known' }[cell.state];
  td.append(el('span', { class: 'limit' }, cell.text), document.createTextNode(` (${state})`));
  if (deciding) {
    td.dataset.deciding = 'true';
    td.prepend(el('strong', {}, 'Decided: '));
  }
  return td;
}

/** The answer in the table's shape: per factor the value entered, the limits at the grade found and the one above. */
function answerTable(sample, result) {
  const shape = explain(record, sample, result);
  if (!shape) return null;
  const table = el('table', { id: 'answer-table' });
  const above = shape.above ? ` and the grade above, ${shape.above}` : '';
  table.append(el('caption', {}, `Each factor: the value entered, and the limits at ${shape.at}${above}`));
  const head = el('tr');
  const cols = ['Factor: value entered', ...(shape.above ? [shape.above] : []), shape.at];
  for (const h of cols) head.append(el('th', { scope: 'col' }, h));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const row of shape.rows) {
    const tr = el('tr');
    if (row.deciding) tr.dataset.deciding = row.deciding;
    const name = el('th', { scope: 'row' }, row.label);
    name.append(el('br'), el('span', { class: 'entered' }, row.entered ?? '(not given)'));
    tr.append(name);
    if (shape.above) tr.append(limitCell(row.above, row.deciding === 'above'));
    tr.append(limitCell(row.at, row.deciding === 'at'));
    body.append(tr);
  }
  table.append(thead, body);
  const label = 'The answer, factor by factor';
  const scroll = el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': label });
  scroll.append(table);
  return scroll;
}

function verdictOf(result) {
  if ('error' in result) return `The sample cannot be graded: ${result.field}: ${result.error}.`;
  if (result.result === 'undetermined') return 'Undetermined: more is needed (below).';
  if (result.result === 'fallthrough')
    return `Fails the lowest grade: ${result.grade ?? 'the page states no grade.'}`;
  return `Grade: ${result.grade}`;
}

function show(sample, result) {
  $('sample-json').textContent = JSON.stringify(sample, null, 2);
  $('result-json').textContent = JSON.stringify(result, null, 2);
  $('result-grade').textContent = verdictOf(result);
  for (const id of ['result-reason', 'result-judgments', 'result-table', 'result-missing']) $(id).replaceChildren();
  if (!('error' in result)) {
    const reason = $('result-reason');
    if (result.reason && result.result !== 'undetermined') reason.textContent = `Why no grade: ${result.reason}.`;
    if (result.note) reason.textContent = `Note: ${result.note}.`;
    if (result.judgments_needed.length) {
      const box = $('result-judgments');
      box.append(el('p', {}, 'A judgement would settle it:'));
      const list = el('ul');
      for (const j of result.judgments_needed) list.append(el('li', {}, judgementText(j)));
      box.append(list);
    }
    const table = answerTable(sample, result);
    if (table) $('result-table').append(table);
    const values = result.missing.filter((m) => !result.judgments_needed.some((j) => j.factor_id === m));
    if (values.length) {
      const box = $('result-missing');
      box.append(el('p', {}, 'Missing: a value (or choice) that would decide it.'));
      const list = el('ul');
      for (const m of values) list.append(el('li', {}, labels.get(m) ?? m));
      box.append(list);
    }
  }
  $('result').hidden = false;
  $('graded-title').focus();
}

// The crop years the chosen class was published for, its current one first (data-years)
function offerYears() {
  const years = $('grain').selectedOptions[0]?.dataset.years.split(' ') ?? [];
  $('crop-year').replaceChildren(...years.map((y, i) => el('option', { value: y }, i ? y : `${y} (current)`)));
}
$('grain').addEventListener('change', offerYears);
offerYears();

$('load-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = $('load-error');
  const key = $('key');
  error.textContent = '';
  key.removeAttribute('aria-invalid');
  const id = $('grain').value;
  let res;
  try {
    const year = $('crop-year').selectedIndex > 0 ? `?${yearParam}=${encodeURIComponent($('crop-year').value)}` : '';
    res = await fetch(`${recordPath.replace('{grain_id}', encodeURIComponent(id))}${year}`, {
      headers: { [keyHeader]: key.value.trim() },
    });
  } catch {
    error.textContent = 'The service could not be reached. Check your connection and try again.';
    return;
  }
  const body = await res.json().catch(() => null);
  if (!res.ok || !body) {
    error.textContent = body?.error ?? `The class could not be loaded (status ${res.status}).`;
    if (res.status === 401) {
      key.setAttribute('aria-invalid', 'true');
      key.focus();
    }
    return;
  }
  record = body;
  fieldsFor(record);
  $('result').hidden = true;
  $('sample-form').hidden = false;
  $('json-form').hidden = false;
  $('sample-title').focus();
});

$('sample-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!record) return;
  const sample = sampleOf();
  show(sample, grade(record, sample));
});

// A sample pasted as JSON: not JSON is said with its line and column, next to the box.
$('json-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!record) return;
  const box = $('sample-text');
  const error = $('sample-text-error');
  const parsed = parseSample(box.value);
  if ('error' in parsed) {
    error.textContent = `The sample is ${parsed.error}.`;
    box.setAttribute('aria-invalid', 'true');
    box.focus();
    return;
  }
  error.textContent = '';
  box.removeAttribute('aria-invalid');
  show(parsed.sample, grade(record, parsed.sample));
});
