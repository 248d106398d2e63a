import { jsonText } from './json-text.js';
import { visible } from './terminal-text.js';

/**
 * One event of the operator stream as one line for a person at a terminal:
 * `HH:MM:SS  kind  who  what`. Every field an agent or a person controls
 * (texts, titles, targets, ids) goes through `visible`, so an ESC, a C1
 * control, a newline or a bidi override in a message shows as its escape
 * instead of acting on the terminal or starting a line of its own.
 */

type Data = Readonly<Record<string, unknown>>;

const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const quoted = (v: unknown): string => `"${str(v)}"`;

/** Who did it and what happened, per kind; null for a kind without its own words. */
function describe(type: string, d: Data): [who: string, what: string] | null {
  switch (type) {
    case 'message.created': {
      const cut = Number(d.length) > [...str(d.excerpt)].length ? ' …' : '';
      return [str(d.author), `${str(d.target)}: ${str(d.excerpt)}${cut}`];
    }
    case 'approval.requested':
      return [str(d.requestedBy), `${str(d.id)} ${quoted(d.title)} waits for a decision`];
    case 'approval.decided':
      return [str(d.decidedBy), `${str(d.id)} ${str(d.status)} ${quoted(d.title)}`];
    case 'task.changed': {
      const fields = Array.isArray(d.fields) ? d.fields.map(str).join(',') : '';
      const assignee = d.assignee ? ` assignee=${str(d.assignee)}` : '';
      return [
        str(d.actor),
        `${str(d.id)} ${str(d.change)}${fields ? ` (${fields})` : ''} status=${str(d.status)}${assignee} ${quoted(d.title)}`,
      ];
    }
    case 'turn.started':
      return [str(d.agentId), `${str(d.turnId)} on ${str(d.target)}`];
    case 'turn.finished': {
      const error = d.error ? ` (${str(d.error)})` : '';
      return [str(d.agentId), `${str(d.turnId)} ${str(d.state)}${error} on ${str(d.target)}`];
    }
    case 'tool.shown':
    case 'tool.asked':
    case 'tool.answered':
      return [str(d.agent), `${str(d.tool)}: ${str(d.text)}`];
    default:
      return null;
  }
}

export function watchLine(type: string, data: Data, at: Date): string {
  const time = at.toISOString().slice(11, 19);
  const words = describe(type, data);
  if (!words) return `${time}  ${visible(type)}  ${jsonText(data)}`;
  const [who, what] = words;
  return `${time}  ${visible(type)}  ${visible(who || '-')}  ${visible(what)}`;
}

/** The target an event is about, for `--target`: a message's or turn's target, `task:<id>` for a task. */
export function eventTarget(type: string, data: Data): string | null {
  if (type === 'task.changed') return `task:${str(data.id)}`;
  return typeof data.target === 'string' ? data.target : null;
}
