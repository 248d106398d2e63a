import type { InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { projectCreate, projectGet, projectList } from '../../catalog/domains/project.js';
import { ExecError } from '../errors.js';
import type { StoreContext } from './context.js';
import { newId } from './ids.js';
import { updatedAtPage } from './updated-page.js';
import { projectOf, type ProjectRow } from './rows.js';
import type { Caller } from './server-api.js';

/** Projects of the embedded server, scoped by server id. */
export class ProjectStore {
  private readonly byId;
  private readonly insert;
  private readonly firstPage;
  private readonly nextPage;

  constructor(private readonly s: StoreContext) {
    this.byId = s.db.prepare<[string, string], ProjectRow>('SELECT * FROM projects WHERE id = ? AND server_id = ?');
    this.insert = s.db.prepare(
      `INSERT INTO projects (id, server_id, name, description, revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, 1, ?, ?)`,
    );
    this.firstPage = s.db.prepare<[string, number], ProjectRow>(
      'SELECT * FROM projects WHERE server_id = ? ORDER BY updated_at DESC, id ASC LIMIT ?',
    );
    this.nextPage = s.db.prepare<[string, number, number, string, number], ProjectRow>(
      `SELECT * FROM projects WHERE server_id = ? AND (updated_at < ? OR (updated_at = ? AND id > ?))
       ORDER BY updated_at DESC, id ASC LIMIT ?`,
    );
  }

  create(c: Caller, input: InputOf<typeof projectCreate>): OutputOf<typeof projectCreate> {
    return this.s.legacyIdempotency.run(c, 'project/create', input, () => {
      const id = newId('project');
      const now = this.s.now();
      this.insert.run(id, c.serverId, input.name, input.description ?? '', now, now);
      return { project: projectOf(this.byId.get(id, c.serverId)!) };
    });
  }

  get(c: Caller, input: InputOf<typeof projectGet>): OutputOf<typeof projectGet> {
    const row = this.byId.get(input.id, c.serverId);
    if (!row) throw new ExecError('not_found', `project ${input.id} not found`, { hint: 'List projects with project list to find the id.' });
    return { project: projectOf(row) };
  }

  list(c: Caller, input: InputOf<typeof projectList>): OutputOf<typeof projectList> {
    const binding = { action: 'project/list', scope: c.serverId, filter: {} };
    const { items, ...more } = updatedAtPage(
      this.s.cursors, binding, input,
      (n) => this.firstPage.all(c.serverId, n),
      (at, id, n) => this.nextPage.all(c.serverId, at, at, id, n),
    );
    return { projects: items.map(projectOf), ...more };
  }
}
