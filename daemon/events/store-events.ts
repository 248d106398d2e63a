import { MESSAGE_EXCERPT_CHARS } from '../../catalog/event-kinds.js';
import type { ResultGate } from '../results/gate.js';
import type { StoreNotice } from '../store/notices.js';
import type { DaemonEvent } from './event.js';

/**
 * The store's committed writes as events (`message.created`,
 * `approval.requested`, `approval.decided`, `task.changed`), for every
 * stream: ids, who, states and short texts. A message's text is masked by
 * the result gate first and only then cut to its excerpt, so a secret cut in
 * half cannot slip past the masker; the stream masks the whole event again.
 */
export function storeEvent(n: StoreNotice, gate: ResultGate): DaemonEvent {
  const everyone = { redacted: null, audience: null } as const;
  switch (n.kind) {
    case 'message': {
      const m = n.message;
      const chars = [...gate.maskText(m.content)];
      return {
        type: 'message.created',
        data: {
          id: m.id,
          serverId: n.serverId,
          target: m.target,
          author: m.author,
          replyTo: m.replyTo,
          createdAt: m.createdAt,
          length: [...m.content].length,
          excerpt: chars.slice(0, MESSAGE_EXCERPT_CHARS).join(''),
        },
        ...everyone,
      };
    }
    case 'approval.requested':
    case 'approval.decided': {
      const a = n.approval;
      return {
        type: n.kind,
        data: {
          id: a.id,
          serverId: n.serverId,
          title: a.title,
          status: a.status,
          requestedBy: a.requestedBy,
          decidedBy: a.decidedBy,
          expiresAt: a.expiresAt,
          decidedAt: a.decidedAt,
          createdAt: a.createdAt,
          note: a.note,
          // A runtime's own request: who asked (its view is masked already; the title quotes it).
          native: a.native && {
            runtime: a.native.runtime,
            turnId: a.native.turnId,
            threadId: a.native.threadId,
            subagentId: a.native.subagentId,
            delegated: a.native.delegated,
            kind: a.native.kind,
            scope: a.native.scope,
          },
        },
        ...everyone,
      };
    }
    case 'task': {
      const t = n.task;
      return {
        type: 'task.changed',
        data: {
          id: t.id,
          serverId: n.serverId,
          change: n.created ? 'created' : 'updated',
          fields: n.fields,
          actor: n.actor,
          title: t.title,
          status: t.status,
          assignee: t.assignee,
          projectId: t.projectId,
          revision: t.revision,
        },
        ...everyone,
      };
    }
  }
}
