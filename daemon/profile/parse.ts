import { isRuntimeKind, RUNTIME_KINDS } from '../../catalog/runtimes.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import type { AgentConfig, Profile, TeamConfig, TeamMember } from './types.js';
import { isWellFormedText, jsonBytes, LIMITS } from '../../catalog/limits.js';
import { safeBaseUrl } from './projection.js';
import { LaunchConfigError, parseLaunch } from './launch.js';
import { ApprovalsConfigError, parseApprovals } from './approvals.js';

export class ProfileError extends Error {
  override name = 'ProfileError';
}

type Obj = Record<string, unknown>;
type Limit = { readonly chars: number; readonly bytes: number };

/**
 * Profile strings reach model-visible results (team get, agent get, message
 * and review authors), so they obey the same catalog limits as any stored
 * text: a result of one team or one agent always fits the result budget.
 */
function bounded(v: string, limit: Limit, where: string): string {
  if (!isWellFormedText(v))
    throw new ProfileError(`${where} must be well-formed Unicode (no unpaired surrogate)`);
  if ([...v].length > limit.chars || jsonBytes(v) > limit.bytes) {
    throw new ProfileError(
      `${where} must be at most ${limit.chars} characters and ${limit.bytes} bytes as JSON`,
    );
  }
  return v;
}
function count<T>(list: T[], max: number, where: string): T[] {
  if (list.length > max) throw new ProfileError(`${where} may hold at most ${max} entries`);
  return list;
}

