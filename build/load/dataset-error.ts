// An error in the dataset as an editor is shown it: the file, where in it, the field and what is
// wrong (docs/dataset-editing.md). Made in one place, by datasetError; at a loaded file's value by
// errorAt (load.ts).

export interface DatasetError {
  file: string;
  line: number;
  column: number;
  field: string;
  message: string;
}

/** An error in `file` at `at` (the file's start when no place in it is known). */
export const datasetError = (
  file: string,
  field: string,
  message: string,
  at: { line: number; column: number } = { line: 1, column: 1 },
): DatasetError => ({ file, line: at.line, column: at.column, field, message });
