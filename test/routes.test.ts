// The router (gateway/routes.ts) against the route table (build/site-format.ts): every row is
// served with exactly its methods and its handler, nothing outside the table is, and every body
// the build publishes sits under a row. Table-driven, no socket.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  fileIn,
  grainKey,
  PAGE_TEMPLATES,
  ROUTE_NAMES,
  ROUTES,
  type RouteName,
  routeOf,
  tableKey,
} from '../build/site-format.ts';
import { servePolicy } from '../gateway/cache-policy.ts';
import { loadConfig } from '../gateway/config.ts';
import { isCrossOrigin } from '../gateway/cors.ts';
import { ERRORS } from '../gateway/errors.ts';
import { route } from '../gateway/routes.ts';
import type { Site } from '../gateway/site.ts';
import { diskReader, loadSite } from '../gateway/site-load.ts';
import { realSiteDir } from './helpers/gateway.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'];

/** A request path for each row: its template filled, or a file in its folder. */
const SAMPLE_PATH: Record<RouteName, string> = Object.fromEntries(
  ROUTE_NAMES.map((name) => {
    const { path } = ROUTES[name];
    if (name === 'grain') return [name, grainKey('CWRS')];
    if (name === 'table') return [name, tableKey('CWRS')];
    if (name === 'tufTargets') return [name, ''];
    if (path.endsWith('/*'))
      return [name, fileIn(name as 'assets' | 'client', name === 'assets' ? 'site.css' : 'grade.js')];
    return [name, path];
  }),
) as Record<RouteName, string>;

describe('the router serves exactly the route table', () => {
  let site: Site;
  before(async () => {
    site = await loadSite(diskReader(realSiteDir()), servePolicy(loadConfig({})));
  });

  for (const name of ROUTE_NAMES) {
    const row = ROUTES[name];
    it(`${row.path}: ${row.methods.join(', ')} → ${row.handler}; any other method is refused`, () => {
      // a signed edition's target is named by its body's hash: one of the build's
      const path = SAMPLE_PATH[name] || [...site.routes.keys()].find((key) => routeOf(key) === name)!;
      assert.equal(routeOf(path), name, 'the table names the path');
      for (const method of METHODS) {
        const r = route(method, path, site);
        // /metrics answers any method once its token is checked: without it, it is an unknown path (app.ts)
        if (row.handler === 'metrics') {
          assert.equal(r.handler, 'metrics', method);
          continue;
        }
        // OPTIONS where other origins may read (cors.ts): the preflight's answer, naming the path's methods
        if (method === 'OPTIONS' && isCrossOrigin(name)) {
          assert.deepEqual(r, {
            handler: 'options',
            allow: [...row.methods, 'OPTIONS'].join(', '),
            crossOrigin: true,
            row: name,
          });
          continue;
        }
        if (!(row.methods as readonly string[]).includes(method)) {
          assert.equal(r.handler, null, `${method} ${path}`);
          assert.equal((r as { error: { status: number } }).error.status, 405, `${method} ${path}`);
          continue;
        }
        assert.equal(r.handler, row.handler, `${method} ${path}`);
        if (r.handler === 'data') assert.ok(r.resource ?? site.routes.get(r.key!), `${method} ${path}: a body`);
        if (r.handler === 'public') assert.ok(site.routes.get(r.key), `${method} ${path}: a body`);
      }
    });
  }

  const outside = [
    '/api',
    '/api/',
    '/api/grain',
    '/api/keys',
    '/api/keys/other',
    '/healthz',
    '/docs/x',
    '/gradex',
    '/x',
  ];
  for (const path of outside) {
    it(`${path} is outside the table: 404 for every method`, () => {
      assert.equal(routeOf(path), null);
      for (const method of METHODS)
        assert.deepEqual(route(method, path, site), { handler: null, error: ERRORS.notFound });
    });
  }

  it('every body the build publishes is under a row, but the page templates the gateway fills', () => {
    const templates = new Set<string>(Object.values(PAGE_TEMPLATES));
    const orphans = [...site.routes.keys()].filter((key) => !templates.has(key) && routeOf(key) === null);
    assert.deepEqual(orphans, []);
    for (const name of ROUTE_NAMES) {
      const { handler } = ROUTES[name];
      if (handler !== 'data' && handler !== 'public') continue;
      assert.ok(
        [...site.routes.keys()].some((key) => routeOf(key) === name),
        `${ROUTES[name].path} has a body in the build`,
      );
    }
  });
});