function obj(v: unknown, where: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ProfileError(`${where} must be an object`);
  return v as Obj;
}
function str(o: Obj, key: string, where: string, limit: Limit = LIMITS.profileName): string {
  const v = o[key];
  if (typeof v !== 'string' || v.length === 0)
    throw new ProfileError(`${where}.${key} must be a non-empty string`);
  return bounded(v, limit, `${where}.${key}`);
}
function optStr(
  o: Obj,
  key: string,
  where: string,
  limit: Limit = LIMITS.profileName,
): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ProfileError(`${where}.${key} must be a string`);
  return bounded(v, limit, `${where}.${key}`);
}
function arr(o: Obj, key: string, where: string): unknown[] {
  const v = o[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new ProfileError(`${where}.${key} must be an array`);
  return v;
}

/**
 * Validates the profile document. Unknown fields (source ids, notes) are
 * accepted and dropped here, so nothing unvetted reaches a projection.
 * Errors name the offending location but never echo a value.
 */
export interface ParseOptions {
  /**
   * Whether a denyTools entry names a tool an agent can be denied: a client
   * tool some app ever registered, or a fallback tool. Without it any
   * well-formed name is accepted.
   */
  readonly denyable?: (name: string) => boolean;
}

export function parseProfile(doc: unknown, opts: ParseOptions = {}): Profile {
  const root = obj(doc, 'profile');
  const agents = arr(root, 'agents', 'profile').map((a, i) => parseAgent(a, `agents[${i}]`, opts));
  const seen = new Set<string>();
  for (const a of agents) {
    if (seen.has(a.id)) throw new ProfileError(`agent id "${a.id}" appears twice`);
    seen.add(a.id);
  }
  const teams = arr(root, 'teams', 'profile').map((t, i) => parseTeam(t, `teams[${i}]`));
  const teamIds = new Set<string>();
  for (const t of teams) {
    if (teamIds.has(t.teamId)) throw new ProfileError(`teamId "${t.teamId}" appears twice`);
    teamIds.add(t.teamId);
  }
  for (const a of agents) {
    const memberships = teams.filter((t) =>
      t.members.some((m) => m.kind === 'agent' && m.handle === a.id),
    ).length;
    if (memberships > LIMITS.agentTeams)
      throw new ProfileError(`agent "${a.id}" belongs to more than ${LIMITS.agentTeams} teams`);
  }
  // The person at the console: their messages are `human:<person>`, their unread counts kept under it.
  const person = optStr(root, 'person', 'profile');
  if (person !== null && !isEntityId(person))
    throw new ProfileError(`profile.person must be ${ENTITY_ID_RULE}`);
  return { agents, teams, ...(person !== null ? { person } : {}) };
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function parseDenyTools(o: Obj, where: string, opts: ParseOptions): string[] {
  return arr(o, 'denyTools', where).map((n, i) => {
    const at = `${where}.denyTools[${i}]`;
    if (typeof n !== 'string' || !TOOL_NAME.test(n))
      throw new ProfileError(`${at} must be a tool name`);
    if (opts.denyable && !opts.denyable(n)) {
      throw new ProfileError(
        `${at}: "${n}" is neither a client tool an app has registered, a declared tool, nor app_tools/app_call`,
      );
    }
    return n;
  });
}

function parseAgent(v: unknown, where: string, opts: ParseOptions): AgentConfig {
  const o = obj(v, where);
  const runtime = o.runtime ?? 'generic';
  if (!isRuntimeKind(runtime))
    throw new ProfileError(`${where}.runtime must be one of ${RUNTIME_KINDS.join(', ')}`);
  const headers: Record<string, string> = {};
  if (o.headers !== undefined) {
    for (const [name, value] of count(
      Object.entries(obj(o.headers, `${where}.headers`)),
      LIMITS.agentHeaders,
      `${where}.headers`,
    )) {
      if (typeof value !== 'string')
        throw new ProfileError(`${where}.headers.${name} must be a string`);
      bounded(name, LIMITS.profileName, `${where}.headers (a header name)`);
      headers[name] = value;
    }
  }
  const fs = o.filesystem === undefined ? {} : obj(o.filesystem, `${where}.filesystem`);
  const allowedPaths = arr(fs, 'allowedPaths', `${where}.filesystem`).map((p, i) => {
    if (typeof p !== 'string')
      throw new ProfileError(`${where}.filesystem.allowedPaths[${i}] must be a string`);
    return p;
  });
  // The id grammar, checked next, is what bounds an agent id (within LIMITS.agentId); its message names the rule.
  const id = str(o, 'id', where, { chars: Infinity, bytes: Infinity });
  // The same grammar as the lease route: a profile agent must be one that can run, author and be addressed.
  if (!isEntityId(id)) throw new ProfileError(`${where}.id must be ${ENTITY_ID_RULE}`);
  const baseUrl = optStr(o, 'baseUrl', where, LIMITS.profileUrl);
  // Its projection (punycode, percent-encoding) can be longer than what was written.
  const shown = safeBaseUrl(baseUrl);
  if (shown !== null) bounded(shown, LIMITS.profileUrl, `${where}.baseUrl (as shown)`);
  return {
    id,
    displayName: optStr(o, 'displayName', where) ?? id,
    runtime,
    model: optStr(o, 'model', where),
    baseUrl,
    headers,
    apiKeyEnv: optStr(o, 'apiKeyEnv', where),
    allowedPaths,
    denyTools: parseDenyTools(o, where, opts),
    launch: launchOf(o.launch, `${where}.launch`, allowedPaths),
    approvals: approvalsOf(o.approvals, `${where}.approvals`),
  };
}

function launchOf(v: unknown, where: string, allowedPaths: readonly string[]) {
  try {
    return parseLaunch(v, where, allowedPaths);
  } catch (err) {
    if (err instanceof LaunchConfigError) throw new ProfileError(err.message);
    throw err;
  }
}

function approvalsOf(v: unknown, where: string) {
  try {
    return parseApprovals(v, where);
  } catch (err) {
    if (err instanceof ApprovalsConfigError) throw new ProfileError(err.message);
    throw err;
  }
}

function parseTeam(v: unknown, where: string): TeamConfig {
  const o = obj(v, where);
  const members: TeamMember[] = count(
    arr(o, 'members', where),
    LIMITS.teamMembers,
    `${where}.members`,
  ).map((m, i) => {
    const mo = obj(m, `${where}.members[${i}]`);
    const kind = mo.kind;
    if (kind !== 'agent' && kind !== 'human')
      throw new ProfileError(`${where}.members[${i}].kind must be agent or human`);
    const handle = str(mo, 'handle', `${where}.members[${i}]`);
    // Members are authors (`agent:<handle>`, `human:<handle>`): the same grammar.
    if (!isEntityId(handle))
      throw new ProfileError(`${where}.members[${i}].handle must be ${ENTITY_ID_RULE}`);
    return { kind, handle };
  });
  const teamId = str(o, 'teamId', where);
  return {
    teamId,
    handle: optStr(o, 'handle', where) ?? teamId,
    displayName: optStr(o, 'displayName', where) ?? teamId,
    members,
  };
}
