import { dirname, isAbsolute, resolve } from 'node:path';
import {
  ANSWERED,
  type BuiltinTransport,
  type CommandTransport,
  type Declaration,
} from '../../catalog/tool-declaration.js';
import { ExecError } from '../errors/exec-error.js';
import type { ResultGate } from '../results/gate.js';
import type { ToolActivity } from './activity.js';
import { fillArgv, runCommand, type CommandOutcome } from './command.js';
import { resolveProgram } from '../../lib/tool-files.js';
import { parseToolOutput } from './output.js';
import type { CallContext, RegisteredTool, ToolOwner } from './registry.js';
import { detailsOf, type ValidateFunction } from '../../lib/input-validators.js';
import { noteTransport } from '../audit/note.js';

/** What shown text may hold before head and tail are kept and the rest spilled. */
const SHOWN_LIMIT_BYTES = 64 * 1024;
/** How much of stderr a failure message quotes (its tail: where errors are). */
const STDERR_QUOTE_BYTES = 2048;

export interface DeclaredDeps {
  readonly gate: ResultGate;
  readonly activity: ToolActivity;
  /** The daemon's environment, from which `env` names are passed on. */
  readonly env: NodeJS.ProcessEnv;
  readonly toolsDir: string;
}

function textFrame(text: string): string {
  return JSON.stringify({ content: [{ type: 'text', text }], isError: false });
}

function failure(
  name: string,
  outcome: CommandOutcome,
  t: CommandTransport,
  gate: ResultGate,
): ExecError {
  if (outcome.kind === 'spawn_error')
    return new ExecError(
      'upstream_error',
      `${name} could not start: ${gate.maskText(outcome.message)}`,
    );
  // Masked whole, then cut: a credential near the cut (curl -v printing Authorization:) is masked before the tail is taken.
  const tail = gate.quoteTail(outcome.stderr, STDERR_QUOTE_BYTES).trim();
  const said = tail ? `; stderr ends: ${tail}` : '';
  switch (outcome.kind) {
    case 'timeout':
      return new ExecError(
        'timeout',
        `${name} did not finish within ${t.timeoutMs} ms; its process group was killed${said}`,
      );
    case 'too_large':
      return new ExecError(
        'upstream_error',
        `${name} printed more than the daemon keeps (64 MiB); it was killed`,
      );
    case 'cancelled':
      return new ExecError('cancelled', `${name} was cancelled (the caller's authorization ended)`);
    default:
      return new ExecError(
        'upstream_error',
        `${name} exited with ${outcome.signal ? `signal ${outcome.signal}` : `status ${outcome.code}`}${said}`,
      );
  }
}

/**
 * What a finished command becomes. Everything quoted from it goes through
 * the result gate, which masks the whole text before it is cut: a failure
 * quotes the tail of stderr; said is the tool result (head + tail, the whole
 * spilled); shown and ask go to the operator event stream.
 */
export function commandAnswer(
  name: string,
  outcome: CommandOutcome,
  transport: CommandTransport,
  who: { readonly serverId: string; readonly agentId: string },
  deps: Pick<DeclaredDeps, 'gate' | 'activity'>,
): string {
  const { gate, activity } = deps;
  if (
    outcome.kind !== 'exit' ||
    outcome.code === null ||
    !transport.exitCodes.includes(outcome.code)
  )
    throw failure(name, outcome, transport, gate);
  const out = parseToolOutput(outcome.stdout);
  if (out.shown !== undefined)
    activity.shown(who.serverId, who.agentId, name, gate.text(out.shown, SHOWN_LIMIT_BYTES).text);
  let said = out.said;
  if (out.ask !== undefined) {
    const question = gate.text(out.ask, SHOWN_LIMIT_BYTES).text;
    activity.ask(who.serverId, who.agentId, name, question);
    said += `${said ? '\n' : ''}[The person was asked: ${question} Call ${name} again once they have answered; the answer arrives as "${ANSWERED}".]`;
  }
  return textFrame(gate.text(said, transport.outputBytes).text);
}

/**
 * A `command` declaration as a registry entry. One call: validate against
 * `needs`, merge the person's waiting answer as `answered` (never one the
 * caller sent), run the argv without a shell, split said/shown/ask, and pass
 * said through the result gate (masked, head + tail, spilled).
 */
export function commandTool(
  decl: Declaration,
  transport: CommandTransport,
  file: string,
  validate: ValidateFunction,
  owner: ToolOwner,
  deps: DeclaredDeps,
): RegisteredTool {
  const baseDir = dirname(file);
  const { activity } = deps;
  return {
    name: decl.name,
    ...(decl.title !== undefined ? { title: decl.title } : {}),
    description: decl.description,
    inputSchema: decl.needs ?? { type: 'object' },
    annotations: decl.annotations,
    owner,
    async call(input: Record<string, unknown>, ctx: CallContext): Promise<string> {
      noteTransport(ctx, 'declared');
      const args: Record<string, unknown> = { ...input };
      delete args[ANSWERED];
      if (!validate(args)) {
        // The same details as Exec and built-in MCP tools: the field's own path, enums with their allowed values, a count of the rest.
        throw new ExecError(
          'validation_failed',
          `arguments do not match the ${decl.name} input schema`,
          detailsOf(validate.errors ?? [], validate.errorCount),
        );
      }
      const { serverId, agentId, workdir } = ctx.principal;
      const answered = activity.takeAnswer(serverId, agentId, decl.name);
      if (answered !== undefined) args[ANSWERED] = answered;
      const program = resolveProgram(transport.argv[0]!, baseDir, deps.env.PATH);
      if (!program)
        throw new ExecError(
          'upstream_error',
          `${decl.name}: program "${transport.argv[0]}" is not an executable file`,
        );
      const env: Record<string, string> = {};
      for (const k of ['PATH', ...transport.env])
        if (typeof deps.env[k] === 'string') env[k] = deps.env[k]!;
      const cwd = transport.cwd
        ? isAbsolute(transport.cwd)
          ? transport.cwd
          : resolve(baseDir, transport.cwd)
        : (workdir ?? deps.toolsDir);
      const outcome = await runCommand({
        argv: [program, ...fillArgv(transport.argv.slice(1), args)],
        cwd,
        env,
        stdin: JSON.stringify(args),
        timeoutMs: transport.timeoutMs,
        signal: ctx.signal,
      });
      if (ctx.signal.aborted) throw new ExecError('forbidden', 'the authorization was revoked');
      return commandAnswer(decl.name, outcome, transport, { serverId, agentId }, deps);
    },
  };
}

/** A `builtin` declaration: the daemon's own tool under the declared name and description (its schema and hints stay its own). */
export function builtinTool(
  decl: Declaration,
  target: RegisteredTool,
  owner: ToolOwner,
): RegisteredTool {
  return {
    name: decl.name,
    ...(decl.title !== undefined ? { title: decl.title } : {}),
    description: decl.description,
    inputSchema: target.inputSchema,
    ...(target.outputSchema !== undefined ? { outputSchema: target.outputSchema } : {}),
    // The child gate trusts readOnlyHint: a declaration may not upgrade a built-in's hints.
    annotations: {
      ...target.annotations,
      ...(decl.annotations.title !== undefined ? { title: decl.annotations.title } : {}),
    },
    owner,
    call: (args, ctx) => target.call(args, ctx),
  };
}
export type { BuiltinTransport };
