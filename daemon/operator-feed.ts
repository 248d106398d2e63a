import { storeEvent } from './events/store-events.js';
import type { DaemonEvent } from './events/event.js';
import type { LogTap } from './lifecycle/log-tap.js';
import type { Services } from './services.js';
import { ToolActivity } from './tools/activity.js';

/**
 * What reaches the operator event stream besides client-tool traffic, through
 * one publish function: declared tools' activity, committed messages,
 * approvals and tasks from whichever path wrote them, and the daemon's log
 * lines masked by the result gate. Returns the activity the declared tools
 * report to.
 */
export function connectOperatorFeed(
  services: Services,
  publish: (event: DaemonEvent) => void,
  logs: LogTap | undefined,
): ToolActivity {
  const activity = new ToolActivity(services.clock);
  activity.connect((type, event) =>
    publish({ type, data: { ...event }, redacted: null, audience: null }),
  );
  services.notices.connect((n) => publish(storeEvent(n, services.gate)));
  logs?.connect((e) =>
    publish({
      type: 'daemon.log',
      data: { n: e.n, line: services.gate.maskText(e.line) },
      redacted: null,
      audience: null,
    }),
  );
  return activity;
}
