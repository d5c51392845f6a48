/*
 * The OpenAPI 3.1 description of the REST API, served at `GET /api/openapi.json`.
 * Written by hand next to the route table; test/unit/openapi.test.ts checks that every
 * route and method of ROUTES is here and nothing else is.
 */

const error = { $ref: '#/components/responses/Error' };
const sessionId = {
  name: 'id', in: 'path', required: true,
  description: 'The session: `[A-Za-z0-9._-]{1,64}`, or `auto` for the name autodeck derives.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
};
const status = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/LoopStatus' } } },
});

const DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'autodeck',
    version: '1',
    description: 'Start, watch and stop supervised agent loops. Loopback only; every request needs the bearer token '
      + 'kept in `$XDG_STATE_HOME/autodeck/api-token`.',
  },
  servers: [{ url: 'http://127.0.0.1:{port}', variables: { port: { default: '0', description: 'the --api-port' } } }],
  security: [{ bearer: [] }],
  paths: {
    '/api/sessions/{id}/task-auto': {
      parameters: [sessionId],
      post: {
        operationId: 'startLoop',
        summary: 'Start the task module at taskDir in this session',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/StartRequest' } } },
        },
        responses: { 201: status('The loop started; its status.'), 400: error, 401: error, 403: error, 409: error, 503: error },
      },
      get: {
        operationId: 'getLoop',
        summary: 'The status of the loop in this session',
        responses: { 200: status('The loop\'s status, as in `autodeck status --json`.'), 400: error, 401: error, 404: error },
      },
      delete: {
        operationId: 'stopLoop',
        summary: 'Stop the loop in this session (a user stop, through the stop file)',
        responses: {
          202: {
            description: 'The stop was asked for.',
            content: { 'application/json': { schema: {
              type: 'object', required: ['session_name', 'status'],
              properties: { session_name: { type: 'string' }, status: { const: 'stopping' } },
            } } },
          },
          400: error, 401: error, 404: error,
        },
      },
    },
    '/api/task-auto/lookup': {
      get: {
        operationId: 'lookupLoop',
        summary: 'Which session runs the module at taskDir',
        parameters: [{ name: 'taskDir', in: 'query', required: true, schema: { type: 'string' }, description: 'An absolute path.' }],
        responses: {
          200: {
            description: 'The session and its status.',
            content: { 'application/json': { schema: {
              type: 'object', required: ['session_name', 'status'],
              properties: { session_name: { type: 'string' }, status: { type: 'string' } },
            } } },
          },
          400: error, 401: error, 404: error,
        },
      },
    },
    '/api/events': {
      get: {
        operationId: 'streamEvents',
        summary: 'The events of every loop of this supervisor, as Server-Sent Events',
        description: 'Each event is one `data:` line holding the JSON object `autodeck run --json` prints, with the '
          + 'event\'s id as the SSE `id:`. A comment line comes every 15 s to keep the stream open. Events from '
          + 'before the connection are in `autodeck log`.',
        responses: {
          200: {
            description: 'The stream, open until the client closes it or the server stops.',
            content: { 'text/event-stream': { schema: { type: 'string', description: 'SSE frames; each data line is a LoopEvent (components/schemas/LoopEvent).' } } },
          },
          401: error, 503: error,
        },
      },
    },
    '/api/openapi.json': {
      get: {
        operationId: 'getOpenApi',
        summary: 'This document',
        responses: { 200: { description: 'The OpenAPI 3.1 description.', content: { 'application/json': { schema: { type: 'object' } } } }, 401: error },
      },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    responses: {
      Error: {
        description: 'What went wrong, in one line.',
        content: { 'application/json': { schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } } },
      },
    },
    schemas: {
      StartRequest: {
        type: 'object',
        required: ['taskDir'],
        additionalProperties: false,
        properties: {
          taskDir: { type: 'string', description: 'The absolute path of a task module under a root.' },
          maxIterations: { type: 'integer', minimum: 1, maximum: 1000 },
          timeoutMinutes: { type: 'number', exclusiveMinimum: 0, maximum: 1440 },
        },
      },
      LoopStatus: {
        type: 'object',
        description: 'The fields of `autodeck status --json`.',
        required: ['session', 'taskDir', 'taskName', 'status', 'iteration', 'maxIterations', 'owner'],
        properties: {
          session: { type: 'string' },
          taskDir: { type: 'string' },
          taskName: { type: 'string' },
          status: { type: 'string' },
          iteration: { type: 'integer' },
          maxIterations: { type: 'integer' },
          timeoutMinutes: { type: 'number' },
          owner: { type: 'object' },
          tokens: { type: ['integer', 'null'], description: 'Tokens spent so far, from the transcript; null without one.' },
          costUsd: { type: ['number', 'null'], description: 'Estimated cost in USD; null without a transcript or a price for the model.' },
          spend: { type: 'string', description: '`no transcript`, `no price`, or empty when tokens and cost are known.' },
          compactions: { type: ['integer', 'null'] },
          contextTokens: { type: ['integer', 'null'] },
          contextWindow: { type: ['integer', 'null'] },
          ctxPercent: { type: ['integer', 'null'], description: 'How full the context is; null when unknown.' },
          needsYou: {
            description: 'The loop waits on a person: why, and the prompt, question or failure (printable, one line); null when it does not.',
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['reason', 'text'],
                properties: {
                  reason: { type: 'string', enum: ['permission', 'question', 'quota', 'answer_not_taken', 'failed', 'unknown_command'] },
                  text: { type: 'string' },
                  since: { type: 'string', format: 'date-time' },
                },
              },
            ],
          },
        },
      },
      LoopEvent: {
        type: 'object',
        required: ['at', 'session', 'taskDir', 'kind', 'detail'],
        properties: {
          id: { type: 'integer' },
          at: { type: 'string', format: 'date-time' },
          session: { type: 'string' },
          taskDir: { type: 'string' },
          taskName: { type: 'string' },
          kind: { type: 'string' },
          detail: { type: 'object' },
        },
      },
    },
  },
} as const;

/** A fresh copy of the document (callers may not change the shared one). */
export function openApiDocument(): Record<string, unknown> {
  return structuredClone(DOCUMENT) as unknown as Record<string, unknown>;
}
