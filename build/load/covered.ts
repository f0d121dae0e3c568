// What the changelog covers, read from the dataset (dataset/covered/, written only by `npm run
// changelog`: changelog/coverage.ts) so that the build's guard holds on a clean checkout with no
// build beside it (docs/dataset-editing.md, "Every change has an entry"):
//   covered/<GRAIN_ID>.json  the class's published record as of the newest entry naming it
//   covered/changelog.json   every recorded entry's id and SHA-256: published entries are append-only
//   covered/past/<GRAIN_ID>.<YYYY-YY>.json  the class's last record of a past crop year (kept when
//                            an entry moves the class to a new year: GET …?crop_year= serves it)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GRAIN_ID_SOURCE } from '../site-format.ts';
import { type DatasetError, datasetError } from './dataset-error.ts';

/** A published record body as JSON gives it back (covered/, a live build): only the parts the
 * changelog's diff walks are typed (changelog/diff.ts). */
export interface RecordJson {
  grain_id: string;
  factor_groups: { group_id: string; group_label: string; factors: FactorBody[] }[];
  [field: string]: unknown;
}
interface FactorBody {
  factor_id: string;
  thresholds: Record<string, Record<string, unknown>>;
  [field: string]: unknown;
}

/** Each class's last record of every past crop year it was published for: grain id → crop year → record. */
export type PastYears = Map<string, Map<string, RecordJson>>;

export const COVERED_DIR = 'covered';
export const ENTRIES_FILE = 'changelog.json';
export const PAST_DIR = 'past';
/** A past year's file: `<GRAIN_ID>.2024-25.json` (validate/crop-years.ts, yearSlug). */
const PAST_FILE = new RegExp(`^(${GRAIN_ID_SOURCE})\\.(\\d{4})-(\\d{2})\\.json$`);

interface CoveredRecord {
  /** The id of the newest entry that names the class. */
  covered_by: string;
  /** The record as published then; null once an entry removed the class. */
  record: RecordJson | null;
}

export interface Coverage {
  /** In the order they were recorded. */
  entries: { id: string; sha256: string }[];
  records: Map<string, CoveredRecord>;
  /** Each class's last record of every past crop year. */
  past: PastYears;
}

/** null when the dataset has no covered/ folder; errors name the file that cannot be read. */
export function readCoverage(root: string): { coverage: Coverage | null; errors: DatasetError[] } {
  const dir = join(root, COVERED_DIR);
  if (!existsSync(dir)) return { coverage: null, errors: [] };
  const errors: DatasetError[] = [];
  const read = (name: string): Record<string, unknown> | null => {
    try {
      const value = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // said below
    }
    errors.push(
      datasetError(
        `${COVERED_DIR}/${name}`,
        '(file)',
        'cannot be read as written by npm run changelog; restore it from version control',
      ),
    );
    return null;
  };
  const entries = (read(ENTRIES_FILE)?.entries ?? []) as Coverage['entries'];
  const records = new Map<string, CoveredRecord>();
  for (const name of readdirSync(dir).sort()) {
    if (name === ENTRIES_FILE || !name.endsWith('.json')) continue;
    const r = read(name);
    if (r && typeof r.covered_by === 'string') {
      records.set(name.slice(0, -'.json'.length), { covered_by: r.covered_by, record: r.record as RecordJson | null });
    }
  }
  const past: PastYears = new Map();
  const pastDir = join(dir, PAST_DIR);
  for (const name of existsSync(pastDir) ? readdirSync(pastDir).sort() : []) {
    const m = PAST_FILE.exec(name);
    const r = m ? read(`${PAST_DIR}/${name}`) : null;
    if (!m || !r) continue;
    const year = `${m[2]}/${m[3]}`;
    if (r.crop_year !== year || (r.record as RecordJson | null)?.effective_crop_year !== year) {
      errors.push(
        datasetError(
          `${COVERED_DIR}/${PAST_DIR}/${name}`,
          'crop_year',
          `is not the record of ${year} its name says; restore it from version control`,
        ),
      );
      continue;
    }
    past.set(m[1]!, new Map([...(past.get(m[1]!) ?? []), [year, r.record as RecordJson]]));
  }
  return { coverage: { entries, records, past }, errors };
}
