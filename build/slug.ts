// The one rule for an id the tools make from text (a factor's or a group's from its label, a
// changelog entry's from its summary): lower case, accents taken off, every run of anything but a
// letter or a digit a separator, none at either end.

/** `text` as an id: its words (the first `words` of them) joined by `separator`; '' when it has none. */
export function slug(text: string, { separator = '_', words = Number.POSITIVE_INFINITY } = {}): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .slice(0, words)
    .join(separator);
}
