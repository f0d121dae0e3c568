// @ts-check
// How long each test file took, kept between runs so that the next run starts the longest first: two
// cores finish many files of very different lengths sooner when a long one is not left for the end.
// longestFirst orders a run's files; keepTimes records a run's times (the lines test-clock.mjs wrote
// in each test process). A file with no time kept (a new one) goes first, as the longest might. A
// record that cannot be read is no record: the files then run in name order.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** @param {string} file @returns {Record<string, number>} */
function readJson(file) {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    return kept && typeof kept === 'object' ? kept : {};
  } catch {
    return {};
  }
}

/**
 * @param {{ path: string, name: string }[]} files `name` is what the record keys a file by
 * @param {string} record the kept times (milliseconds by name)
 */
export function longestFirst(files, record) {
  const kept = readJson(record);
  const time = (/** @type {string} */ name) => (typeof kept[name] === 'number' ? kept[name] : Infinity);
  return [...files].sort((a, b) => time(b.name) - time(a.name) || a.name.localeCompare(b.name));
}

/**
 * Adds a run's times (the reporter's lines) to the record, each file under its name.
 * @param {string} lines @param {string} record @param {(file: string) => string | undefined} nameOf
 */
export function keepTimes(lines, record, nameOf) {
  const kept = readJson(record);
  let changed = false;
  for (const line of lines.split('\n').filter(Boolean)) {
    const { file, ms } = JSON.parse(line);
    const name = nameOf(file);
    if (name) [kept[name], changed] = [ms, true];
  }
  if (!changed) return;
  mkdirSync(dirname(record), { recursive: true }); // a fresh checkout has no cache folder yet
  const beside = `${record}.${process.pid}`; // whole or not there, for a run beside this one
  writeFileSync(beside, `${JSON.stringify(kept, Object.keys(kept).sort(), 1)}\n`);
  renameSync(beside, record);
}
