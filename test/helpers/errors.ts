// The body a test expects for a catalogue error: its sentence and code, and the status the test
// states itself (so a wrong status in the catalogue still fails the test that names it).
import { CODES, type ErrorName, MESSAGES } from '../../gateway/errors.ts';

export const errorJson = (name: ErrorName, status: number) => ({
  error: MESSAGES[name],
  status,
  code: CODES[name],
  schema_version: '1.0',
});
