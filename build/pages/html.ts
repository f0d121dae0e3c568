// HTML that escapes itself: every value put into html`…` is escaped as text (safe in an element
// and in a quoted attribute value), unless it is HTML already: the result of another html`…`, or
// text marked raw() by code that made it safe. Arrays are joined; null, undefined and false
// render nothing, so `${cond && html`…`}` reads as it means.
import { escapeHtml } from '../site-format.ts';

export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

/** Text that is HTML already (a bundled script, a template slot): not escaped again. */
export const raw = (text: string) => new Html(text);

const render = (value: unknown): string =>
  value instanceof Html
    ? value.text
    : Array.isArray(value)
      ? value.map(render).join('')
      : value === null || value === undefined || value === false
        ? ''
        : escapeHtml(String(value));

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}
