import { NativeApprovals } from './approvals/native.js';
import { trustedReadOnly } from './approvals/lookup.js';
import type { Services } from './services.js';

/** The one inbox for the runtimes' own permission prompts, over the daemon's approvals, profile, gate and audit trail. */
export function openNativeApprovals(services: Services): NativeApprovals {
  return new NativeApprovals({
    store: services.approvals,
    clock: services.clock,
    gate: services.gate,
    profile: () => services.profile.profile,
    readOnly: trustedReadOnly(services.tools),
    audit: services.audit,
  });
}
