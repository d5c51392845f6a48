/*
 * The OpenAPI 3.1 description of the REST API, served at `GET /api/openapi.json`.
 * Written by hand next to the route table; test/unit/openapi.test.ts checks that every
 * route and method of ROUTES is here and nothing else is.
 */

import { CLAUDE_PATHS, CLAUDE_SCHEMAS } from './claudeOpenApi.js';

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
    '/api/status': {
      get: {
        operationId: 'getStatus',
        summary: 'Every active loop and the last finished runs, each with its host',
        description: 'As `autodeck status --json --host …`: this machine\'s loops (`host` is `local`) and, in a dashboard '
          + 'that reads other hosts over ssh, theirs as last read; `hosts` says which could not be read and why.',
        responses: {
          200: {
            description: 'The loops, the recent runs and the hosts.',
            content: { 'application/json': { schema: {
              type: 'object', required: ['loops', 'recent', 'hosts'],
              properties: {
                loops: { type: 'array', items: { $ref: '#/components/schemas/LoopStatus' } },
                recent: { type: 'array', items: { type: 'object' } },
                claudeSessions: { type: 'array', items: { $ref: '#/components/schemas/ClaudeSession' }, description: 'This machine\'s Claude Code sessions (`host` is `local`), when this autodeck watches them' },
                claudeNote: { type: 'string' },
                hosts: { type: 'array', items: {
                  type: 'object', required: ['host', 'state'],
                  properties: { host: { type: 'string' }, state: { type: 'string' }, message: { type: 'string' }, version: { type: 'string' } },
                } },
              },
            } } },
          },
          401: error,
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
    ...CLAUDE_PATHS,
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
      ...CLAUDE_SCHEMAS,
      StartRequest: {
        type: 'object',
        required: ['taskDir'],
        additionalProperties: false,
        properties: {
          taskDir: { type: 'string', description: 'The absolute path of a task module under a root.' },
          maxIterations: { type: 'integer', minimum: 1, maximum: 1000 },
          timeoutMinutes: { type: 'number', exclusiveMinimum: 0, maximum: 1440 },
          worktree: { type: 'boolean', description: 'Run the loop in a git worktree of its own (default: the `worktree` setting).' },
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
          host: { type: 'string', description: '`local` for this machine, else the name of the host (a dashboard over several hosts).' },
          tokens: { type: ['integer', 'null'], description: 'Tokens spent so far, from the transcript; null without one.' },
          costUsd: { type: ['number', 'null'], description: 'Estimated cost in USD; null without a transcript or a price for the model.' },
          spend: { type: 'string', description: '`no transcript`, `no price`, or empty when tokens and cost are known.' },
          compactions: { type: ['integer', 'null'] },
          contextTokens: { type: ['integer', 'null'] },
          contextWindow: { type: ['integer', 'null'] },
          ctxPercent: { type: ['integer', 'null'], description: 'How full the context is; null when unknown.' },
          verify: {
            description: 'The verify that must pass before the loop is complete (status `verifying` while it runs); null without one.',
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['command', 'failures', 'attempts', 'running'],
                properties: {
                  command: { type: 'string' }, failures: { type: 'integer' }, attempts: { type: 'integer' }, running: { type: 'boolean' },
                  startedAt: { type: ['string', 'null'] }, elapsedMs: { type: ['integer', 'null'] },
                },
              },
            ],
          },
          worktree: {
            description: 'The git worktree the loop\'s agent works in; null without one.',
            oneOf: [{ type: 'null' }, { type: 'object', required: ['path', 'branch'], properties: { path: { type: 'string' }, branch: { type: 'string' } } }],
          },
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
          host: { type: 'string', description: 'The other host it was read from, in a dashboard over several (such an event has no SSE id: ids are per host); absent for this machine\'s events.' },
        },
      },
    },
  },
} as const;

/** A fresh copy of the document (callers may not change the shared one). */
export function openApiDocument(): Record<string, unknown> {
  return structuredClone(DOCUMENT) as unknown as Record<string, unknown>;
}
