import type { ActionDescriptor } from '../../catalog/descriptor.js';
import { sharedValidator } from '../../lib/validator.js';
import {
  toInputCheck,
  type InputCheck,
  type ValidateFunction,
} from '../../lib/input-validators.js';

/**
 * Compiles a descriptor's input schema once, at registration (daemon start).
 * Error details go through the same JSON-pointer mapping the CLI uses, so a
 * runtime sees the same `details[].path` locally and from the daemon.
 */
export function compileInputCheck(d: ActionDescriptor): InputCheck {
  const validate = sharedValidator().compile(d.input as object) as unknown as ValidateFunction;
  return toInputCheck(validate);
}
