import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { matchRoute, ROUTES } from '../../src/api/routes.js';
import { openApiDocument } from '../../src/api/openapi.js';

type Doc = { openapi: string; paths: Record<string, Record<string, unknown>> };
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A concrete path for an OpenAPI template: each `{param}` becomes a sample value. */
const concrete = (template: string): string => template.replace(/\{[^}]+\}/g, 'sample-1');

const docMethods = (item: Record<string, unknown>): string[] =>
  Object.keys(item).filter((k) => HTTP_METHODS.includes(k)).map((k) => k.toUpperCase()).sort();

describe('the OpenAPI description', () => {
  const doc = openApiDocument() as unknown as Doc;

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(openApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // the validator does refuse a broken one (so the check above means something)
    const broken = openApiDocument() as unknown as Doc;
    (broken.paths['/api/events'] as Record<string, unknown>).get = { responses: { 200: { content: {} } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('names every path of the route table with exactly its methods', () => {
    const seen = new Set<unknown>();
    for (const [template, item] of Object.entries(doc.paths)) {
      const match = matchRoute(concrete(template));
      expect(match, `${template} is not a route`).toBeDefined();
      expect(docMethods(item), template).toEqual(Object.keys(match!.route.handlers).sort());
      seen.add(match!.route);
    }
    // and the other way: no route is left out of the document
    const missing = ROUTES.filter((r) => !seen.has(r)).map((r) => String(r.pattern));
    expect(missing).toEqual([]);
  });

  it('gives every operation an id and a 401 (every route needs the token)', () => {
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const m of docMethods(item)) {
        const op = item[m.toLowerCase()] as { operationId?: string; responses: Record<string, unknown> };
        expect(op.operationId, `${m} ${template}`).toMatch(/^[a-zA-Z]+$/);
        expect(Object.keys(op.responses), `${m} ${template}`).toContain('401');
      }
    }
  });

  it('is a copy each time, so a caller cannot change what is served', () => {
    const a = openApiDocument() as unknown as Doc;
    a.paths = {};
    expect(Object.keys((openApiDocument() as unknown as Doc).paths).length).toBe(ROUTES.length);
  });
});
