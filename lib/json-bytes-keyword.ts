import type { CodeKeywordDefinition, KeywordCxt } from 'ajv';
import { _, str } from 'ajv/dist/compile/codegen/index.js';
import { JSON_BYTES_KEYWORD } from '../catalog/limits.js';

/**
 * The ajv implementation of the catalog's `x-maxJsonBytes` keyword. It is a
 * code keyword (the check is written into the validator's source), so the
 * standalone validators the CLI loads and the validators the daemon compiles
 * at start-up run the very same expression and report the same message.
 *
 * A string fails when it holds an unpaired surrogate (JSON may spell one as
 * `\ud800`, but the store writes UTF-8, which cannot encode it and would
 * silently substitute U+FFFD), or when its JSON form is longer than the limit
 * in UTF-8 bytes.
 */
export const jsonBytesKeyword: CodeKeywordDefinition = {
  keyword: JSON_BYTES_KEYWORD,
  type: 'string',
  schemaType: 'number',
  error: {
    message: ({ params }) =>
      _`${params.bytes} < 0 ? "must be well-formed Unicode (no unpaired surrogate U+D800-U+DFFF)" : ${str`must be at most ${params.limit} bytes as JSON (UTF-8, escapes counted)`}`,
    params: ({ params }) => _`{limit: ${params.limit}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    // A string of n UTF-16 code units is at most 6n bytes as JSON, so a short
    // one needs no count (reported as 0). Without a character JSON escapes
    // (quote, backslash, C0 controls) the JSON bytes are the UTF-8 bytes,
    // counted natively without building a copy.
    const bytes = gen.const(
      'bytes',
      _`!${data}.isWellFormed() ? -1 : ${data}.length * 6 <= ${schema as number} ? 0 : /["\\\\\\u0000-\\u001f]/.test(${data}) ? Buffer.byteLength(JSON.stringify(${data}), "utf8") - 2 : Buffer.byteLength(${data}, "utf8")`,
    );
    cxt.setParams({ limit: schema as number, bytes });
    cxt.fail(_`${bytes} < 0 || ${bytes} > ${schema as number}`);
  },
};
