import { DEFAULT_PERSON } from '../../catalog/ids.js';
import type { Profile } from './types.js';

/** The person the daemon acts for when a write names none: the profile's `person`, else `human:operator`. */
export function profilePerson(p: Profile): string {
  return p.person ? `human:${p.person}` : DEFAULT_PERSON;
}
