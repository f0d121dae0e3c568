// A sample written as JSON text (a file, a pasted box): parsed, or an error naming the line and
// column where it stops being JSON (docs/grading.md "The sample"). Engines word JSON.parse's error
// differently and some give no position, so a small scanner finds the place itself. Bundled with
// the grader.

export interface ParseError {
  error: string;
  line: number;
  column: number;
}

/** The offset of the first character that is not JSON (the text's length when it ends too soon), or -1. */
function badOffset(text: string): number {
  let i = 0;
  const fail = (at = i): never => {
    throw at;
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const escaped = () => {
    i++;
    if (text[i] === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail(i + 1);
      i += 4;
    } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') escaped();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail();
    else i += m[0].length;
  };
  const member = (keyed: boolean) => {
    if (keyed) {
      space();
      if (text[i] !== '"') fail();
      string();
      space();
      if (text[i] !== ':') fail();
      i++;
    }
    value();
    space();
  };
  const compound = (close: string, keyed: boolean) => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    member(keyed);
    while (text[i] === ',') {
      i++;
      member(keyed);
    }
    if (text[i] !== close) fail();
    i++;
  };
  const value = () => {
    space();
    const ch = text[i];
    if (ch === '{') compound('}', true);
    else if (ch === '[') compound(']', false);
    else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (at) {
    return Math.min(at as number, text.length);
  }
}

/** Line and column (from 1) of a character offset. */
function locate(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

export function parseSample(text: string): { sample: unknown } | ParseError {
  try {
    return { sample: JSON.parse(text) };
  } catch {
    const at = badOffset(text);
    const offset = at < 0 ? text.length : at;
    const { line, column } = locate(text, offset);
    const what = offset >= text.length ? 'the text ends too soon' : `unexpected ${JSON.stringify(text[offset])}`;
    return { error: `not JSON at line ${line}, column ${column}: ${what}`, line, column };
  }
}
