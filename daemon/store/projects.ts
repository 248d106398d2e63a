import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import { projectCreate, projectGet, projectList } from '../../catalog/domains/project.js';
import { storeDomain } from './domain.js';
import { ExecError } from '../errors/exec-error.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { updatedAtPage } from './updated-page.js';
import { projectOf, type ProjectRow } from './rows.js';
import type { Caller } from './server-api.js';

const COLUMNS = 'id, name, description, revision, created_at, updated_at';
const BY_ID = `SELECT ${COLUMNS} FROM projects WHERE id = ? AND server_id = ?`;
const INSERT = `INSERT INTO projects (id, server_id, name, description, revision, created_at, updated_at)
  VALUES (?, ?, ?, ?, 1, ?, ?) RETURNING ${COLUMNS}`;
const FIRST_PAGE = `SELECT ${COLUMNS} FROM projects WHERE server_id = ? ORDER BY updated_at DESC, id ASC LIMIT ?`;
const NEXT_PAGE = `SELECT ${COLUMNS} FROM projects WHERE server_id = ? AND (updated_at < ? OR (updated_at = ? AND id > ?))
  ORDER BY updated_at DESC, id ASC LIMIT ?`;

/** Projects of the embedded server, scoped by server id. */
class ProjectStore {
  constructor(private readonly s: StoreContext) {}

  create(c: Caller, input: InputOf<typeof projectCreate>): Promise<OutputOf<typeof projectCreate>> {
    return this.s.idempotency.run(c, 'project/create', input, async (q) => {
      const now = this.s.now();
      const row = await q.get<ProjectRow>(INSERT, [
        newId('project'),
        c.serverId,
        input.name,
        input.description ?? '',
        now,
        now,
      ]);
      return { project: projectOf(row!) };
    });
  }

  async get(c: Caller, input: InputOf<typeof projectGet>): Promise<OutputOf<typeof projectGet>> {
    const row = await this.s.sql.get<ProjectRow>(BY_ID, [input.id, c.serverId]);
    if (!row)
      throw new ExecError('not_found', `project ${input.id} not found`, {
        hint: 'List projects with project list to find the id.',
      });
    return { project: projectOf(row) };
  }

  async list(c: Caller, input: InputOf<typeof projectList>): Promise<OutputOf<typeof projectList>> {
    const binding = { action: 'project/list', scope: c.serverId, filter: {} };
    const { items, ...more } = await updatedAtPage(
      this.s.cursors,
      binding,
      input,
      (n) => this.s.sql.all<ProjectRow>(FIRST_PAGE, [c.serverId, n]),
      (at, id, n) => this.s.sql.all<ProjectRow>(NEXT_PAGE, [c.serverId, at, at, id, n]),
    );
    return { projects: items.map(projectOf), ...more };
  }
}

/** The project domain of the team server. */
export const projectDomain = storeDomain(
  (ctx) => new ProjectStore(ctx),
  (on) => [
    on(projectCreate, (s, c, i) => s.create(c, i)),
    on(projectGet, (s, c, i) => s.get(c, i)),
    on(projectList, (s, c, i) => s.list(c, i)),
  ],
);
