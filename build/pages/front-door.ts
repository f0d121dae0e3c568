// Pure: a validated dataset → the front door's bodies: the pages (GET /, /docs, /grade, the tables) and the
// templates of the answers to the registration and recovery forms, which the gateway fills per request.

import type { OpenApi } from '../compile/openapi.ts';
import { PAGE_TEMPLATES, ROUTES } from '../site-format.ts';
import type { Dataset } from '../validate/validate.ts';
import { renderDocs } from './docs.ts';
import { referenceExamples } from './examples.ts';
import { renderGradePage } from './grade-page.ts';
import { renderHome } from './home.ts';
import { renderRecoverConfirm, renderRecoverRequest, renderRecoverSent } from './recovery-pages.ts';
import { renderRegisterError, renderRegistered } from './registration-pages.ts';
import { tableBodies } from './table-bodies.ts';

/** `openapi`: the build's document (build-site.ts builds it once), which /docs renders. */
export function frontDoorBodies(ds: Dataset, openapi: OpenApi): Map<string, string> {
  return new Map([
    [ROUTES.home.path, renderHome(ds.grains)],
    [ROUTES.docs.path, renderDocs(openapi, referenceExamples(ds))],
    [ROUTES.gradePage.path, renderGradePage(ds.grains, ds.past)],
    [PAGE_TEMPLATES.registered, renderRegistered()],
    [PAGE_TEMPLATES.registerError, renderRegisterError()],
    [PAGE_TEMPLATES.recoverRequest, renderRecoverRequest()],
    [PAGE_TEMPLATES.recoverConfirm, renderRecoverConfirm()],
    [PAGE_TEMPLATES.recoverSent, renderRecoverSent()],
    ...tableBodies(ds),
  ]);
}
