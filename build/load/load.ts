// Reads the dataset's YAML files, keeping for every value where it stands (file, line, column) and
// the text the editor typed, so that errors can point at the cell and decimals come from the source.
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { type Document, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import { GRAIN_ID_PATTERN } from '../site-format.ts';
import { type Coverage, readCoverage } from './covered.ts';
import { type DatasetError, datasetError } from './dataset-error.ts';

const GRAIN_ID = new RegExp(GRAIN_ID_PATTERN);

export type Path = (string | number)[];
/** What is wrong in a file, and where: errorAt locates it (line, column) as a DatasetError. */
export type Problem = { at: Path; message: string };

export interface LoadedFile {
  file: string;
  data: unknown;
  /** Line and column of the value at path, or of its nearest existing parent. */
  locate(path: Path): { line: number; column: number };
  /** The source text of a plain scalar at path. */
  source(path: Path): string | undefined;
  /** Errors of YAML syntax itself. */
  syntaxErrors: DatasetError[];
}

const fieldName = (path: Path) =>
  path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : p), '') || '(top level)';

/** An error at the value `path` names in a loaded file. */
export const errorAt = (file: LoadedFile, path: Path, message: string): DatasetError =>
  datasetError(file.file, fieldName(path), message, file.locate(path));

export function loadYaml(text: string, file: string): LoadedFile {
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const pos = (offset: number) => {
    const p = lines.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const syntaxErrors = [...doc.errors, ...doc.warnings].map((e) =>
    datasetError(file, '(syntax)', e.message.split('\n')[0]!, pos(e.pos[0])),
  );
  return {
    file,
    data: syntaxErrors.length ? undefined : doc.toJS(),
    syntaxErrors,
    locate(path) {
      for (let n = path.length; n >= 0; n--) {
        const node = doc.getIn(path.slice(0, n), true);
        if (isNode(node) && node.range) return pos(node.range[0]);
      }
      return { line: 1, column: 1 };
    },
    source(path) {
      const node = doc.getIn(path, true);
      return isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
    },
  };
}

export function loadYamlFile(path: string, root: string): LoadedFile {
  return loadYaml(readFileSync(path, 'utf8'), relative(root, path) || basename(path));
}

export interface LoadedDataset {
  root: string;
  index: LoadedFile;
  changelog: LoadedFile;
  grains: LoadedFile[];
  /** What the changelog covers (dataset/covered/); null where the folder is missing. */
  coverage: Coverage | null;
  coverageErrors: DatasetError[];
}

/** dataset/index.yaml names the grain files in published order; each is dataset/grains/<ID>.yaml. */
export function loadDataset(root: string): LoadedDataset {
  const index = loadYamlFile(join(root, 'index.yaml'), root);
  const changelog = loadYamlFile(join(root, 'changelog.yaml'), root);
  const ids = (index.data as { grains?: unknown } | undefined)?.grains;
  const grains = Array.isArray(ids)
    ? ids
        .filter((id): id is string => typeof id === 'string' && GRAIN_ID.test(id))
        .map((id) => {
          try {
            return loadYamlFile(join(root, 'grains', `${id}.yaml`), root);
          } catch {
            return missingFile(join('grains', `${id}.yaml`));
          }
        })
    : [];
  const { coverage, errors: coverageErrors } = readCoverage(root);
  return { root, index, changelog, grains, coverage, coverageErrors };
}

function missingFile(file: string): LoadedFile {
  return {
    file,
    data: undefined,
    locate: () => ({ line: 1, column: 1 }),
    source: () => undefined,
    syntaxErrors: [datasetError(file, '(file)', 'the file named in index.yaml does not exist')],
  };
}
