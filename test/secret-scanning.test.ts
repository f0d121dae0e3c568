// tier: full (secretlint)
// Scanners find our keys (docs/contract.md, "A leaked key"): secretlint, run with the shipped
// configuration over files, finds a live key and passes look-alikes; the gitleaks rule's regex,
// entropy and keyword (gitleaks is a Go binary: its rule is read from the TOML and applied as
// gitleaks applies it) decide the same cases; and the offline check the contract prints tells a
// key from a look-alike by its checksum.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateKey } from '../gateway/keys.ts';
import { tempDir } from './helpers/dataset.ts';
import { root } from './helpers/gateway.ts';

const key = generateKey();
const body = key.slice(4);
/** A look-alike's wrong character: in none of the key's positions' alphabet. */
const swapped = (c: string) => `${body.slice(0, 20)}${c}${body.slice(21)}`;

/** [name, file content, whether a scanner must report it]. */
const cases: [string, string, boolean][] = [
  ['a live key in a quoted assignment', `API_KEY = "${key}"\n`, true],
  ['a live key at the start of the file, without a line end', key, true],
  ['a live key in JSON', `{"headers": {"X-API-Key": "${key}"}}\n`, true],
  ['a live key in a URL', `curl 'https://grain.example.org/api/grains?api_key=${key}'\n`, true],
  ['a live key in a shell export, then more text', `export GGT=${key} # mine\n`, true],
  ['the bare prefix', 'prefix = "ggt_"\n', false],
  ['a tail one character short', `k = "${key.slice(0, -1)}"\n`, false],
  ['a tail one character long', `k = "${key}A"\n`, false],
  ['a character outside the alphabet (.)', `k = "ggt_${swapped('.')}"\n`, false],
  ['a character outside the alphabet (+)', `k = "ggt_${swapped('+')}"\n`, false],
  ['a character outside the alphabet (/)', `k = "ggt_${swapped('/')}"\n`, false],
  ['the prefix in capitals', `k = "GGT_${body}"\n`, false],
  ['glued to a word before it', `k = "xggt_${body}"\n`, false],
];

const config = (name: string) => join(root, 'docs/secret-scanning', name);

describe('secretlint with docs/secret-scanning/secretlintrc.json', () => {
  it('finds each live key and passes each look-alike', () => {
    const dir = tempDir('secretlint');
    const files = cases.map(([, content], i) => {
      const file = join(dir, `case-${i}.txt`);
      writeFileSync(file, content);
      return file;
    });
    const run = spawnSync(
      join(root, 'node_modules/.bin/secretlint'),
      ['--secretlintrc', config('secretlintrc.json'), '--format', 'json', '--no-color', ...files],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(run.status, 1, `it reports findings with exit status 1: ${run.stderr}`);
    const results: { filePath: string; messages: { ruleId: string; range: [number, number] }[] }[] = JSON.parse(
      run.stdout,
    );
    cases.forEach(([name, content, found], i) => {
      const result = results.find((r) => r.filePath === files[i]);
      assert.ok(result, `${name}: scanned`);
      assert.equal(result.messages.length, found ? 1 : 0, name);
      if (found) {
        const [from, to] = result.messages[0]!.range;
        assert.equal(content.slice(from, to), key, `${name}: the key, all of it`);
        assert.equal(result.messages[0]!.ruleId, '@secretlint/secretlint-rule-pattern');
      }
    });
  });
});

/** The rule's fields as gitleaks reads them from the TOML (only the few this file uses). */
function gitleaksRule() {
  const toml = readFileSync(config('gitleaks.toml'), 'utf8');
  const rules = toml.slice(toml.indexOf('[[rules]]'));
  const field = (name: string) => new RegExp(`^${name} = (.+)$`, 'm').exec(rules)?.[1];
  return {
    regex: /^regex = '''(.+)'''$/m.exec(rules)![1]!,
    secretGroup: Number(field('secretGroup')),
    entropy: Number(field('entropy')),
    keywords: JSON.parse(field('keywords')!) as string[],
  };
}

/** Shannon entropy in bits per character, as gitleaks computes it over the secret. */
function shannon(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

describe('the gitleaks rule in docs/secret-scanning/gitleaks.toml', () => {
  const rule = gitleaksRule();

  it('is written in the RE2 syntax gitleaks reads: no lookaround, no back-reference', () => {
    assert.doesNotMatch(rule.regex, /\(\?<?[=!]|\\[1-9]/);
    assert.deepEqual(rule.keywords, ['ggt_']);
    assert.equal(rule.secretGroup, 1);
  });

  /** What gitleaks reports in `content`: the secret groups past the keyword and the entropy. */
  const findings = (content: string) => {
    if (!rule.keywords.some((k) => content.toLowerCase().includes(k))) return [];
    return [...content.matchAll(new RegExp(rule.regex, 'g'))]
      .map((m) => m[rule.secretGroup]!)
      .filter((secret) => shannon(secret) >= rule.entropy);
  };

  for (const [name, content, found] of cases) {
    it(`${found ? 'finds' : 'passes'} ${name}`, () => {
      assert.deepEqual(findings(content), found ? [key] : []);
    });
  }

  it('finds every key the generator makes (its entropy bound is below any of them), and no placeholder', () => {
    for (let i = 0; i < 2_000; i++) {
      const k = generateKey();
      assert.deepEqual(findings(`"${k}"`), [k]);
    }
    assert.deepEqual(findings(`"ggt_${'A'.repeat(38)}" "ggt_${'xy'.repeat(19)}"`), []);
  });
});

describe('the offline check in docs/contract.md, "A leaked key"', () => {
  const contract = readFileSync(join(root, 'docs/contract.md'), 'utf8');
  const section = contract.slice(contract.indexOf('## A leaked key'), contract.indexOf('## Authentication'));
  const snippet = /```sh\n([\s\S]+?)```/.exec(section)?.[1];
  const python = spawnSync('python3', ['--version']).status === 0;

  it('is printed there', () => assert.ok(snippet?.includes('< finding.txt')));

  const checks: [string, string, string][] = [
    ['a live key', `${key}\n`, 'a key of this service: its checksum holds'],
    ['its checksum altered', `${key.slice(0, -1)}z\n`, 'not a key of this service'], // z is never a last character
    ['a tail one character short', key.slice(0, -1), 'not a key of this service'],
    ['the bare prefix', 'ggt_', 'not a key of this service'],
  ];
  for (const [name, finding, says] of checks) {
    it(`says of ${name}: ${says}`, { skip: python ? false : 'no python3 here' }, () => {
      const dir = tempDir('finding');
      writeFileSync(join(dir, 'finding.txt'), finding);
      const run = spawnSync('sh', ['-c', snippet!], { cwd: dir, encoding: 'utf8' });
      assert.equal(run.stderr, '');
      assert.equal(run.stdout, `${says}\n`);
    });
  }
});
