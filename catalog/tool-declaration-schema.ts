/**
 * The published JSON Schema of a declared tool's file (`agentteam tools
 * --schema`), and the bounds it shares with the checker
 * (tool-declaration.ts).
 */

/** The bounds a declaration's checker and its published schema share. */
export const DECLARATION_BOUNDS = {
  toolNamePattern: '^[A-Za-z0-9_-]{1,64}$',
  defaultTimeoutMs: 30_000,
  minTimeoutMs: 100,
  maxTimeoutMs: 600_000,
  defaultOutputBytes: 16 * 1024,
  minOutputBytes: 1024,
  maxOutputBytes: 1024 * 1024,
} as const;
const B = DECLARATION_BOUNDS;

export const annotationsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string', maxLength: 200 },
    readOnlyHint: { type: 'boolean' },
    destructiveHint: { type: 'boolean' },
    idempotentHint: { type: 'boolean' },
    openWorldHint: { type: 'boolean' },
  },
} as const;

export const DECLARATION_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://agentteam.local/schemas/tool-declaration.json',
  title: 'agentteam declared tool',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'transport'],
  properties: {
    $schema: { type: 'string' },
    name: {
      type: 'string',
      pattern: B.toolNamePattern,
      description:
        'One name, one entry: it may not clash with a built-in, another declaration or a client tool.',
    },
    title: { type: 'string', maxLength: 200 },
    description: {
      type: 'string',
      minLength: 1,
      maxLength: 4000,
      description: 'What the model is told the tool does.',
    },
    needs: {
      type: 'object',
      description:
        'Input schema (the client-tool keyword subset, "type": "object" at the root). Required for command tools; builtin tools use the built-in\'s own.',
    },
    annotations: annotationsSchema,
    transport: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'argv'],
          properties: {
            type: { const: 'command' },
            argv: {
              type: 'array',
              minItems: 1,
              maxItems: 256,
              items: { type: 'string', maxLength: 4096 },
              description:
                'Program and arguments, never through a shell. {field} placeholders are filled from the call, each staying one element.',
            },
            cwd: {
              type: 'string',
              minLength: 1,
              description:
                "Working directory: absolute, or relative to the declaration file. Default: the runtime's workdir, else the tools directory.",
            },
            env: {
              type: 'array',
              maxItems: 64,
              items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
              description: 'Names of daemon environment variables passed on (PATH always is).',
            },
            timeoutMs: {
              type: 'integer',
              minimum: B.minTimeoutMs,
              maximum: B.maxTimeoutMs,
              default: B.defaultTimeoutMs,
            },
            exitCodes: {
              type: 'array',
              minItems: 1,
              maxItems: 32,
              items: { type: 'integer', minimum: 0, maximum: 255 },
              default: [0],
              description:
                'Exit statuses that mean success (e.g. [0, 1] for grep-like tools, where 1 is "no match").',
            },
            outputBytes: {
              type: 'integer',
              minimum: B.minOutputBytes,
              maximum: B.maxOutputBytes,
              default: B.defaultOutputBytes,
              description:
                'Limit of said in UTF-8 bytes; beyond it head and tail are kept and the whole is spilled.',
            },
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'tool'],
          properties: {
            type: { const: 'builtin' },
            tool: {
              type: 'string',
              pattern: B.toolNamePattern,
              description: "The daemon's own tool this entry reaches.",
            },
          },
        },
      ],
    },
  },
} as const;
