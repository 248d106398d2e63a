import { taskCreate, taskGet, taskList, taskUpdate } from '../../catalog/domains/task.js';
import type { Registry } from '../exec/registry.js';

/** Tasks live on the team server; these handlers only forward to it. */
export function registerTaskHandlers(r: Registry): void {
  r.registerJSON(taskCreate, (input, ctx) => ctx.server.createTask(input));
  r.registerJSON(taskGet, (input, ctx) => ctx.server.getTask(input));
  r.registerJSON(taskList, (input, ctx) => ctx.server.listTasks(input));
  r.registerJSON(taskUpdate, (input, ctx) => ctx.server.updateTask(input));
}
