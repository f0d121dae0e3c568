// Gets an authority page: from a URL, or from a saved copy. A saved copy's folder may hold a
// pages.tsv (file, grain_ids, source_url, page_modified, retrieved) that says where it came from.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface FetchedPage {
  html: string;
  sourceUrl?: string;
  /** ISO 8601 UTC timestamp of when the copy was taken. */
  retrieved?: string;
}

export interface PageIndexRow {
  file: string;
  grainIds: string[];
  sourceUrl: string;
  pageModified: string;
  retrieved: string;
}

export function readPageIndex(dir: string): PageIndexRow[] {
  const tsv = join(dir, 'pages.tsv');
  if (!existsSync(tsv)) return [];
  const [head, ...rows] = readFileSync(tsv, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const col = (name: string) => head!.indexOf(name);
  return rows.map((r) => ({
    file: r[col('file')]!,
    grainIds: r[col('grain_ids')]!.split(','),
    sourceUrl: r[col('source_url')]!,
    pageModified: r[col('page_modified')]!,
    retrieved: r[col('retrieved')]!,
  }));
}

const dayToTimestamp = (day: string) => (/^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00Z` : day);

export async function readPage(location: string, now: () => Date = () => new Date()): Promise<FetchedPage> {
  if (/^https?:\/\//.test(location)) {
    const res = await fetch(location, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`${location} answered ${res.status}`);
    return {
      html: await res.text(),
      sourceUrl: location,
      retrieved: now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    };
  }
  const row = readPageIndex(dirname(location)).find((r) => r.file === basename(location));
  return {
    html: readFileSync(location, 'utf8'),
    sourceUrl: row?.sourceUrl,
    retrieved: row ? dayToTimestamp(row.retrieved) : undefined,
  };
}
