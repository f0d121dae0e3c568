// What a browser may do with the service's pages: load only what this service serves, be framed
// by nothing, send no referrer. Every HTML answer carries them (variant-headers.ts, form-pages.ts).

/** The pages may load only what this service serves; nothing may frame them. */
export const PAGE_HEADERS: readonly string[] = [
  'Content-Security-Policy',
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options',
  'nosniff',
  'Referrer-Policy',
  'no-referrer',
];
