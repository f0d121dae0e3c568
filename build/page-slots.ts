// The slots the build leaves in its pages for the gateway to fill (docs/contract.md, The front
// door), each declared once here: `{{name}}` in the page's text, `name` the key of the value the
// gateway puts there, HTML-escaped. Part of the site format: site-format.ts re-exports this file,
// which depends on nothing.

/** Every slot: the origin a page was asked from, the deployment's figures, and the form answers' values. */
const SLOT_NAMES = [
  'origin',
  'rate_limit_per_hour',
  /** An example answer's X-RateLimit-Remaining: the limit less EXAMPLE_REQUESTS_USED. */
  'rate_limit_remaining_example',
  'register_limit_per_hour',
  'api_key',
  'email',
  'error',
  'token',
] as const;
export type SlotName = (typeof SLOT_NAMES)[number];
export type SlotValues<N extends SlotName = SlotName> = { readonly [K in N]: string };

/** Each slot as the build writes it: `SLOTS.api_key` is `{{api_key}}`. */
export const SLOTS = Object.fromEntries(SLOT_NAMES.map((name) => [name, `{{${name}}}`])) as {
  readonly [K in SlotName]: `{{${K}}}`;
};
/** A slot in a page's text; `text.split(TEMPLATE_SLOT)` alternates text and slot names. */
export const TEMPLATE_SLOT = /\{\{([a-z_]+)\}\}/g;

/**
 * The pages the gateway fills per request (docs/contract.md, The front door): the answers to the
 * front door's form post and the recovery pages. The build writes them as bodies under these keys
 * (never served as they are); TEMPLATE_SLOTS names the slots of each.
 */
export const PAGE_TEMPLATES = {
  /** 201: the key, once. */
  registered: '/_templates/registered',
  /** An error: the form again with its message. */
  registerError: '/_templates/register-error',
  /** The recovery page: the form that asks for a mail, with a message. */
  recoverRequest: '/_templates/recover-request',
  /** A mail's link opened: what using it does, and the button. */
  recoverConfirm: '/_templates/recover-confirm',
  /** A mail was asked for (sent only when an account holds the address). */
  recoverSent: '/_templates/recover-sent',
} as const;
export type TemplateName = keyof typeof PAGE_TEMPLATES;
export const TEMPLATE_SLOTS = {
  registered: ['api_key', 'origin'],
  registerError: ['email', 'error'],
  recoverRequest: ['email', 'error'],
  recoverConfirm: ['token'],
  recoverSent: ['email'],
} as const satisfies Record<TemplateName, readonly SlotName[]>;
/** The values a template's slots are filled with: each of its slots, no other. */
export type TemplateValues<T extends TemplateName> = SlotValues<(typeof TEMPLATE_SLOTS)[T][number]>;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text as HTML text or attribute value: how the build writes pages and the gateway fills slots. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * The one fill: text split at its slots (TEMPLATE_SLOT) with each slot's value in, HTML-escaped. A
 * slot without a value stays as written, for a later fill (a page's origin) or because a build
 * newer than the gateway wrote it.
 */
export function fillSlots(parts: readonly string[], values: Partial<SlotValues>): string {
  let text = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i % 2 === 0) text += part;
    else {
      const value = values[part as SlotName];
      text += value === undefined ? `{{${part}}}` : escapeHtml(value);
    }
  }
  return text;
}

/** The host examples name when the gateway cannot tell the origin a page was asked from. */
export const ORIGIN_PLACEHOLDER = 'https://grain.example.net';

/** The requests the API reference's example answers have made in their hour (rate_limit_remaining_example). */
export const EXAMPLE_REQUESTS_USED = 3;
