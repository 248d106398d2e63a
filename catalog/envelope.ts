import type { FromSchema } from 'json-schema-to-ts';
import { ERROR_CODES } from './errors.js';

/** Shared error envelope: every failure a runtime sees, over Exec or the CLI, has this shape. */
export const errorEnvelopeSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://agentteam.dev/schemas/exec/error-envelope.json',
  title: 'agentteam error envelope',
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'error'],
  properties: {
    ok: { const: false },
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: ERROR_CODES },
        message: { type: 'string' },
        hint: { type: 'string', description: 'What to do instead.' },
        next: {
          type: 'object',
          description: 'A concrete follow-up call: the action and the input to send.',
        },
        details: {
          type: 'array',
          maxItems: 20,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'message'],
            properties: {
              path: {
                type: 'string',
                description: 'JSON pointer into the input ("" is the whole input).',
              },
              message: { type: 'string' },
            },
          },
        },
        detailsOmitted: {
          type: 'integer',
          minimum: 1,
          description:
            'How many further problems were found but left out of details (the envelope is at most 8 KiB).',
        },
        metadata: {
          type: 'object',
          additionalProperties: false,
          properties: {
            mutation_applied: {
              type: 'boolean',
              const: true,
              description: 'The mutation may have committed although its result was not returned.',
            },
            mutation_receipt: {
              type: 'object',
              additionalProperties: false,
              required: ['entity'],
              description:
                'Allowlisted selectors of what the mutation wrote, and the call that reads it back.',
              properties: {
                entity: { type: 'string' },
                id: { type: 'string' },
                taskId: { type: 'string' },
                target: { type: 'string' },
                revision: { type: 'integer' },
                idempotencyKey: { type: 'string' },
                requestId: { type: 'string' },
                retrieval: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['action', 'input'],
                  properties: { action: { type: 'string' }, input: { type: 'object' } },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

export type ErrorEnvelope = FromSchema<typeof errorEnvelopeSchema>;
export type ErrorBody = ErrorEnvelope['error'];
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];
export interface SuccessEnvelope<T = unknown> {
  ok: true;
  data: T;
}
export type Envelope<T = unknown> = SuccessEnvelope<T> | ErrorEnvelope;
