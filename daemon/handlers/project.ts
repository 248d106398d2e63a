import { projectCreate, projectGet, projectList } from '../../catalog/domains/project.js';
import type { Registry } from '../exec/registry.js';

export function registerProjectHandlers(r: Registry): void {
  r.registerJSON(projectCreate, (input, ctx) => ctx.server.createProject(input));
  r.registerJSON(projectGet, (input, ctx) => ctx.server.getProject(input));
  r.registerJSON(projectList, (input, ctx) => ctx.server.listProjects(input));
}
