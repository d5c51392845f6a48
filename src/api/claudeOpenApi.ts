/*
 * The OpenAPI description of the Claude Code session routes (src/api/claudeRoutes.ts),
 * merged into the API's document by openapi.ts.
 */

const error = { $ref: '#/components/responses/Error' };
const id = {
  name: 'id', in: 'path', required: true,
  description: 'A Claude Code session: the short id of a background session (`claude agents` lists it) or the full session id; in a dashboard over several hosts, a session of another host too (acted on through its autodeck over ssh).',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' },
};
const session = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ClaudeSession' } } } });
const done = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });
const body = (schema: Record<string, unknown>) => ({ required: true, content: { 'application/json': { schema } } });

export const CLAUDE_PATHS = {
  '/api/claude-sessions': {
    get: {
      operationId: 'listClaudeSessions',
      summary: 'Claude Code\'s own sessions on this machine (background and interactive), as `status --json` lists them',
      responses: {
        200: {
          description: 'The sessions, and a note when the list may be old (claude not installed, a failed look).',
          content: { 'application/json': { schema: { type: 'object', required: ['sessions'], properties: { sessions: { type: 'array', items: { $ref: '#/components/schemas/ClaudeSession' } }, note: { type: ['string', 'null'] } } } } },
        },
        401: error, 503: error,
      },
    },
  },
  '/api/claude-sessions/{id}': {
    parameters: [id],
    get: { operationId: 'getClaudeSession', summary: 'One Claude Code session', responses: { 200: session('The session.'), 400: error, 401: error, 404: error, 503: error } },
    delete: { operationId: 'removeClaudeSession', summary: 'Remove an ended background session from Claude Code\'s list (`claude rm`)', responses: { 200: done('Removed.'), 400: error, 401: error, 404: error, 409: error, 502: error, 503: error } },
  },
  '/api/claude-sessions/{id}/stop': {
    parameters: [id],
    post: { operationId: 'stopClaudeSession', summary: 'Stop a background session (`claude stop`); its conversation is kept', responses: { 202: done('Stopped.'), 400: error, 401: error, 404: error, 409: error, 502: error, 503: error } },
  },
  '/api/claude-sessions/{id}/prompt': {
    parameters: [id],
    post: {
      operationId: 'sendClaudePrompt',
      summary: 'Send a prompt to an idle background session, under its own id (never a copy); a busy one is refused with 409',
      requestBody: body({ type: 'object', required: ['prompt'], properties: { prompt: { type: 'string', minLength: 1 } } }),
      responses: { 202: done('Sent: the session runs the prompt as its next turn.'), 400: error, 401: error, 404: error, 409: error, 502: error, 503: error },
    },
  },
  '/api/claude-sessions/{id}/answer': {
    parameters: [id],
    post: {
      operationId: 'answerClaudeSession',
      summary: 'Answer the permission request or question autodeck\'s PermissionRequest hook holds open for the session',
      requestBody: body({
        type: 'object',
        properties: {
          decision: { enum: ['allow', 'deny'], description: 'For a permission request.' },
          message: { type: 'string', description: 'Why, with a deny (the model reads it).' },
          text: { type: 'string', description: 'For a question: the answer (an option\'s label, or free text) to every question.' },
          answers: { type: 'object', additionalProperties: { type: 'string' }, description: 'For a question: the answer per question text.' },
        },
      }),
      responses: { 200: done('Answered: the hook hands it to Claude Code.'), 202: done('A session of another host: the answer goes to its autodeck over ssh; what came of it is on the event stream.'), 400: error, 401: error, 404: error, 409: error, 503: error },
    },
  },
  '/api/claude-sessions/{id}/adopt': {
    parameters: [id],
    post: {
      operationId: 'adoptClaudeSession',
      summary: 'Govern a background session like a loop: iterations (turns), timeout, budget, approval policy, usage-limit resume',
      requestBody: body({ type: 'object', properties: { maxIterations: { type: 'integer', minimum: 1, maximum: 1000 }, timeoutMinutes: { type: 'number', exclusiveMinimum: 0, maximum: 1440 } } }),
      responses: { 201: session('Adopted.'), 202: done('A session of another host: adopted there by its autodeck (adopt --detach), over ssh.'), 400: error, 401: error, 404: error, 409: error, 503: error },
    },
  },
} as const;

export const CLAUDE_SCHEMAS = {
  ClaudeSession: {
    type: 'object',
    description: 'A Claude Code session as autodeck lists it; Claude Code\'s own fields are under `claude`.',
    required: ['source', 'key', 'sessionId', 'id', 'kind', 'name', 'cwd', 'state', 'phase', 'needs', 'claude'],
    properties: {
      source: { const: 'claude' },
      key: { type: 'string' },
      sessionId: { type: 'string' },
      id: { type: 'string', description: 'The short id of a background session; empty for an interactive one.' },
      kind: { type: 'string', description: '`background`, `interactive`, or a newer kind as Claude Code names it.' },
      name: { type: 'string' },
      cwd: { type: 'string' },
      pid: { type: ['integer', 'null'] },
      startedAt: { type: ['string', 'null'], format: 'date-time' },
      ageMs: { type: ['integer', 'null'] },
      state: { type: 'string', description: '`needs you`, `limit`, `working`, `idle`, `done`, `failed`, `stopped`, or Claude Code\'s own word for one autodeck does not know.' },
      phase: { type: 'string' },
      group: { type: 'string', description: 'its state group, as the loops\' (needs_you, failed, waiting, running, stopped, done, idle)' },
      needs: { type: ['object', 'null'], properties: { reason: { type: 'string' }, text: { type: 'string' }, resetAt: { type: ['string', 'null'] }, requestId: { type: ['integer', 'null'] } } },
      claude: { type: 'object' },
      loop: { type: ['string', 'null'], description: 'The task folder of the autodeck loop whose agent this session is.' },
      adopted: { type: ['object', 'null'] },
      updatedAt: { type: ['string', 'null'], format: 'date-time', description: 'When Claude Code last said its state changed.' },
      request: { type: ['object', 'null'], description: 'The request autodeck\'s PermissionRequest hook holds open: id, kind, text, askedAt, detail (a question\'s options).' },
      host: { type: 'string', description: '`local`, or the host it runs on (a dashboard over several hosts).' },
    },
  },
} as const;
