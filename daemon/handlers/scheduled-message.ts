import {
  scheduledMessageCancel,
  scheduledMessageCreate,
  scheduledMessageGet,
  scheduledMessageList,
  scheduledMessageRuns,
} from '../../catalog/domains/scheduled-message.js';
import type { Registry } from '../exec/registry.js';

/** Schedules live on the team server; the daemon's scheduler delivers them (daemon/schedule/). */
export function registerScheduledMessageHandlers(r: Registry): void {
  r.registerJSON(scheduledMessageCreate, (input, ctx) => ctx.server.createSchedule(input));
  r.registerJSON(scheduledMessageGet, (input, ctx) => ctx.server.getSchedule(input));
  r.registerJSON(scheduledMessageList, (input, ctx) => ctx.server.listSchedules(input));
  r.registerJSON(scheduledMessageCancel, (input, ctx) => ctx.server.cancelSchedule(input));
  r.registerJSON(scheduledMessageRuns, (input, ctx) => ctx.server.listScheduleRuns(input));
}
